import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { webhookTenant } from '../helpers/posts.ts';
import { servedToChromium, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { processBudget } from '../helpers/process.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The developers' page in real headless Chromium (Debian's `chromium`) against the real server
 * on loopback, at a phone's width. Screenshots go to test-artifacts/developers/.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/developers/', import.meta.url));

let t: TestApp;
let origin: string;
let browser: Browser;

beforeAll(
  async () => {
    ({ t, origin, browser } = await servedToChromium(ARTIFACTS));
  },
  processBudget(1, 30_000),
);

afterAll(async () => {
  await browser?.close();
});

describe('GET /developers', () => {
  it('shows how to create a post, and the example works as written', async () => {
    const html = (await t.request({ method: 'GET', url: '/developers' })).body;
    const page = await browser.newPage();
    await page.setContent(html);
    const blocks = await page.locator('pre').allInnerTexts();
    const example = blocks.find((b) => b.includes('curl -X POST'));
    expect(example, blocks.join('\n---\n')).toBeDefined();
    expect(example).toContain(`${origin}/public/v1/posts`);
    expect(example).toMatch(/-H "Content-Type: application\/json"/);
    await page.close();

    // The body in the example, with a real channel id, is accepted by the API.
    const body = /-d '([\s\S]+)'/.exec(example!)![1]!;
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
      payload: body.replace('<channel id>', tenant.channelId),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([{ postId: expect.any(String), integration: tenant.channelId, group: expect.any(String) }]);
  });

  it('fits a phone: nothing is wider than the window, and no code block hides part of its text', async () => {
    const context = await browser.newContext({
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const page = await context.newPage();
    await page.goto(`${origin}/developers`);
    // Runs in the page (a string, as the test's TypeScript has no DOM types).
    const layout = (await page.evaluate(`({
      page: { scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth },
      blocks: [...document.querySelectorAll('pre, code, table')].map((el) => ({
        text: (el.textContent ?? '').slice(0, 40),
        right: el.getBoundingClientRect().right,
        hidden: el.scrollWidth - el.clientWidth,
      })),
    })`)) as { page: { scrollWidth: number; clientWidth: number }; blocks: Array<{ text: string; right: number; hidden: number }> };
    await page.screenshot({ path: path.join(ARTIFACTS, 'phone.png'), fullPage: true });
    await context.close();
    expect(layout.page.scrollWidth).toBeLessThanOrEqual(layout.page.clientWidth);
    expect(layout.blocks.filter((b) => b.right > 360 || b.hidden > 0)).toEqual([]);
  });
});
