import { describe, expect, it } from 'vitest';
import { countGraphemes, graphemes } from '../../src/content/graphemes.ts';

/** The clusters as `Intl.Segmenter` finds them in the whole text at once. */
const whole = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

describe('grapheme clusters of long texts, segmented in pieces', () => {
  const samples: Record<string, string> = {
    'ASCII prose': 'The quick brown fox jumps over the lazy dog. '.repeat(200),
    'combining marks after ASCII letters': 'cafe\u0301 e\u0301te\u0301 '.repeat(400),
    'CR LF line ends': 'line one\r\nline two\r\n'.repeat(300),
    'emoji with joiners, skin tones and flags': 'family 👨‍👩‍👧‍👦 wave 👋🏽 flag 🇫🇷🇩🇪 '.repeat(150),
    'Hangul syllables and jamo': '한국어 텍스트 \u1100\u1161\u11A8 '.repeat(300),
    'Devanagari conjuncts': 'नमस्ते क्षत्रिय '.repeat(300),
    'a long run without ASCII': 'é'.normalize('NFD').repeat(3000) + '日本語'.repeat(1000) + ' end',
    'short text': 'a😀b',
    'empty text': '',
  };
  for (const [name, text] of Object.entries(samples)) {
    it(`finds the same clusters as one pass over the whole text: ${name}`, () => {
      const expected = whole(text);
      expect([...graphemes(text)]).toEqual(expected);
      expect(countGraphemes(text)).toBe(expected.length);
    });
  }

  it('never cuts between CR and LF, nor before a combining mark, at a piece boundary', () => {
    // Place the pair across every offset near the first piece's end.
    for (let pad = 990; pad <= 1001; pad++) {
      const crlf = 'x'.repeat(pad) + '\r\n' + 'y'.repeat(50);
      expect(countGraphemes(crlf)).toBe(whole(crlf).length);
      const mark = 'x'.repeat(pad) + 'e\u0301' + 'y'.repeat(50);
      expect(countGraphemes(mark)).toBe(whole(mark).length);
    }
  });
});
