import { createRequire } from 'node:module';
import type { convert as Convert, FormatCallback } from 'html-to-text';
import { sameLink, textOf } from '../markup.ts';

const require = createRequire(import.meta.url);

/** Bluesky's limits on a post's text (app.bsky.feed.post: maxGraphemes 300, maxLength 3000 UTF-8 bytes). */
export const MAX_GRAPHEMES = 300;
export const MAX_BYTES = 3000;

/**
 * Counts graphemes as the PDS validates `app.bsky.feed.post#text` (its library counts with
 * `Intl.Segmenter` in one piece; `countGraphemes` gives the same count in pieces, in linear time).
 */
export { countGraphemes } from '../../content/graphemes.ts';

export function countBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A link becomes its URL, which Bluesky turns into a link facet: the bare URL when the text
 * only repeats it, "text URL" otherwise. A mailto link keeps its text (Bluesky has no facet for it).
 */
const anchor: FormatCallback = (elem, walk, builder) => {
  const href = String(elem.attribs?.href ?? '').trim();
  const text = textOf(elem).trim();
  if (/^mailto:/i.test(href)) {
    if (text) walk(elem.children, builder);
    else builder.addInline(href.replace(/^mailto:/i, ''));
    return;
  }
  if (!/^https?:\/\//i.test(href)) {
    walk(elem.children, builder);
    return;
  }
  if (!text || sameLink(text, href)) {
    builder.addInline(href, { noWordTransform: true });
    return;
  }
  walk(elem.children, builder);
  builder.addInline(` ${href}`, { noWordTransform: true });
};

/**
 * The stored, sanitised HTML as the plain text of a Bluesky post: paragraphs separated by a
 * blank line, `<br>` as a line break, emphasis dropped, list items as "• item" (numbered for
 * `<ol>`), links as their URL, no wrapping.
 */
export function htmlToBlueskyText(html: string): string {
  // Loaded with the first Bluesky post, not at start-up.
  const { convert } = require('html-to-text') as { convert: typeof Convert };
  const text = convert(html, {
    wordwrap: false,
    preserveNewlines: false,
    formatters: { blueskyAnchor: anchor },
    selectors: [
      { selector: 'a', format: 'blueskyAnchor' },
      { selector: 'img', format: 'skip' },
      { selector: 'p', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: 'ul', options: { itemPrefix: '• ', leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: 'ol', options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
      { selector: 'h1', options: { uppercase: false } },
      { selector: 'h2', options: { uppercase: false } },
      { selector: 'h3', options: { uppercase: false } },
      { selector: 'h4', options: { uppercase: false } },
      { selector: 'h5', options: { uppercase: false } },
      { selector: 'h6', options: { uppercase: false } },
      { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    ],
  });
  return (
    text
      .split('\n')
      // html-to-text indents numbered items by one space ("␠1. one"); a post starts them at the margin.
      .map((line) => line.trimEnd().replace(/^ (\d+\. )/, '$1'))
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}
