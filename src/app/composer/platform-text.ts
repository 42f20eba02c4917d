/** The texts last converted, by their HTML. */
const recent = new Map<string, string>();

/**
 * The stored HTML as the plain text most platforms take, the way the server writes it for them
 * (`htmlToPlainText` in src/content/html.ts, html-to-text with Herald's options): paragraphs and
 * headings separated by a blank line, `<br>` a line break, emphasis dropped, list items as
 * "- item" (numbered for `<ol>`), a quote's lines after "> ", a link as its text and then its
 * address in brackets (the address alone when the text is the address). The HTML is read from an
 * inert document (`DOMParser`), never inserted, and the result is shown as text.
 */
export function plainTextOf(html: string): string {
  if (!html) return '';
  let text = recent.get(html);
  if (text === undefined) {
    const body = new DOMParser().parseFromString(html, 'text/html').body;
    text = joinBlocks(blocksOf(body))
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    // A render reads each text several times (counter, preview, readiness): the last few are kept.
    if (recent.size >= 32) recent.clear();
    recent.set(html, text);
  }
  return text;
}

/** A block of text and the line breaks it asks for before and after it (the larger of two neighbours' wins). */
type Block = { text: string; lead: number; trail: number };

const BLOCKS: Record<string, number> = { p: 2, h1: 2, h2: 2, h3: 2, blockquote: 2, pre: 2, ul: 1, ol: 1 };
// html-to-text's whitespace (a no-break space is not one of them).
const SPACES = /[ \t\r\n\f\u200b]+/g;

function joinBlocks(blocks: Block[]): string {
  let out = '';
  let trail = 0;
  for (const block of blocks) {
    if (!block.text) continue;
    out += out ? '\n'.repeat(Math.max(trail, block.lead)) + block.text : block.text;
    trail = block.trail;
  }
  return out;
}

/** The blocks of `parent`'s children: runs of inline content become one block each. */
function blocksOf(parent: Node): Block[] {
  const blocks: Block[] = [];
  let inline: Node[] = [];
  const flush = () => {
    const text = inlineText(inline);
    if (text) blocks.push({ text, lead: 1, trail: 1 });
    inline = [];
  };
  for (const node of parent.childNodes) {
    const tag = node.nodeType === Node.ELEMENT_NODE ? (node as Element).tagName.toLowerCase() : '';
    if (!(tag in BLOCKS)) {
      inline.push(node);
      continue;
    }
    flush();
    const breaks = BLOCKS[tag]!;
    blocks.push({ text: blockText(node as Element, tag), lead: breaks, trail: breaks });
  }
  flush();
  return blocks;
}

function blockText(element: Element, tag: string): string {
  if (tag === 'pre') return (element.textContent ?? '').replace(/^\n/, '').replace(/\s+$/, '');
  if (tag === 'ul' || tag === 'ol') return listText(element, tag === 'ol');
  if (tag === 'blockquote') {
    const lines = joinBlocks(blocksOf(element))
      .replace(/\n{3,}/g, '\n\n')
      .split('\n');
    return lines.map((line) => `> ${line}`).join('\n');
  }
  return inlineText([...element.childNodes]);
}

/** A list's items, each after its prefix ("- ", or " 1. " padded to the widest number), its other lines indented to match. */
function listText(list: Element, numbered: boolean): string {
  const items = [...list.children].filter((child) => child.tagName.toLowerCase() === 'li');
  const start = Number(list.getAttribute('start') ?? '1') || 1;
  const prefixes = items.map((_, i) => (numbered ? ` ${start + i}. ` : '- '));
  const width = Math.max(0, ...prefixes.map((p) => p.length));
  return items
    .map((item, i) => {
      const lines = joinBlocks(blocksOf(item))
        .replace(/\n{3,}/g, '\n\n')
        .split('\n');
      const prefix = prefixes[i]!.padStart(width);
      return lines.map((line, n) => (n === 0 ? prefix : ' '.repeat(width)) + line).join('\n');
    })
    .join('\n');
}

/** Inline content as text: whitespace collapsed to one space, `<br>` a line break, each line trimmed. */
function inlineText(nodes: Node[]): string {
  let raw = '';
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      raw += (node.textContent ?? '').replace(SPACES, ' ');
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const element = node as Element;
    const tag = element.tagName.toLowerCase();
    if (tag === 'br') {
      raw += '\n';
      return;
    }
    if (tag === 'a') {
      raw += linkText(element);
      return;
    }
    for (const child of element.childNodes) walk(child);
  };
  for (const node of nodes) walk(node);
  return raw
    .split('\n')
    .map((line) => line.replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/** A link as html-to-text writes it with `hideLinkHrefIfSameAsText` and round brackets. */
function linkText(link: Element): string {
  const text = inlineText([...link.childNodes]);
  const href = (link.getAttribute('href') ?? '').replace(/^mailto:/i, '');
  if (!href || href === text) return text || href;
  return text ? `${text} (${href})` : href;
}
