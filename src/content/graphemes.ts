/**
 * Grapheme clusters (what a person sees as one character) of long texts, in time proportional to
 * the text: `Intl.Segmenter` walks one long string in time that grows with the square of its
 * length (20 s for 80,000 characters in Node 20), so the text is segmented in pieces of at most
 * `PIECE` code units, cut only where two ASCII characters meet (other than CR LF). Such a place is
 * always a cluster boundary (Unicode's rules join only non-ASCII marks, joiners, Hangul, regional
 * indicators and CR LF), so the clusters, and their count, are those of the whole text. A stretch
 * with no such place (a long run of non-ASCII text) is cut at the next place that has one, or
 * segmented whole.
 */
const PIECE = 1000;

let segmenter: Intl.Segmenter | undefined;

/** Whether the text may be cut before index `i` without splitting a grapheme cluster. */
function boundaryAt(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  const after = text.charCodeAt(i);
  return before < 0x80 && after < 0x80 && !(before === 13 && after === 10);
}

/** The text's grapheme clusters, in order. */
export function* graphemes(text: string): Generator<string> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PIECE);
    if (end < text.length) {
      let cut = end;
      while (cut > start + 1 && !boundaryAt(text, cut)) cut--;
      if (cut > start + 1) end = cut;
      else {
        // No boundary within the piece: the next one after it, wherever it is.
        while (end < text.length && !boundaryAt(text, end)) end++;
      }
    }
    for (const { segment } of segmenter.segment(text.slice(start, end))) yield segment;
    start = end;
  }
}

/** How many grapheme clusters the text has. */
export function countGraphemes(text: string): number {
  let n = 0;
  for (const _ of graphemes(text)) n++;
  return n;
}
