import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { accessOf, createTenant, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { accessibilityProblems, recordProblems, servedToChromium, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { processBudget } from '../helpers/process.ts';
import { createPerson } from '../oauth/helpers.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

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

/** A fresh browser page `width` px wide (a phone's below 500 px), signed in with `session` if given, its problems recorded. */
async function pageAt(width: number, session?: string): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: 900 },
    ...(width < 500 && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
  });
  if (session) await context.addCookies([{ name: 'herald_session', value: session, url: origin }]);
  return recordProblems(await context.newPage(), { pageErrors, cspViolations });
}

/** Opens `url` at each width (signed in with `session` if given), saves a screenshot, and returns what the page shows of the shell. */
async function visit(name: string, url: string, session?: string) {
  const seen: Array<{ width: number; scroll: number; client: number; brand: string | null; stylesheets: number }> = [];
  for (const width of WIDTHS) {
    const page = await pageAt(width, session);
    await page.goto(`${origin}${url}`);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    expect(await accessibilityProblems(page), `${name} at ${width} px`).toEqual([]);
    const shell = (await page.evaluate(`({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
      brand: document.querySelector('header.top .brand')?.textContent ?? null,
      stylesheets: document.styleSheets.length,
    })`)) as Omit<(typeof seen)[number], 'width'>;
    seen.push({ width, ...shell });
    await page.context().close();
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
  await t.services.oauth.registerApp(person.userId, {
    name: 'Calendar sync',
    redirectUris: ['https://calendar.example.test/callback'],
    confidential: true,
  });
  // A member besides the owner, and an invitation waiting: the members page's every control.
  const editor = await t.services.users.create({ email: `editor-${person.userId.slice(0, 8)}@example.test` });
  await t.services.workspaces.addMember(person.workspaceId, editor.id, 'editor');
  const actor = { userId: person.userId, email: 'owner@example.test', workspaceId: person.workspaceId, role: 'owner' as const };
  await t.services.members.invite(actor, 'invited@example.test', 'viewer');
  // Webhook endpoints: one enabled with a delivery waiting, one disabled with a long URL.
  const { secret } = await t.services.apiKeys.create({ userId: person.userId, kind: 'rest', workspaceId: person.workspaceId });
  const access = await t.services.access.select(await t.services.apiKeys.authenticate(secret, 'rest'), undefined);
  const hook = await t.services.webhooks.create(access, {
    url: 'https://crm.example.test/herald',
    description: 'CRM sync',
    eventTypes: ['post.published', 'post.failed'],
    enabled: true,
  });
  await t.services.webhooks.sendTest(access, hook.id);
  await t.services.webhookDelivery.dispatch();
  await t.services.webhooks.create(access, {
    url: `https://a-rather-long-host-name.example.test/webhooks/herald/${'x'.repeat(60)}`,
    description: '',
    eventTypes: ['channel.deleted'],
    enabled: false,
  });
  // A post awaiting approval: a contributor scheduled it while approval is asked of contributors.
  await t.services.approvals.setSettings(access, { roles: ['contributor'] });
  const writer = await createTenant(t, { role: 'contributor', workspaceId: person.workspaceId });
  const channel = await t.services.channels.create(person.workspaceId, {
    provider: 'webhook',
    name: 'Announcements',
    config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
  });
  await t.services.posts.create(await accessOf(t, writer), {
    type: 'schedule',
    date: new Date(Date.now() + 7 * 24 * 3600_000).toISOString(),
    shortLink: false,
    tags: [],
    posts: [
      {
        integration: { id: channel.id },
        value: [{ content: '<p>Our spring release is out: faster queues, approvals for teams, and a new calendar.</p>', image: [] }],
      },
    ],
  });
  visitor.session = person.sessionToken;
});

describe('the pages in a browser fit a phone and a desktop, each with the one header and stylesheet', () => {
  it.each([
    ['sign-in', '/account/sign-in', false],
    ['keys', '/account/keys', true],
    ['members', '/account/members', true],
    ['webhooks', '/account/webhooks', true],
    ['approvals', '/account/approvals', true],
    ['apps', '/account/apps', true],
    ['developer-apps', '/account/developer-apps', true],
    ['device', '/oauth/device', true],
    ['upload', null, false],
    ['upload-closed', `/u/${'x'.repeat(43)}`, false],
    ['developers', '/developers', false],
    ['code', '/account/sign-in?email=someone%40example.test&sent=1', false],
    ['link', `/account/link/${'x'.repeat(32)}`, false],
    ['request-expired', '/oauth/interaction/nothing-here', true],
  ] as const)('%s', async (name, path, signedIn) => {
    // null: the upload link's page.
    for (const seen of await visit(name, path ?? visitor.uploadPath, signedIn ? visitor.session : undefined)) {
      expect(seen.scroll, `${name} at ${seen.width} px`).toBeLessThanOrEqual(seen.client);
      expect({ brand: seen.brand, stylesheets: seen.stylesheets }).toEqual({ brand: 'Herald', stylesheets: 1 });
    }
  });
});

/** A page at each width, signed in, after `steps` (clicks that post forms): its screenshot, and nothing sticks out. */
async function visitThrough(name: string, steps: (page: Page) => Promise<void>) {
  for (const width of WIDTHS) {
    const page = await pageAt(width, visitor.session);
    await steps(page);
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
    expect(await accessibilityProblems(page), `${name} at ${width} px`).toEqual([]);
    const widths = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.client);
    await page.context().close();
  }
}

