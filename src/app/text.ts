/** The post's text without markup, for a title: parsed by the browser as an inert document, never inserted as HTML. */
export function plainText(html: string): string {
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Stored HTML as the plain text the composer edits: paragraphs become blank lines, `<br>` a line
 * break. Read from an inert document; the API turns text without tags back into the same HTML.
 */
export function editableText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.body.querySelectorAll('br').forEach((br) => br.replaceWith('\n'));
  const blocks = [...doc.body.querySelectorAll('p, li, h1, h2, h3, blockquote')];
  if (blocks.length === 0) return doc.body.textContent ?? '';
  return blocks
    .filter((block) => !block.querySelector('p, li'))
    .map((block) => block.textContent ?? '')
    .join('\n\n');
}
