import { countGraphemes } from '../../content/graphemes.ts';

/** Mastodon counts every URL as this many characters, whatever its length (unless the instance says otherwise). */
export const URL_LENGTH = 23;

const URL_RE = /\bhttps?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'"]/giu;
const MENTION_RE = /(^|[^\p{L}\p{N}_/])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)@[a-z0-9.-]+\.[a-z]{2,}/giu;

/**
 * Counts a status as Mastodon does: graphemes, with each URL as `urlLength` characters and a
 * remote mention (`@name@domain`) as its local part only.
 */
export function countMastodonText(text: string, urlLength = URL_LENGTH): number {
  const normalized = text
    .replace(URL_RE, 'x'.repeat(urlLength))
    .replace(MENTION_RE, (_m, before: string, name: string) => `${before}@${name}`);
  return countGraphemes(normalized);
}
