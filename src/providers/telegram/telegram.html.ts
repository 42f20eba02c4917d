/** Telegram's HTML parse mode accepts these tags (from the stored subset); the others are unwrapped. */
const INLINE: Record<string, string> = {
  strong: 'b',
  b: 'b',
  em: 'i',
  i: 'i',
  u: 'u',
  s: 's',
  del: 's',
  code: 'code',
  pre: 'pre',
  blockquote: 'blockquote',
};

/**
 * Converts a post's stored (sanitised) HTML to Telegram's HTML: paragraphs and line breaks
 * become newlines, headings bold, list items bullets or numbers, links keep only `href`.
 */
export function toTelegramHtml(html: string): string {
  const lists: Array<{ ordered: boolean; n: number }> = [];
  const out = html.replace(/<(\/?)([a-z][a-z0-9]*)([^>]*)>/gi, (_m, close: string, rawTag: string, attrs: string) => {
    const tag = rawTag.toLowerCase();
    const closing = close === '/';
    if (tag === 'br') return '\n';
    if (tag === 'p') return closing ? '\n\n' : '';
    if (tag === 'h1' || tag === 'h2' || tag === 'h3') return closing ? '</b>\n\n' : '<b>';
    if (tag === 'ul' || tag === 'ol') {
      if (closing) lists.pop();
      else lists.push({ ordered: tag === 'ol', n: 0 });
      return closing ? '\n' : '';
    }
    if (tag === 'li') {
      if (closing) return '\n';
      const list = lists.at(-1);
      if (!list) return '• ';
      list.n += 1;
      return `${'  '.repeat(lists.length - 1)}${list.ordered ? `${list.n}. ` : '• '}`;
    }
    if (tag === 'a') {
      if (closing) return '</a>';
      const href = /\shref="([^"]*)"/i.exec(attrs)?.[1];
      return href ? `<a href="${href}">` : '<a>';
    }
    const mapped = INLINE[tag];
    if (mapped) return closing ? `</${mapped}>` : `<${mapped}>`;
    return '';
  });
  return out
    .replace(/<a>([^<]*)<\/a>/g, '$1')
    .replace(/\s+<\/(blockquote|b)>/g, '</$1>')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** The text Telegram shows for HTML: tags gone, entities decoded. */
export function telegramVisibleText(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot);/gi, (_m, entity: string) => {
    if (entity[0] === '#')
      return String.fromCodePoint(entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    return ENTITIES[entity.toLowerCase()] ?? '';
  });
}

/** Telegram counts message and caption length in UTF-16 code units, after parsing entities. */
export function countTelegramText(html: string): number {
  return telegramVisibleText(html).length;
}
