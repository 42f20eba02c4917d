import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { unique } from '../helpers/app.ts';
import { accessibilityProblems } from '../helpers/browser.ts';
import { drag, screenshotsBothWidths } from '../helpers/web-app.ts';
import { appSuite } from './browser-suite.ts';

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

const app = appSuite({ artifacts: SHOTS, receiver: true, env: { RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /account/sign-in': 10_000 }) } });
const apiCall = app.api;

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

/** A new workspace's owner, signed in to the app in the browser, with a webhook channel connected through the API. */
async function ownerWithHook(name: string) {
  const { email, user, workspace } = await app.owner(name);
  const { context, page } = await app.signIn(email);
  return { user, workspace, context, page, channelId: await app.connectHook(page) };
}

const shots = (page: Page, name: string) => screenshotsBothWidths(page, SHOTS, name);

describe('the web app: calendar', () => {
  it('an owner sees the planned posts, drags one to another day (the API has the new time), opens one; markup stays text', async () => {
    const { email, workspace } = await app.owner('owner', unique('<i>Acme</i>'));
    const { context, page } = await app.signIn(email);
    // Signed in, the site's address is the app.
    await page.goto(`${app.origin}/`);
    await page.waitForURL(/\/app$/);
    await page.locator('.fc').waitFor();

    const served = await page.request.get(`${app.origin}/app`);
    const csp = served.headers()['content-security-policy']!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');

    const channelId = await app.connectHook(page, MARKUP_CHANNEL);
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
    await drag(page, shown, page.locator(`.fc-daygrid-day[data-date="${isoDay(new Date(first.getTime() + 2 * DAY))}"]`));
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
    const viewer = await app.signIn((await app.member(workspace.id, 'viewer')).email);
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

  it('a busy day shows its first four posts and "+N more", which lists the rest and opens that day’s list with every post; one GET /posts per view', async () => {
    const { context, page, channelId } = await ownerWithHook('busy');
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
    expect(await more.getAttribute('aria-label')).toMatch(/^3 more posts on .+: show them$/);
    expect(await page.locator('.fc-event.post .fc-event-title').allInnerTexts()).toEqual([
      '✎ Busy & 0',
      '✎ Busy & 1',
      '✎ Busy & 2',
      '✎ Busy & 3',
    ]);
    expect(calls).toHaveLength(1);

    // From the keyboard: the rest of the day under the entry (no call), then the day's list, fetched for that day, with all seven.
    await more.focus();
    await page.keyboard.press('Enter');
    const rest = page.getByRole('dialog', { name: /^Posts on / });
    await rest.waitFor();
    expect(await rest.locator('.more-post').allTextContents()).toEqual([
      '10:40 ✎ Busy & 4 (Draft)',
      '10:50 ✎ Busy & 5 (Draft)',
      '11:00 ✎ Busy & 6 (Draft)',
    ]);
    expect(calls).toHaveLength(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => rest.count()).toBe(0);
    expect(await page.evaluate('document.activeElement.classList.contains("posts-more")')).toBe(true);
    await page.keyboard.press('Enter');
    await rest.getByRole('button', { name: "Show the day's list" }).click();
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
  it('a busy day’s posts beyond the fourth are dragged from its "+N more" list to another day or moved with the keyboard; a refusal puts the post back; a published post does not move', async () => {
    const { context, page, channelId, user, workspace } = await ownerWithHook('mover');
    // Six drafts on one day of this month (UTC, the context's zone), ten minutes apart from 10:00; the day after is in the same month.
    const now = new Date();
    const date = Math.min(now.getUTCDate(), 20);
    const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), date, 10);
    const ids: string[] = [];
    for (const i of [0, 1, 2, 3, 4, 5]) {
      const res = await apiCall(page, 'POST', '/posts', {
        type: 'draft',
        date: new Date(day + i * 10 * 60_000).toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content: `<p>Moving ${i}</p>` }] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body[0]!.postId as string);
    }
    const publishDate = async (id: string) => (await apiCall(page, 'GET', `/posts/${id}`)).body.publishDate;
    const cell = (at: number) => page.locator(`.fc-daygrid-day[data-date="${isoDay(new Date(at))}"]`);

    await page.reload();
    const more = page.locator('.fc-event.posts-more');
    await more.waitFor();
    expect(await more.innerText()).toBe('+2 more');
    await more.click();
    const rest = page.getByRole('dialog', { name: /^Posts on / });
    const entries = rest.locator('.more-post');
    await expect.poll(() => entries.allTextContents()).toEqual(['10:40 ✎ Moving 4 (Draft)', '10:50 ✎ Moving 5 (Draft)']);
    expect(await rest.locator('.more-post.movable').count()).toBe(2);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shots(page, 'calendar-more');

    // Refused: the member became a viewer in the meantime. The API's refusal is shown, and the post stays where it was.
    await app.t.services.workspaces.setRole(workspace.id, user.id, 'viewer');
    await drag(page, entries.nth(1), cell(day + DAY));
    await expect.poll(() => page.locator('[role=status]').innerText()).toMatch(/scope|permission|may not|role/i);
    expect(await page.locator('[role=status]').getAttribute('class')).toContain('bad');
    expect(await entries.allTextContents()).toEqual(['10:40 ✎ Moving 4 (Draft)', '10:50 ✎ Moving 5 (Draft)']);
    expect(
      await cell(day + DAY)
        .locator('.fc-event')
        .count(),
    ).toBe(0);
    expect(await publishDate(ids[5]!)).toBe(new Date(day + 50 * 60_000).toISOString());
    await app.t.services.workspaces.setRole(workspace.id, user.id, 'owner');

    // The sixth post, dragged from the list to the next day: the API has it there at the same time; the day shows it.
    await drag(page, entries.nth(1), cell(day + DAY));
    await expect.poll(() => page.locator('[role=status]').innerText()).toMatch(/^Moved to/);
    expect(await publishDate(ids[5]!)).toBe(new Date(day + DAY + 50 * 60_000).toISOString());
    await expect
      .poll(() =>
        cell(day + DAY)
          .locator('.fc-event.post')
          .allInnerTexts(),
      )
      .toEqual([expect.stringContaining('Moving 5')]);
    await expect.poll(() => more.innerText()).toBe('+1 more');
    expect(await entries.allTextContents()).toEqual(['10:40 ✎ Moving 4 (Draft)']);

    // The keyboard's equivalent: open the fifth from the list, give the detail panel another day, press Enter.
    await entries.first().locator('button').focus();
    await page.keyboard.press('Enter');
    const detail = page.locator('.detail');
    await detail.waitFor();
    const field = detail.getByLabel('Move to day');
    await field.focus();
    await field.fill(isoDay(new Date(day + 2 * DAY)));
    await page.keyboard.press('Enter');
    await expect.poll(() => publishDate(ids[4]!)).toBe(new Date(day + 2 * DAY + 40 * 60_000).toISOString());
    await expect.poll(() => page.locator('.fc-event.posts-more').count()).toBe(0);
    await expect.poll(() => rest.count()).toBe(0);
    await expect
      .poll(() =>
        cell(day + 2 * DAY)
          .locator('.fc-event.post')
          .allInnerTexts(),
      )
      .toEqual([expect.stringContaining('Moving 4')]);
    expect(await cell(day).locator('.fc-event.post').count()).toBe(4);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shots(page, 'calendar-moved');

    // A published post in the list does not move: it is not draggable and its detail offers no move.
    for (const [i, content] of [
      [7, 'Published one'],
      [8, 'Draft after it'],
    ] as const) {
      const res = await apiCall(page, 'POST', '/posts', {
        type: 'draft',
        date: new Date(day + i * 10 * 60_000).toISOString(),
        posts: [{ integration: { id: channelId }, value: [{ content: `<p>${content}</p>` }] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids.push(res.body[0]!.postId as string);
    }
    await app.t.runtime.db.updateTable('posts').set({ state: 'PUBLISHED' }).where('id', '=', ids[6]!).execute();
    await page.keyboard.press('Escape');
    await page.reload();
    await more.click();
    await expect.poll(() => entries.allTextContents()).toEqual(['11:10 ✓ Published one (Published)', '11:20 ✎ Draft after it (Draft)']);
    expect(await rest.locator('.more-post.movable').allTextContents()).toEqual(['11:20 ✎ Draft after it (Draft)']);
    await entries.first().locator('button').click();
    await expect.poll(() => detail.innerText()).toContain('Published one');
    expect(await detail.getByLabel('Move to day').count()).toBe(0);
    await context.close();
  }, 180_000);
});
