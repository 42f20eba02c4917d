import { createRequire } from 'node:module';
import type { compile as Compile } from 'html-to-text';
import type Sanitize from 'sanitize-html';
import { simpleHtmlToText } from './simple-html-text.ts';

// The HTML sanitiser (with its CSS parser) and the HTML-to-text converter are loaded when the
// first post is written or published, not at start-up; their functions are synchronous, hence `require`.
const require = createRequire(import.meta.url);
let sanitizer: { sanitize: typeof Sanitize; options: Sanitize.IOptions } | undefined;
let convert: ReturnType<typeof Compile> | undefined;

/** The HTML subset a post's content is stored in: paragraphs, line breaks, emphasis, links, lists, quotes and code. */
const sanitizeOptions = (sanitize: typeof Sanitize): Sanitize.IOptions => ({
  allowedTags: [
    'p',
    'br',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'del',
    'a',
    'ul',
    'ol',
    'li',
    'blockquote',
    'code',
    'pre',
    'h1',
    'h2',
    'h3',
    'span',
  ],
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitize.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }),
  },
  // Keep the text of tags that are dropped (e.g. <div>) but never that of script or style.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head'],
});

/** Stores content as a safe HTML subset: scripts, handlers, styles and foreign schemes are gone. */
export function sanitizePostHtml(html: string): string {
  if (!sanitizer) {
    const sanitize = require('sanitize-html') as typeof Sanitize;
    sanitizer = { sanitize, options: sanitizeOptions(sanitize) };
  }
  return sanitizer.sanitize(html, sanitizer.options).trim();
}

/** An HTML tag or comment: `<p>`, `</a>`, `<br/>`, `<!-- -->`. "I <3 you" and "a < b" have none. */
const HTML_TAG = /<(\/?[a-z][a-z0-9-]*(\s[^<>]*)?\/?|!--)>/i;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Plain text as HTML: blank lines separate paragraphs and a single newline is a line break;
 * the text is kept as written (`<`, `&` are escaped).
 */
export function plainTextToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n\s*/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean)
    .map(
      (paragraph) =>
        `<p>${paragraph
          .split('\n')
          .map((line) => escapeHtml(line.trim()))
          .join('<br>')}</p>`,
    )
    .join('');
}

/**
 * A post's content as stored: HTML is sanitised to the subset above; content without a single
 * HTML tag is plain text, whose paragraphs and line breaks are kept (`plainTextToHtml`).
 */
export function postContentToHtml(content: string): string {
  return sanitizePostHtml(HTML_TAG.test(content) ? content : plainTextToHtml(content));
}

// Compiled once: html-to-text builds its selector machinery for each options object.
const compileConverter = (compile: typeof Compile) =>
  compile({
    wordwrap: false,
    preserveNewlines: false,
    selectors: [
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['(', ')'] } },
      { selector: 'p', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: 'ul', options: { itemPrefix: '- ', leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'ol', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'blockquote', options: { trimEmptyLines: true } },
    ],
  });

/**
 * Plain text for platforms that take text: paragraphs separated by a blank line, `<br>` as
 * a line break, list items as "- item", and a link as its URL (or "text (URL)" when the
 * text says something else).
 */
export function htmlToPlainText(html: string): string {
  return (simpleHtmlToText(html) ?? htmlToTextConverter()(html)).replace(/\n{3,}/g, '\n\n').trim();
}

/** html-to-text's converter with the options above (loaded with its first use). */
export function htmlToTextConverter(): (html: string) => string {
  return (convert ??= compileConverter((require('html-to-text') as { compile: typeof Compile }).compile));
}
