import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_MS, launchChromium } from '../helpers/browser.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The web app's post titles (`plainText`, one pass over the stored HTML, no document per post)
 * against what Chromium's own parser makes of the same HTML: the text of an inert document, with
 * a space at each block's edges, without comments, scripts and styles, whitespace collapsed.
 */
const CASES = [
  '<p>Launch &lt;img src=x onerror="window.injected=1" id="injected-img"&gt; day &amp; more</p>',
  '<p>One</p><p>Two<br>three</p>',
  'plain text, no tags',
  'a < b and c > d, 1<2',
  '<p>Caf&eacute; &hellip; &copy; &euro; &#233; &#xe9; &#X1F600; &nbsp;x&nbsp;</p>',
  '<p>&unknownname; &amp &lt</p>',
  '<a href="https://example.test/?a=1&amp;b=2" title="x > y">link</a> after',
  "<span data-x='it\"s > fine'>quoted</span>",
  '<p>before<!-- a <b>comment</b> -->after</p>',
  '<p>a<script>var x = "<p>no</p>";</script>b<style>p { color: red }</style>c</p>',
  '<ul><li>one</li><li>two</li></ul><ol><li>three</li></ol>',
  '<h1>Title</h1><blockquote>quote</blockquote><div>div</div>',
  '<p><strong>bold</strong><em>em</em><u>u</u></p>',
  '<!doctype html><p>doc</p>',
  '<p>unclosed <b>bold',
  '<p>tag at the end <',
  '<p>  spaces\n\tand\nnewlines  </p>',
  '',
  '<p></p>',
  '<img src=x alt="not text">',
  '<P>Upper</P><BR/>Case',
];

let browser: Browser;
let bundle: string;

beforeAll(async () => {
  browser = await launchChromium();
  const result = await build({
    entryPoints: [path.join(import.meta.dirname, '../../src/app/text.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    globalName: 'heraldText',
    platform: 'browser',
    logLevel: 'silent',
  });
  bundle = result.outputFiles[0]!.text;
});

afterAll(async () => {
  await browser?.close();
});

describe('a post’s text for the calendar', () => {
  it('is what the browser’s parser reads in the HTML, markup as text, nothing inserted', async () => {
    const page = await browser.newPage();
    await page.goto('about:blank');
    await page.addScriptTag({ content: bundle });
    const results = (await page.evaluate(`(() => {
      const BLOCKS = new Set(['P','BR','DIV','LI','UL','OL','H1','H2','H3','H4','H5','H6','BLOCKQUOTE','PRE','HR','TR','TD','TH']);
      const SKIPPED = new Set(['SCRIPT','STYLE','TEMPLATE','NOSCRIPT']);
      const reference = (html) => {
        let text = '';
        const walk = (node) => {
          for (const child of node.childNodes) {
            if (child.nodeType === Node.TEXT_NODE) text += child.data;
            else if (child.nodeType === Node.ELEMENT_NODE && !SKIPPED.has(child.tagName)) {
              const block = BLOCKS.has(child.tagName);
              if (block) text += ' ';
              walk(child);
              if (block) text += ' ';
            }
          }
        };
        walk(new DOMParser().parseFromString(html, 'text/html').body);
        return text.replace(/\\s+/g, ' ').trim();
      };
      return ${JSON.stringify(CASES)}.map((html) => ({ html, got: heraldText.plainText(html), want: reference(html) }));
    })()`)) as Array<{ html: string; got: string; want: string }>;
    for (const { html, got, want } of results) expect(got, html).toBe(want);
    expect(results[0]!.got).toBe('Launch <img src=x onerror="window.injected=1" id="injected-img"> day & more');
    expect(await page.evaluate('document.querySelectorAll("img").length')).toBe(0);
    expect(await page.evaluate('window.injected')).toBeUndefined();
    await page.close();
  });
});
