/**
 * Grapheme clusters (what a person sees as one character) of long texts, in time proportional to
 * the text. `Intl.Segmenter` walks one long string in time that grows with the square of its
 * length (20 s for 80,000 characters in Node 20), so the text is segmented a window of about
 * `WINDOW` code units at a time. Each window starts at a cluster boundary; its clusters are kept
 * but the last, which the window's end may have cut short, and the next window starts where that
 * one began. A boundary depends only on the text before it and the one character after it
 * (Unicode's UAX #29 rules), and a window never ends inside a surrogate pair, so every cluster kept is the one the whole text has. A cluster
 * longer than the window widens it.
 */
const WINDOW = 1000;

let segmenter: Intl.Segmenter | undefined;

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;

/** The text's grapheme clusters, in order. */
export function* graphemes(text: string): Generator<string> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let start = 0;
  let window = WINDOW;
  while (start < text.length) {
    let end = Math.min(text.length, start + window);
    // A window ends between code points: half a surrogate pair would be another character.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    const piece = text.slice(start, end);
    if (end === text.length) {
      for (const { segment } of segmenter.segment(piece)) yield segment;
      return;
    }
    let last: { segment: string; index: number } | null = null;
    for (const current of segmenter.segment(piece)) {
      if (last) yield last.segment;
      last = current;
    }
    if (last!.index === 0) {
      // One cluster fills the whole window: look further.
      window *= 2;
      continue;
    }
    start += last!.index;
    window = WINDOW;
  }
}

/** How many grapheme clusters the text has. */
export function countGraphemes(text: string): number {
  let n = 0;
  for (const _ of graphemes(text)) n++;
  return n;
}
