import { markupConverter } from '../markup.ts';

/**
 * The stored HTML as Markdown (CommonMark, which Forem renders): emphasis, links, headings,
 * lists, quotes and code; the post's own Markdown characters escaped so they stay as written.
 */
export const htmlToForemMarkdown = markupConverter({
  bold: '**',
  italic: '_',
  strike: '~~',
  code: '`',
  link: (text, href) => `[${text}](${href.replace(/[()]/g, (c) => encodeURIComponent(c))})`,
  url: (href) => `<${href}>`,
  heading: (text, level) => `${'#'.repeat(level)} ${text}`,
  bullet: '- ',
  characters: { '\\': '\\\\', '*': '\\*', _: '\\_', '`': '\\`', '[': '\\[', ']': '\\]', '<': '\\<', '#': '\\#', '~': '\\~' },
});
