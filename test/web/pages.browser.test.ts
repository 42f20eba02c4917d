import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type TestApp } from '../helpers/app.ts';
import { recordProblems, servedToChromium } from '../helpers/browser.ts';
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

beforeAll(
  async () => {
    ({ t, origin, browser } = await servedToChromium(ARTIFACTS));
  },
  processBudget(1, 30_000),
);

afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

/** Opens `url` at each width (signed in with `session` if given), saves a screenshot, and returns what the page shows of the shell. */
async function visit(name: string, url: string, session?: string) {
  const seen: Array<{ width: number; scroll: number; client: number; brand: string | null; stylesheets: number }> = [];
  for (const width of WIDTHS) {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      ...(width < 500 && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
    });
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

/** Who visits, and where: filled in once the workspace, its key and an upload link exist. */
const visitor = { session: '', uploadPath: '' };

beforeAll(async () => {
  const tenant = await createTenant(t);
  visitor.uploadPath = new URL(
    ((await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key })).json() as { url: string }).url,
  ).pathname;
  const person = await createPerson(t, 'owner');
  await t.services.developerKeys.create(
    { userId: person.userId, workspaceId: person.workspaceId, role: 'owner' },
    { kind: 'rest', name: 'Publishing script', scopes: ['posts:read'], channelIds: [] },
  );
  visitor.session = person.sessionToken;
});

describe('the pages in a browser fit a phone and a desktop, each with the one header and stylesheet', () => {
  it.each([
    ['sign-in', '/account/sign-in', false],
    ['keys', '/account/keys', true],
    ['members', '/account/members', true],
    ['apps', '/account/apps', true],
    ['developer-apps', '/account/developer-apps', true],
    ['device', '/oauth/device', true],
    ['upload', null, false],
    ['upload-closed', `/u/${'x'.repeat(43)}`, false],
    ['developers', '/developers', false],
  ] as const)('%s', async (name, path, signedIn) => {
    // null: the upload link's page.
    for (const seen of await visit(name, path ?? visitor.uploadPath, signedIn ? visitor.session : undefined)) {
      expect(seen.scroll, `${name} at ${seen.width} px`).toBeLessThanOrEqual(seen.client);
      expect({ brand: seen.brand, stylesheets: seen.stylesheets }).toEqual({ brand: 'Herald', stylesheets: 1 });
    }
  });
});
