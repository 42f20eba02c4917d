// The Bluesky provider's rules that need no server: text conversion and counting, validate(),
// the record key, the configuration and settings schemas, and rate-limit headers.
import { describe, expect, it } from 'vitest';
import { blueskyProvider } from '../../../src/providers/bluesky/bluesky.provider.ts';
import { retryAfterMs } from '../../../src/providers/bluesky/bluesky.client.ts';
import { recordKeyFor, TID_PATTERN } from '../../../src/providers/bluesky/record-key.ts';
import type { PublishMedia } from '../../../src/providers/provider.ts';
import { NO_PLATFORM_APPS } from '../../helpers/providers.ts';

type Media = Omit<PublishMedia, 'read'>;
const image = (over: Partial<Media> = {}): Media => ({
  id: 'm1',
  url: 'https://media.test/m1.png',
  name: 'm1.png',
  mimeType: 'image/png',
  size: 1000,
  width: 10,
  height: 10,
  ...over,
});
const validate = (text: string, media: Media[] = [], settings: Record<string, unknown> = {}, part = 0) =>
  blueskyProvider.validate({ text, media, settings, part, config: {}, platformApps: NO_PLATFORM_APPS });

describe('toText', () => {
  const cases: Array<[string, string, string]> = [
    [
      'paragraphs become blank-line separated, emphasis is dropped',
      '<p>Hello <strong>world</strong> &amp; <em>friends</em></p><p>Second</p>',
      'Hello world & friends\n\nSecond',
    ],
    ['<br> is a line break', '<p>one<br>two<br/>three</p>', 'one\ntwo\nthree'],
    [
      'a link whose text is its URL is the URL once',
      '<p>See <a href="https://example.com/a">https://example.com/a</a></p>',
      'See https://example.com/a',
    ],
    [
      'a link whose text is the URL without scheme is the full URL',
      '<p>See <a href="https://example.com/a/">example.com/a</a>.</p>',
      'See https://example.com/a/.',
    ],
    [
      'a link with other text keeps the text and adds the URL',
      '<p>Read <a href="https://example.com/docs?x=1&amp;y=2">the docs</a> now</p>',
      'Read the docs https://example.com/docs?x=1&y=2 now',
    ],
    ['a mailto link keeps its text', '<p>Write <a href="mailto:ana@acme.test">to Ana</a></p>', 'Write to Ana'],
    ['unordered lists are bullets', '<ul><li>one</li><li>two</li></ul><p>after</p>', '• one\n• two\n\nafter'],
    ['ordered lists are numbered from the margin', '<ol><li>one</li><li>two</li></ol>', '1. one\n2. two'],
    ['headings keep their case', '<h2>Big news</h2><p>body</p>', 'Big news\n\nbody'],
    ['empty paragraphs do not stack blank lines', '<p>a</p><p></p><p></p><p>b</p>', 'a\n\nb'],
    ['whitespace in the source collapses; nothing is wrapped', `<p>${'word '.repeat(40)}\n  end</p>`, `${'word '.repeat(40)}end`],
    [
      'non-ASCII text passes through',
      '<p>Café ☕ <a href="https://exemple.fr/été">https://exemple.fr/été</a></p>',
      'Café ☕ https://exemple.fr/été',
    ],
  ];
  it.each(cases)('%s', (_name, html, text) => {
    expect(blueskyProvider.toText(html)).toBe(text);
  });
});

describe('countText (graphemes)', () => {
  it.each([
    ['ASCII', 'hello', 5],
    ['a family emoji (ZWJ sequence of 7 code points)', '👨‍👩‍👧‍👦', 1],
    ['a flag (two regional indicators)', '🇫🇷🇯🇵', 2],
    ['skin tone modifiers', '👋🏽👍🏿', 2],
    ['combining marks', 'e\u0301a\u0308o\u0302\u0323', 3],
    ['Hangul jamo', '\u1100\u1161\u11A8', 1],
    ['CJK', '日本語', 3],
  ])('%s', (_name, text, expected) => {
    expect(blueskyProvider.countText(text)).toBe(expected);
  });

  it("declares Bluesky's limit in graphemes", () => {
    expect(blueskyProvider.textLimit).toEqual({ max: 300, unit: 'graphemes' });
  });
});

