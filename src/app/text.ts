/** The post's text without markup, for a title: parsed by the browser as an inert document, never inserted as HTML. */
export function plainText(html: string): string {
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  return text.replace(/\s+/g, ' ').trim();
}
