/**
 * html-to-text's conversion (with the options of `htmlToPlainText`), for the content most posts
 * are: paragraphs at the top level, line breaks, text and inline tags without attributes
 * (`<strong>`, `<em>`, `<span>`…), with the entities sanitised HTML uses. It follows html-to-text's
 * own algorithm (its BlockTextBuilder and WhitespaceProcessor) for that subset, so it gives the
 * same text, without building a DOM or a converter stack: `null` for anything else (links,
 * lists, attributes, other entities, stray `<` or `>`, tags out of order), which goes to
 * html-to-text itself. test/content/simple-html-text.test.ts compares both on generated content.
 */

/** Tags html-to-text (as configured) renders inline, that is, by walking their children. */
const INLINE_TAGS = new Set(['strong', 'b', 'em', 'i', 'u', 's', 'del', 'span', 'code']);

/** A tag without attributes (`<br/>`, `<br />` allowed), or a run of text; anything else does not match. */
const TOKEN = /<(\/?)([a-z]+)( ?\/)?>|[^<>]+/y;

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&apos;': "'",
  '&nbsp;': '\u00a0',
  '&#39;': "'",
};
/** Text whose every `&` starts one of ENTITIES, with no control characters but whitespace (htmlparser2 keeps them; kept out to stay on safe ground). */
// eslint-disable-next-line no-control-regex -- the control characters are what it refuses
const SIMPLE_TEXT = /^(?:[^&\u0000-\u0008\u000b\u000e-\u001f\u007f]|&(?:amp|lt|gt|quot|apos|nbsp|#39);)*$/;
const ENTITY = /&(?:amp|lt|gt|quot|apos|nbsp|#39);/g;

// html-to-text's default whitespace characters: ' \t\r\n\f\u200b' (a no-break space is not one).
const WORD = /[^ \t\r\n\f\u200b]+/g;
const LEADING_SPACE = /^[ \t\r\n\f\u200b]/;
const TRAILING_SPACE = /[ \t\r\n\f\u200b]$/;
const HAS_WORD = /[^ \t\r\n\f\u200b]/;

/** Longest input handled here; html-to-text truncates past 16 MiB, and long content is rare. */
const MAX_LENGTH = 100_000;

/** html-to-text's block (its BlockStackItem with an unbounded InlineTextBuilder: no word wrap). */
class Block {
  raw = '';
  lines: string[][] = [];
  words: string[] = [];
  stashedSpace = false;
  stashedLineBreaks = 0;
  constructor(public leadingLineBreaks: number) {}

  startNewLine(n = 1): void {
    this.lines.push(this.words);
    for (let i = 1; i < n; i++) this.lines.push([]);
    this.words = [];
  }

  text(): string {
    if (this.lines.length === 0 && this.words.length === 0) return this.raw;
    let inline = '';
    for (const line of this.lines) inline += `${line.join(' ')}\n`;
    return this.raw + inline + this.words.join(' ');
  }

  /** `addInline`: a text node. */
  addInline(text: string): void {
    if (text.length === 0) return;
    if (this.stashedLineBreaks) {
      if (!HAS_WORD.test(text)) return;
      this.startNewLine(this.stashedLineBreaks);
    }
    // WhitespaceProcessor.shrinkWrapAdd without wrapping.
    const previouslyStashedSpace = this.stashedSpace;
    let first = true;
    WORD.lastIndex = 0;
    for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
      const word = match[0];
      if (first && !previouslyStashedSpace && !LEADING_SPACE.test(text)) {
        const last = this.words.pop();
        this.words.push(last ? last + word : word);
      } else {
        this.words.push(word);
      }
      first = false;
    }
    this.stashedSpace = (previouslyStashedSpace && first) || TRAILING_SPACE.test(text);
    this.stashedLineBreaks = 0;
  }

  /** `addText`: a closed child block's text. */
  addBlock(text: string, leadingLineBreaks: number, trailingLineBreaks: number): void {
    const parentText = this.text();
    const lineBreaks = Math.max(this.stashedLineBreaks, leadingLineBreaks);
    this.lines = [];
    this.words = [];
    if (parentText) {
      this.raw = parentText + '\n'.repeat(lineBreaks) + text;
    } else {
      this.raw = text;
      this.leadingLineBreaks = lineBreaks;
    }
    this.stashedLineBreaks = trailingLineBreaks;
  }
}

/** The text html-to-text would give for `html`, or null when `html` is outside the subset. */
export function simpleHtmlToText(html: string): string | null {
  if (html.length > MAX_LENGTH) return null;
  const root = new Block(1);
  let paragraph: Block | null = null;
  const open: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const token = TOKEN.exec(html);
    if (!token) return null;
    const [whole, closing, tag, selfClosing] = token;
    const block = paragraph ?? root;
    if (tag === undefined) {
      if (!SIMPLE_TEXT.test(whole)) return null;
      block.addInline(whole.includes('&') ? whole.replace(ENTITY, (entity) => ENTITIES[entity]!) : whole);
    } else if (tag === 'br') {
      if (closing) return null;
      block.startNewLine();
    } else if (selfClosing) {
      return null;
    } else if (tag === 'p') {
      // Paragraphs only at the top level, outside any inline tag: htmlparser2 closes tags implicitly around nested ones.
      if (open.length > 0) return null;
      if (!closing) {
        if (paragraph) return null;
        paragraph = new Block(2);
      } else {
        if (!paragraph) return null;
        root.addBlock(paragraph.text(), paragraph.leadingLineBreaks, Math.max(paragraph.stashedLineBreaks, 2));
        paragraph = null;
      }
    } else if (INLINE_TAGS.has(tag)) {
      if (!closing) open.push(tag);
      else if (open.pop() !== tag) return null;
    } else {
      return null;
    }
  }
  if (paragraph || open.length > 0) return null;
  return root.text();
}
