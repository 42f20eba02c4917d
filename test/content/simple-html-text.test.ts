import { describe, expect, it } from 'vitest';
import { htmlToPlainText, htmlToTextConverter, postContentToHtml } from '../../src/content/html.ts';
import { simpleHtmlToText } from '../../src/content/simple-html-text.ts';

/** A small seeded generator (mulberry32), so a failure names a case that can be run again. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  return { next, int, pick };
}

const WORDS = [
  'burst',
  'Hello',
  'x',
  'a.b',
  'naïve',
  '日本語',
  '🎉',
  'e\u0301',
  'x\u00a0y',
  '&amp;',
  '&lt;b&gt;',
  '&quot;q&quot;',
  '&#39;',
  '&apos;',
  '&nbsp;',
  '&amp;lt;',
  '1,2',
  '(c)',
  '—',
];
const SPACES = ['', ' ', '  ', '\t', '\n', '\r\n', '\f', '\u200b', ' \n ', '\u00a0', '\u2003'];
const INLINE = ['strong', 'b', 'em', 'i', 'u', 's', 'del', 'span', 'code'];
const BREAKS = ['<br>', '<br/>', '<br />'];

type Rng = ReturnType<typeof random>;

function text(rng: Rng): string {
  let out = rng.pick(SPACES);
  for (let i = rng.int(4); i >= 0; i--) out += rng.pick(WORDS) + rng.pick(SPACES);
  return out;
}

function inline(rng: Rng, depth: number): string {
  let out = '';
  for (let i = rng.int(5); i >= 0; i--) {
    const choice = rng.int(10);
    if (choice < 5) out += text(rng);
    else if (choice < 7) out += rng.pick(BREAKS);
    else if (depth < 3) {
      const tag = rng.pick(INLINE);
      out += `<${tag}>${rng.int(5) === 0 ? '' : inline(rng, depth + 1)}</${tag}>`;
    }
  }
  return out;
}

/** A document of the subset: paragraphs, line breaks, text and inline tags at the top level. */
function simpleDocument(rng: Rng): string {
  let out = '';
  for (let i = rng.int(5); i >= 0; i--) {
    const choice = rng.int(10);
    if (choice < 6) out += `<p>${rng.int(6) === 0 ? rng.pick(SPACES) : inline(rng, 0)}</p>`;
    else if (choice < 8) out += inline(rng, 0);
    else out += rng.pick(BREAKS) + rng.pick(SPACES);
  }
  return out;
}

/** Things outside the subset, spliced into a document of it. */
const FOREIGN = [
  '<a href="https://example.com">link</a>',
  '<ul><li>one</li><li>two</li></ul>',
  '<ol><li>one</li></ol>',
  '<blockquote>q</blockquote>',
  '<h1>title</h1>',
  '<pre> kept  as is </pre>',
  '<div>d</div>',
  '<p>',
  '</p>',
  '<b>',
  '</i>',
  '<P>',
  '<p class="x">',
  '<span style="x">s</span>',
  '&copy;',
  '&amp',
  '&#128;',
  '&#x27;',
  '&notin;',
  '&unknown;',
  'a < b',
  'a > b',
  '<3',
  '<!-- c -->',
  '</br>',
  '<p/>',
  '\u0000',
  '\u0007',
  '<img src="x">',
  '<hr>',
  '<wbr>',
];

function mutated(rng: Rng): string {
  const doc = simpleDocument(rng);
  const at = rng.int(doc.length + 1);
  return doc.slice(0, at) + rng.pick(FOREIGN) + doc.slice(at);
}

/** html-to-text itself, as htmlToPlainText configures it. */
const reference = (html: string) => htmlToTextConverter()(html);

