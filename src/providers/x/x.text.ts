import { graphemes } from '../../content/graphemes.ts';

/**
 * Counts a post as X does (its published text-counting configuration, version 3): every URL
 * weighs 23, an emoji weighs 2, code points in the ranges below weigh 1 and all others
 * (CJK, most other scripts' ideographs, symbols) weigh 2. The limit is 280 of these units.
 */
export const X_URL_WEIGHT = 23;
const LIGHT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x10ff],
  [0x2000, 0x200d],
  [0x2010, 0x201f],
  [0x2032, 0x2037],
];

const URL_RE = /\b(?:https?:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?(?:\/[^\s<>"]*[^\s<>".,;:!?)\]'"])?/giu;
/** Top-level domains common enough that X links a bare name ending in them (`example.com`); X knows them all, Herald the usual ones. */
const COMMON_TLDS = new Set(
  'com net org io co dev app ai me info biz edu gov us uk de fr es it nl eu ca au jp cn in br ru ch se no dk fi pl be at ly gl gg tv xyz news blog shop site online tech cloud page link live'.split(
    ' ',
  ),
);

const EMOJI_RE = /\p{Extended_Pictographic}/u;

function codePointWeight(cp: number): number {
  return LIGHT_RANGES.some(([from, to]) => cp >= from && cp <= to) ? 1 : 2;
}

export function countXText(text: string): number {
  let total = 0;
  const rest = text.normalize('NFC').replace(URL_RE, (url) => {
    // A bare name counts as a link when it has a path, or ends in a top-level domain X links.
    const host = url.replace(/^https?:\/\//i, '').split(/[/:]/)[0]!;
    if (/^https?:\/\//i.test(url) || url.includes('/') || COMMON_TLDS.has(host.split('.').pop()!.toLowerCase())) {
      total += X_URL_WEIGHT;
      return '';
    }
    return url;
  });
  for (const segment of graphemes(rest)) {
    if (EMOJI_RE.test(segment)) {
      total += 2;
      continue;
    }
    for (const ch of segment) total += codePointWeight(ch.codePointAt(0)!);
  }
  return total;
}