describe('pages reached through a form', () => {
  it('the confirmation page of a destructive action', async () => {
    await visitThrough('confirm-revoke', async (page) => {
      await page.goto(`${origin}/account/keys`);
      await page.click('form[action$="/revoke"] button');
      await page.waitForSelector('#confirm-title');
    });
  });

  it('a webhook endpoint just added, its secret shown once; the confirmation of its deletion', async () => {
    await visitThrough('webhook-created', async (page) => {
      await page.goto(`${origin}/account/webhooks`);
      await page.fill('#webhook-url', 'https://new.example.test/in');
      await page.check('input[name="eventTypes"][value="post.published"]');
      await page.click('form[action="/account/webhooks"] button[type="submit"]');
      await page.waitForSelector('#new-secret');
    });
    await visitThrough('confirm-webhook-delete', async (page) => {
      await page.goto(`${origin}/account/webhooks`);
      await page.click('form[action$="/delete"] button');
      await page.waitForSelector('#confirm-title');
    });
  });

  it('the device pages: confirm the code, consent, connected, and the state after a reload', async () => {
    await visitThrough('device-flow', async (page) => {
      const started = await fetch(`${origin}/oauth/device/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'herald-cli', scope: 'posts:read', resource: `${origin}/public/v1` }).toString(),
      });
      const device = (await started.json()) as { verification_uri_complete: string };
      await page.goto(device.verification_uri_complete);
      await page.waitForSelector('#device-code');
      const width = page.viewportSize()!.width;
      await page.screenshot({ path: path.join(ARTIFACTS, `device-confirm-${width}.png`), fullPage: true });
      await page.click('#device-confirm');
      await page.waitForSelector('#allow');
      await page.screenshot({ path: path.join(ARTIFACTS, `consent-${width}.png`), fullPage: true });
      await page.click('#allow');
      await page.waitForSelector('#device-done');
      await page.screenshot({ path: path.join(ARTIFACTS, `device-done-${width}.png`), fullPage: true });
      await page.reload();
      await page.waitForSelector('#device-state');
    });
  });
});

describe('controls stay on one row', () => {
  it("the members page's role select and its Change button, at 390 px", async () => {
    const page = await pageAt(390, visitor.session);
    await page.goto(`${origin}/account/members`);
    const form = page.locator('form[action$="/role"]').first();
    const select = (await form.locator('select').boundingBox())!;
    const button = (await form.locator('button').boundingBox())!;
    // Same row: the button starts right of the select and their vertical extents overlap.
    expect(button.x).toBeGreaterThanOrEqual(select.x + select.width);
    expect(button.y).toBeLessThan(select.y + select.height);
    expect(select.y).toBeLessThan(button.y + button.height);
    await page.context().close();
  });
});

describe('the API reference at /docs', () => {
  it("has Herald's name, icon, header and colours, no Swagger top bar, under a CSP without inline code", async () => {
    for (const width of WIDTHS) {
      const page = await pageAt(width);
      const answer = await page.goto(`${origin}/docs`);
      const csp = answer!.headers()['content-security-policy'] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      await page.waitForSelector('.swagger-ui .info .title');
      await page.waitForSelector('.opblock');
      await expect.poll(() => accessibilityProblems(page), { message: `docs at ${width} px` }).toEqual([]);
      await page.screenshot({ path: path.join(ARTIFACTS, `docs-${width}.png`), fullPage: width > 500 ? false : true });
      const look = (await page.evaluate(`({
        title: document.title,
        brand: document.querySelector('.herald-top .brand')?.textContent ?? null,
        nav: [...document.querySelectorAll('.herald-top nav a')].map((a) => a.getAttribute('href')),
        topbar: [...document.querySelectorAll('.swagger-ui .topbar')].filter((e) => e.offsetParent !== null).length,
        icon: document.querySelector('link[rel=icon]')?.getAttribute('href') ?? '',
        font: getComputedStyle(document.querySelector('.swagger-ui .info .title')).fontFamily,
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      })`)) as {
        title: string;
        brand: string | null;
        nav: string[];
        topbar: number;
        icon: string;
        font: string;
        scroll: number;
        client: number;
      };
      expect(look).toMatchObject({ title: 'Herald API reference', brand: 'Herald', topbar: 0 });
      expect(look.nav).toEqual(['/developers', '/docs', '/account']);
      expect(look.icon).toMatch(/herald\.svg$/);
      expect(look.font).toContain('system-ui');
      // Laid out at the device's width (a phone's page is not a zoomed-out desktop's), with nothing sticking out.
      expect(look.client, `docs at ${width} px`).toBe(width);
      expect(look.scroll, `docs at ${width} px`).toBeLessThanOrEqual(look.client);
      await page.context().close();
    }
  });

  it('is linked from the account pages', async () => {
    const page = await (await fetch(`${origin}/account/keys`, { headers: { cookie: `herald_session=${visitor.session}` } })).text();
    expect(page).toContain('<a href="/docs">API reference</a>');
    expect(page).toContain('<a href="/developers">Developers</a>');
  });
});
