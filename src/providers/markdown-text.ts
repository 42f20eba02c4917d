import { markupConverter } from './markup.ts';

/**
 * The stored HTML as Markdown for forum platforms that render it (Reddit, Lemmy): emphasis,
 * links as `[text](url)`, headings, lists, quotes and code in CommonMark syntax, and the post's
 * own characters escaped where Markdown would read them as formatting.
 */
export const htmlToForumMarkdown = markupConverter({
  bold: '**',
  italic: '*',
  strike: '~~',
  code: '`',
  link: (text, href) => `[${text}](${href.replace(/\)/g, '%29')})`,
  url: (href) => href,
  heading: (text, level) => `${'#'.repeat(Math.min(Math.max(level, 1), 3))} ${text}`,
  bullet: '* ',
  characters: { '\\': '\\\\', '*': '\\*', _: '\\_', '~': '\\~', '`': '\\`', '[': '\\[', ']': '\\]', '^': '\\^' },
});