describe('simple HTML to text', () => {
  it.each([
    ['<p>burst</p>'],
    [''],
    ['plain'],
    ['<p></p>'],
    ['<p> </p>'],
    ['<p>a</p><p>b</p>'],
    ['<p>a</p><p></p><p>b</p>'],
    ['<p>a</p><p><br></p><p>b</p>'],
    ['<p>a<br>b</p>'],
    ['<p>a <br> b</p>'],
    ['<p>a<br><br><br>b</p>'],
    ['<p>  lead and trail  </p>'],
    ['<p>a <b>b</b> c</p>'],
    ['<p>a<b> b</b>c</p>'],
    ['<p>a<b>b </b>c</p>'],
    ['<p><b></b></p>'],
    ['top <em>level</em><p>para</p>after<br>more'],
    ['<br><p>x</p>'],
    ['<p>x</p><br>'],
    ['<p>x</p> <br> y'],
    ['<p>x</p> \n '],
    ['<p>Tom &amp; Jerry &lt;3 &quot;cats&quot; &#39;n&apos; x&nbsp;y</p>'],
    ['<p>&amp;lt;script&amp;gt;</p>'],
    ['<p>zero\u200bwidth and\u00a0nbsp and\u2003em</p>'],
    ['<p>tabs\tand\r\nnewlines\fform</p>'],
    ['<p>one</p>\n<p>two</p>'],
  ])("gives html-to-text's text for %j", (html) => {
    const fast = simpleHtmlToText(html);
    expect(fast).not.toBeNull();
    expect(fast).toBe(reference(html));
  });

  it.each([
    ['<p><a href="https://example.com">x</a></p>'],
    ['<ul><li>x</li></ul>'],
    ['<p>a<p>b</p>'],
    ['<p>a</p></p>'],
    ['<b><p>x</p></b>'],
    ['<p><b>x</p></b>'],
    ['<b>x</i>'],
    ['<p>x'],
    ['a < b'],
    ['a > b'],
    ['&copy;'],
    ['&amp'],
    ['<P>x</P>'],
    ['<p class="c">x</p>'],
    ['<!-- c -->'],
    ['</br>'],
  ])('leaves %j to html-to-text', (html) => {
    expect(simpleHtmlToText(html)).toBeNull();
  });

  it("gives html-to-text's text for generated documents of the subset", () => {
    const rng = random(17);
    for (let i = 0; i < 5_000; i++) {
      const html = simpleDocument(rng);
      const fast = simpleHtmlToText(html);
      if (fast === null || fast !== reference(html)) expect({ html, fast }).toEqual({ html, fast: reference(html) });
    }
  });

  it("either gives html-to-text's text or declines, for documents with something outside the subset", () => {
    const rng = random(42);
    let declined = 0;
    for (let i = 0; i < 5_000; i++) {
      const html = mutated(rng);
      const fast = simpleHtmlToText(html);
      if (fast === null) declined++;
      else if (fast !== reference(html)) expect({ html, fast }).toEqual({ html, fast: reference(html) });
    }
    expect(declined).toBeGreaterThan(3_000);
  });

  it('takes the content stored for plain text and for simple HTML, and htmlToPlainText gives the same text either way', () => {
    const rng = random(7);
    for (let i = 0; i < 1_000; i++) {
      const words: string[] = [];
      for (let n = rng.int(12); n >= 0; n--)
        words.push(
          rng.pick([
            'Hello',
            'world',
            'a&b',
            '<tag>',
            '"q"',
            "it's",
            'x\u00a0y',
            '🎉',
            '\n',
            '\n\n',
            '  ',
            'https://example.com/a?b=c&d=e',
          ]),
        );
      for (const stored of [postContentToHtml(words.join(' ')), postContentToHtml(`<p>${words.join(' ')}</p>`)]) {
        const fast = simpleHtmlToText(stored);
        if (stored.includes('<a ')) continue;
        expect(fast, stored).not.toBeNull();
        expect(htmlToPlainText(stored)).toBe(
          reference(stored)
            .replace(/\n{3,}/g, '\n\n')
            .trim(),
        );
      }
    }
  });
});
