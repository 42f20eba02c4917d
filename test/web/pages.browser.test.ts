import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium, recordProblems } from '../helpers/browser.ts';
import { processBudget } from '../helpers/process.ts';
import { createPerson } from '../oauth/helpers.ts';

/**
 * Every kind of server-rendered page in real headless Chromium (Debian's `chromium`) against the
 * real server on loopback, at a phone's (390 px) and a desktop's (1,440 px) width: nothing sticks
 * out, and the screenshots (test-artifacts/pages/) show one look.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/pages/', import.meta.url));
const WIDTHS = [390, 1440];

let t: TestApp;
let origin: string;
let browser: Browser;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp({ env: { BASE_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
}, processBudget(1, 30_000));

afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

/** Opens `url` at each width (signed in with `session` if given), saves a screenshot, and returns what the page shows of the shell. */
async function visit(name: string, url: string, session?: string) {
  const seen: Array<{ width: number; scroll: number; client: number; brand: string | null; stylesheets: number }> = [];
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, ...(width < 500 && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }) });
    if (session) await context.addCookies([{ name: 'herald_session', value: session, url: origin }]);
    const page: Page = recordProblems(await context.newPage(), { pageErrors, cspViolations });
    await page.goto(`${origin}${url}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    const shell = (await page.evaluate(`({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      brand: document.querySelector('header.top .brand')?.textContent ?? null,
      stylesheets: document.styleSheets.length,
    })`)) as Omit<(typeof seen)[number], 'width'>;
    seen.push({ width, ...shell });
    await context.close();
  }
  return seen;
}

describe('the pages in a browser', () => {
  it('fit a phone and a desktop, each with the one header and stylesheet', async () => {
    const tenant = await createTenant(t);
    const link = (await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key })).json() as { url: string };
    const person = await createPerson(t, 'owner');
    await t.services.developerKeys.create({ userId: person.userId, workspaceId: person.workspaceId, role: 'owner' }, { kind: 'rest', name: 'Publishing script', scopes: ['posts:read'], channelIds: [] });
    const pages: Array<[string, string, string?]> = [
      ['sign-in', '/account/sign-in'],
      ['keys', '/account/keys', person.sessionToken],
      ['members', '/account/members', person.sessionToken],
      ['apps', '/account/apps', person.sessionToken],
      ['developer-apps', '/account/developer-apps', person.sessionToken],
      ['device', '/oauth/device', person.sessionToken],
      ['upload', new URL(link.url).pathname],
      ['upload-closed', `/u/${'x'.repeat(43)}`],
      ['developers', '/developers'],
    ];
    for (const [name, url, session] of pages) {
      for (const seen of await visit(name, url, session)) {
        expect(seen.scroll, `${name} at ${seen.width} px`).toBeLessThanOrEqual(seen.client);
        expect({ name, brand: seen.brand, stylesheets: seen.stylesheets }).toEqual({ name, brand: 'Herald', stylesheets: 1 });
      }
    }
  });
});
