import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { unique, type TestApp } from '../helpers/app.ts';
import { accessibilityProblems, servedToChromium, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { processBudget } from '../helpers/process.ts';
import { appContext, screenshotsBothWidths, sessionApi, signInToApp } from '../helpers/web-app.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The web app's calendar in real headless Chromium against the real server on loopback: sign in
 * with the mailed code, connect a channel and plan posts through the API with the session, see
 * them on the calendar, drag one to another day and read its new time through the API; a viewer
 * can drag nothing and the API refuses them; markup stays text. Screenshots at 390 and 1,440 px,
 * light and dark, go to /tmp/herald-shots/.
 */
const SHOTS = '/tmp/herald-shots';
const MARKUP_CHANNEL = '<img src=x id=injected-channel>Hook & <b>Co</b>';
// The API keeps HTML it allows and drops scripts; markup written as text (escaped) must stay text in the app.
const MARKUP_CONTENT = '<p>Launch &lt;img src=x onerror="window.injected=1" id="injected-img"&gt; day &amp; more</p>';
const MARKUP_TEXT = 'Launch <img src=x onerror="window.injected=1" id="injected-img"> day & more';
const DAY = 24 * 60 * 60_000;

let t: TestApp;
let origin: string;
let browser: Browser;
let mail: Awaited<ReturnType<typeof startMailServer>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
const pageErrors: string[] = [];
const cspViolations: string[] = [];

beforeAll(
  async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    mail = await startMailServer();
    receiver = await startWebhookReceiver();
    ({ t, origin, browser } = await servedToChromium(path.join(SHOTS, 'unused'), {
      env: { SMTP_URL: mail.url, OUTBOUND_ALLOW_LOOPBACK: 'true', RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /account/sign-in': 10_000 }) },
    }));
  },
  processBudget(1, 60_000),
);

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await mail?.close();
  await receiver?.close();
  expect(pageErrors).toEqual([]);
  expect(cspViolations).toEqual([]);
});

const newContext = () => appContext(browser, { pageErrors, cspViolations });
const signIn = (page: Page, email: string) => signInToApp(page, origin, mail, email);
const apiCall = (page: Page, method: string, url: string, data?: unknown, csrf = true) => sessionApi(page, origin, method, url, data, csrf);

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

const shots = (page: Page, name: string) => screenshotsBothWidths(page, SHOTS, name);

