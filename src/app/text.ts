/** Elements whose start or end separates words (a paragraph's end is not glued to the next one's start). */
const BLOCKS = new Set([
  'p',
  'br',
  'div',
  'li',
  'ul',
  'ol',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'hr',
  'tr',
  'td',
  'th',
]);
/** Elements whose content is not text a person reads. */
const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
/** A skipped element's end tag: its content is not markup (`if (a<b)` in a script opens no tag). */
const SKIPPED_END = /<\/(script|style|template|noscript)[\t\n\f\r />]/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const TAG_NAME = /<\/?([a-zA-Z][a-zA-Z0-9-]*)/y;
// A character reference, with or without its `;` (browsers read some without one).
const ENTITY = /&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});?/g;
let decoder: HTMLTextAreaElement | undefined;
const decoded = new Map<string, string>();

/**
 * One character reference: the common ones here; any other (a name beyond the common few, one
 * without its `;`, a code the browser maps) read by the browser once each, as a textarea's text,
 * which makes no elements.
 */
function entity(whole: string): string {
  if (whole.endsWith(';')) {
    if (whole[1] === '#') {
      const hex = whole[2] === 'x' || whole[2] === 'X';
      const code = parseInt(whole.slice(hex ? 3 : 2, -1), hex ? 16 : 10);
      if ((code >= 0x20 && code < 0x7f) || (code >= 0xa0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff))) {
        return String.fromCodePoint(code);
      }
    } else {
      const known = NAMED[whole.slice(1, -1)];
      if (known !== undefined) return known;
    }
  }
  const cached = decoded.get(whole);
  if (cached !== undefined) return cached;
  decoder ??= document.createElement('textarea');
  decoder.innerHTML = whole;
  const value = decoder.value;
  if (decoded.size < 1000) decoded.set(whole, value);
  return value;
}

const decode = (text: string) => (text.includes('&') ? text.replace(ENTITY, entity) : text);

/** Where the tag opened at `open` ends: its first `>` outside a quoted attribute value (quotes count only after `=`). */
function tagEnd(html: string, open: number, attributes: boolean): number {
  let quote = '';
  let previous = '';
  for (let i = open + 1; i < html.length; i++) {
    const c = html[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '>') {
      return i;
    } else if (attributes && previous === '=' && (c === '"' || c === "'")) {
      quote = c;
    }
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r' && c !== '\f') previous = c;
  }
  return html.length;
}

/**
 * The post's text without markup, for a title or a summary: one pass over the stored HTML that
 * keeps the text between tags and decodes character references; nothing is parsed into a
 * document or inserted as HTML (the caller renders the result as text). Comments, and the content
 * of script and style elements, are left out; a block's edges separate words.
 */
export function plainText(html: string): string {
  let text = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    const end = open === -1 ? html.length : open;
    if (end > at) text += decode(html.slice(at, end));
    if (open === -1) break;
    if (html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      at = close === -1 ? html.length : close + 3;
      continue;
    }
    TAG_NAME.lastIndex = open;
    const name = TAG_NAME.exec(html);
    if (!name) {
      // `<!…>` and `<?…>` are comments to the browser; any other `<` that starts no tag is text.
      if (html[open + 1] === '!' || html[open + 1] === '?') {
        at = tagEnd(html, open, false) + 1;
      } else {
        text += '<';
        at = open + 1;
      }
      continue;
    }
    at = tagEnd(html, open, true) + 1;
    const tag = name[1]!.toLowerCase();
    const closing = html[open + 1] === '/';
    if (!closing && SKIPPED.has(tag)) {
      // Up to the same element's end tag (or the end): none of it is text.
      SKIPPED_END.lastIndex = at;
      let close = SKIPPED_END.exec(html);
      while (close && close[1]!.toLowerCase() !== tag) close = SKIPPED_END.exec(html);
      at = close ? tagEnd(html, close.index, true) + 1 : html.length;
    } else if (BLOCKS.has(tag)) {
      text += ' ';
    }
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** A title longer than a day cell shows is cut (the detail panel has the whole text). */
const TITLE_CHARS = 160;

/** A post's title in the calendar: its text, cut at TITLE_CHARS. */
export function postTitle(html: string): string {
  const text = plainText(html);
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS)}…` : text || '(no text)';
}
