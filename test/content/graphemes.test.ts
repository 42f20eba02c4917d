import { describe, expect, it } from 'vitest';
import { countGraphemes, graphemes } from '../../src/content/graphemes.ts';

/** The clusters as `Intl.Segmenter` finds them in the whole text at once. */
const whole = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);

describe('grapheme clusters of long texts, segmented a window at a time', () => {
  const samples: Record<string, string> = {
    'ASCII prose': 'The quick brown fox jumps over the lazy dog. '.repeat(200),
    'combining marks after ASCII letters': 'cafe\u0301 e\u0301te\u0301 '.repeat(400),
    'CR LF line ends': 'line one\r\nline two\r\n'.repeat(300),
    'emoji with joiners, skin tones and flags': 'family 👨‍👩‍👧‍👦 wave 👋🏽 flag 🇫🇷🇩🇪 '.repeat(150),
    'Hangul syllables and jamo': '한국어 텍스트 \u1100\u1161\u11A8 '.repeat(300),
    'Devanagari conjuncts': 'नमस्ते क्षत्रिय '.repeat(300),
    'a long run without ASCII': 'é'.normalize('NFD').repeat(3000) + '日本語'.repeat(1000) + ' end',
    'Latin letters outside ASCII, without spaces': 'é'.repeat(5000),
    'Korean without spaces, and jamo sequences': '한국어텍스트'.repeat(500) + '\u1100\u1161\u11A8'.repeat(500),
    'Thai with SARA AM': 'น้ำท่วมทำนา'.repeat(400),
    'half-width katakana with sound marks': 'ｶﾞｷﾞｸﾞﾊﾟﾋﾟ'.repeat(400),
    'Devanagari conjunct chains without spaces': 'क्षत्रज्ञश्र'.repeat(400),
    'Arabic with prepended marks and Malayalam dot reph': '\u0600١٢٣ഩ\u0D4Eക'.repeat(500),
    'emoji only': '👨‍👩‍👧‍👦🇫🇷👋🏽'.repeat(500),
    'flags only, an odd one first': '🇫' + '🇫🇷🇩🇪'.repeat(700),
    'conjoining jamo only': '\u1100\u1161\u11A8'.repeat(1500),
    'one cluster longer than a window': 'a' + '\u0301'.repeat(2500) + 'b',
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

  it('never cuts between CR and LF, a surrogate pair, nor before a combining mark, at a window boundary', () => {
    // Place the pair across every offset near the first piece's end.
    for (let pad = 990; pad <= 1001; pad++) {
      const crlf = 'x'.repeat(pad) + '\r\n' + 'y'.repeat(50);
      expect(countGraphemes(crlf)).toBe(whole(crlf).length);
      const mark = 'x'.repeat(pad) + 'e\u0301' + 'y'.repeat(50);
      expect(countGraphemes(mark)).toBe(whole(mark).length);
      const pair = 'x'.repeat(pad) + '😀' + 'y'.repeat(50);
      expect([...graphemes(pair)]).toEqual(whole(pair));
    }
  });
  it('finds the same clusters as one pass in texts mixed at random from the characters the rules treat apart', () => {
    const pieces = [
      'a',
      ' ',
      '\r',
      '\n',
      '\u0301',
      '\u200d',
      '👨',
      '🏽',
      '🇫',
      '🇷',
      '\u1100',
      '\u1161',
      '\u11a8',
      '한',
      'क',
      '्',
      'ष',
      '\u0600',
      'ำ',
      'ﾞ',
      '😀',
      '\ufe0f',
      '日',
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 20; round++) {
      const text = Array.from({ length: 3000 }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      expect([...graphemes(text)]).toEqual(whole(text));
    }
  });
});