describe('the web app: calendar', () => {
  it('an owner sees the planned posts, drags one to another day (the API has the new time), opens one; markup stays text', async () => {
    const email = `${unique('owner')}@example.test`;
    const user = await t.services.users.create({ email });
    const workspace = await t.services.workspaces.create({ name: unique('<i>Acme</i>'), ownerId: user.id });
    const { context, page } = await newContext();
    await signIn(page, email);
    // Signed in, the site's address is the app.
    await page.goto(`${origin}/`);
    await page.waitForURL(/\/app$/);
    await page.locator('.fc').waitFor();

    const served = await page.request.get(`${origin}/app`);
    const csp = served.headers()['content-security-policy']!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');

    const connected = await apiCall(page, 'POST', '/integrations/connect', {
      provider: 'webhook',
      name: MARKUP_CHANNEL,
      url: receiver.url,
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const channelId = (connected.body.integration as { id: string }).id;
    // Without the CSRF header, the same session is refused.
    expect((await apiCall(page, 'GET', '/integrations', undefined, false)).status).toBe(403);

    const now = Date.now();
    const first = new Date(
      Date.UTC(new Date(now + 2 * DAY).getUTCFullYear(), new Date(now + 2 * DAY).getUTCMonth(), new Date(now + 2 * DAY).getUTCDate(), 10),
    );
    const second = new Date(first.getTime() + 3 * 60 * 60_000);
    const post = async (date: Date, content: string, type: 'schedule' | 'draft') => {
      const res = await apiCall(page, 'POST', '/posts', {
        type,
        date: date.toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content }] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body[0]!.postId as string;
    };
    const scheduled = await post(first, MARKUP_CONTENT, 'schedule');
    await post(second, 'A quiet draft', 'draft');

    await page.reload();
    const events = page.locator('.fc-event.post');
    await expect.poll(() => events.count()).toBe(2);
    const shown = page.locator(`.fc-event.post:has-text("Launch")`);
    expect(await shown.innerText()).toContain(MARKUP_TEXT);
    expect(await page.locator('#injected-img, #injected-channel').count()).toBe(0);
    expect(await page.evaluate('window.injected')).toBeUndefined();
    expect(await page.locator('select option', { hasText: MARKUP_CHANNEL }).count()).toBe(1);
    // The legend names each state in words, not colour alone.
    expect(await page.locator('.legend').innerText()).toMatch(/Draft[\s\S]*Scheduled[\s\S]*Published/);
    await shots(page, 'calendar-month');

    // Drag the scheduled post two days later; the API then has the new date, same time of day.
    const target = page.locator(`.fc-daygrid-day[data-date="${isoDay(new Date(first.getTime() + 2 * DAY))}"]`);
    await target.scrollIntoViewIfNeeded();
    await shown.scrollIntoViewIfNeeded();
    const from = (await shown.boundingBox())!;
    const to = (await target.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2 + 5, from.y + from.height / 2 + 5, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 20 });
    await page.mouse.up();
    await expect.poll(() => page.locator('[role=status]').innerText()).toMatch(/^Moved to/);
    const read = await apiCall(page, 'GET', `/posts/${scheduled}`);
    expect(read.body.publishDate).toBe(new Date(first.getTime() + 2 * DAY).toISOString());

    // Open it: the detail panel shows its state, channel and text, all as text.
    await shown.click();
    const detail = page.locator('.detail');
    await detail.waitFor();
    expect(await detail.innerText()).toContain('Scheduled');
    expect(await detail.locator('dd').first().innerText()).toBe(MARKUP_CHANNEL);
    expect(await detail.locator('.content').innerText()).toBe(MARKUP_TEXT);
    expect(await page.locator('#injected-img, #injected-channel').count()).toBe(0);
    await shots(page, 'calendar-detail');
    expect(await accessibilityProblems(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => detail.count()).toBe(0);

    // Week and list views.
    await page.click('.fc-timeGridWeek-button');
    await page.locator('.fc-timegrid').waitFor();
    // The posts are in the days ahead (this week or the next, by the day the test runs): show a week that has one.
    if ((await page.locator('.fc-timegrid-event').count()) === 0) await page.click('.fc-next-button');
    await expect.poll(() => page.locator('.fc-timegrid-event').count()).toBeGreaterThan(0);
    await shots(page, 'calendar-week');
    await page.click('.fc-listWeek-button');
    await page.locator('.fc-list').waitFor();
    await expect.poll(() => page.locator('.fc-list-event').count()).toBeGreaterThan(0);
    await shots(page, 'calendar-list');
    expect(await accessibilityProblems(page)).toEqual([]);

    // A viewer of the same workspace: sees the posts, can drag none, and the API refuses the move.
    const viewerEmail = `${unique('viewer')}@example.test`;
    const viewerUser = await t.services.users.create({ email: viewerEmail });
    await t.services.workspaces.addMember(workspace.id, viewerUser.id, 'viewer');
    const viewer = await newContext();
    await signIn(viewer.page, viewerEmail);
    await expect.poll(() => viewer.page.locator('.fc-event.post').count()).toBe(2);
    expect(await viewer.page.locator('.fc-event-draggable').count()).toBe(0);
    expect(await viewer.page.locator('main').innerText()).toContain('can look at the calendar but not move posts');
    const refused = await apiCall(viewer.page, 'PATCH', `/posts/${scheduled}`, { date: first.toISOString() });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('missing_scope');
    await shots(viewer.page, 'calendar-viewer');
    await viewer.context.close();
    await context.close();
  }, 180_000);

  it('a busy day shows its first four posts and "+N more", which opens that day’s list with every post; one GET /posts per view', async () => {
    const email = `${unique('busy')}@example.test`;
    const user = await t.services.users.create({ email });
    await t.services.workspaces.create({ name: unique('Busy'), ownerId: user.id });
    const { context, page } = await newContext();
    await signIn(page, email);
    const connected = await apiCall(page, 'POST', '/integrations/connect', { provider: 'webhook', name: 'Hook', url: receiver.url });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const channelId = (connected.body.integration as { id: string }).id;
    // Seven drafts today (UTC, the context's zone), ten minutes apart, created out of order.
    const now = new Date();
    const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 10);
    for (const i of [3, 6, 0, 5, 1, 4, 2]) {
      const res = await apiCall(page, 'POST', '/posts', {
        type: 'draft',
        date: new Date(day + i * 10 * 60_000).toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content: `<p>Busy &amp; ${i}</p>` }] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const calls: string[] = [];
    page.on('request', (request) => {
      if (/\/public\/v1\/posts\?/.test(request.url())) calls.push(request.url());
    });

    await page.reload();
    const more = page.locator('.fc-event.posts-more');
    await more.waitFor();
    expect(await more.innerText()).toBe('+3 more');
    expect(await more.getAttribute('aria-label')).toMatch(/^3 more posts on .+: show the day's list$/);
    expect(await page.locator('.fc-event.post .fc-event-title').allInnerTexts()).toEqual([
      '✎ Busy & 0',
      '✎ Busy & 1',
      '✎ Busy & 2',
      '✎ Busy & 3',
    ]);
    expect(calls).toHaveLength(1);

    // From the keyboard: the day's list, fetched for that day, with all seven.
    await more.focus();
    await page.keyboard.press('Enter');
    await page.locator('.fc-listDay-view').waitFor();
    await expect.poll(() => page.locator('.fc-list-event.post').count()).toBe(7);
    expect(await page.locator('.fc-list-event.post .fc-list-event-title').allInnerTexts()).toEqual(
      [0, 1, 2, 3, 4, 5, 6].map((i) => `✎ Busy & ${i}`),
    );
    expect(await page.locator('.posts-more').count()).toBe(0);
    expect(calls).toHaveLength(2);
    expect(new URL(calls[1]!).searchParams.get('startDate')).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString(),
    );
    expect(await accessibilityProblems(page)).toEqual([]);

    // Back to the month: its own range again, the day shortened again.
    await page.click('.fc-dayGridMonth-button');
    await expect.poll(() => page.locator('.fc-daygrid-event.posts-more').count()).toBe(1);
    expect(await page.locator('.fc-daygrid-event.post').count()).toBe(4);
    expect(calls).toHaveLength(3);
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  }, 180_000);
});