describe('validate', () => {
  it('accepts 300 graphemes that are many more code units', () => {
    expect(validate('👩🏽‍💻'.repeat(100) + 'x'.repeat(200))).toEqual([]);
  });

  it("refuses 301 graphemes, naming the part's content", () => {
    expect(validate('a'.repeat(301), [], {}, 2)).toEqual([
      { field: 'value[2].content', reason: expect.stringMatching(/301 graphemes.*300/) },
    ]);
  });

  it('refuses text within 300 graphemes but over 3000 UTF-8 bytes', () => {
    const text = '👨‍👩‍👧‍👦'.repeat(150); // 150 graphemes, 3750 bytes
    expect(validate(text)).toEqual([{ field: 'value[0].content', reason: expect.stringMatching(/3750 bytes/) }]);
  });

  it('refuses an empty post without media, and accepts media alone', () => {
    expect(validate('  \n')).toEqual([{ field: 'value[0].content', reason: expect.stringMatching(/text or at least one image/) }]);
    expect(validate('', [image()])).toEqual([]);
  });

  it('refuses a fifth image', () => {
    const media = ['a', 'b', 'c', 'd', 'e'].map((id) => image({ id }));
    expect(validate('hi', media)).toEqual([{ field: 'value[0].image', reason: expect.stringMatching(/5 images.*at most 4/) }]);
  });

  it('refuses a wrong type or an oversized image, naming the image', () => {
    const media = [
      image(),
      image({ id: 'v', name: 'clip.mp4', mimeType: 'video/mp4' }),
      image({ id: 'big', name: 'big.jpg', mimeType: 'image/jpeg', size: 1_000_001 }),
    ];
    expect(validate('hi', media, {}, 1)).toEqual([
      { field: 'value[1].image[1]', reason: expect.stringMatching(/clip\.mp4 is video\/mp4/) },
      { field: 'value[1].image[2]', reason: expect.stringMatching(/1000001 bytes/) },
    ]);
    expect(validate('hi', [image({ size: 1_000_000, mimeType: 'image/webp' })])).toEqual([]);
  });

  it('reports invalid settings under settings.*', () => {
    expect(validate('hi', [], { langs: ['en', 'not a tag'] })).toEqual([
      { field: 'settings.langs.1', reason: expect.stringMatching(/BCP-47/) },
    ]);
    expect(validate('hi', [], { langs: ['en', 'fr', 'de', 'pt-BR'] })).toEqual([{ field: 'settings.langs', reason: expect.any(String) }]);
    expect(validate('hi', [], { contentWarning: 'spoiler' })).toEqual([{ field: 'settings.contentWarning', reason: expect.any(String) }]);
    expect(validate('hi', [], { __type: 'bluesky', langs: ['pt-BR'], alt: { m1: 'A cat' }, contentWarning: 'graphic-media' })).toEqual([]);
  });

  it('states the media rules', () => {
    expect(blueskyProvider.mediaRules).toEqual({
      maxItems: 4,
      mimeTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif'],
      maxBytes: 1_000_000,
      required: false,
    });
  });
});

describe('record key', () => {
  const key = (postId: string, part: number, text = 'Hello', media: Array<{ id: string }> = []) =>
    recordKeyFor({ postId, part, text, media });

  it('is a valid TID, the same for the same post, part and content, different otherwise (an edit gets a key of its own)', () => {
    const a = key('post-1', 0);
    expect(a).toMatch(TID_PATTERN);
    expect(key('post-1', 0)).toBe(a);
    const others = [
      key('post-1', 1),
      key('post-2', 0),
      key('post-10', 0),
      key('post-1', 0, 'Hello!'),
      key('post-1', 0, 'Hello', [{ id: 'm1' }]),
    ];
    expect(new Set([a, ...others]).size).toBe(6);
    for (const key of others) expect(key).toMatch(TID_PATTERN);
  });

  it('implies a time in the past for every post', () => {
    const S32 = '234567abcdefghijklmnopqrstuvwxyz';
    for (let i = 0; i < 200; i++) {
      const rkey = key(`p${i}`, i % 5);
      const micros = [...rkey.slice(0, 11)].reduce((n, c) => n * 32n + BigInt(S32.indexOf(c)), 0n);
      expect(micros).toBeLessThan(BigInt(Date.now()) * 1000n);
    }
  });
});

describe('configSchema', () => {
  const parse = (config: unknown) => blueskyProvider.configSchema.safeParse(config);

  it('accepts a handle or DID with an app password, and defaults the service to bsky.social', () => {
    expect(parse({ identifier: 'ana.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' })).toMatchObject({
      success: true,
      data: { service: 'https://bsky.social' },
    });
    expect(parse({ service: 'https://pds.example.org', identifier: 'did:plc:abc123', appPassword: 'abcd-efgh-ijkl-mnop' }).success).toBe(
      true,
    );
  });

  it('refuses the account password, a plain-http remote service and a malformed identifier', () => {
    expect(parse({ identifier: 'ana.bsky.social', appPassword: 'correct horse battery staple' }).success).toBe(false);
    expect(parse({ service: 'http://pds.example.org', identifier: 'ana.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' }).success).toBe(
      false,
    );
    expect(parse({ identifier: 'not a handle', appPassword: 'abcd-efgh-ijkl-mnop' }).success).toBe(false);
  });

  it('tells people how to connect', () => {
    expect(blueskyProvider.connectHelp).toMatch(/App passwords/);
    expect(blueskyProvider.connectHelp).toMatch(/--provider bluesky/);
    expect(blueskyProvider.connectHelp).toMatch(/"appPassword"/);
  });
});

describe('rate-limit headers', () => {
  const now = 1_800_000_000_000;
  it('reads RateLimit-Reset as epoch seconds', () => {
    expect(retryAfterMs({ 'ratelimit-reset': String(now / 1000 + 30) }, now)).toBe(30_000);
    expect(retryAfterMs({ 'ratelimit-reset': String(now / 1000 - 5) }, now)).toBe(0);
  });
  it('reads a small RateLimit-Reset as seconds to wait', () => {
    expect(retryAfterMs({ 'ratelimit-reset': '12' }, now)).toBe(12_000);
  });
  it('falls back to Retry-After, in seconds or as a date', () => {
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 9000).toUTCString() }, now)).toBe(9000);
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});
