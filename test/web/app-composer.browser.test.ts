import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { htmlToPlainText } from '../../src/content/html.ts';
import { unique } from '../helpers/app.ts';
import { accessibilityProblems } from '../helpers/browser.ts';
import { png } from '../helpers/media-files.ts';
import { drag, dropFile, screenshotsBothWidths } from '../helpers/web-app.ts';
import { appSuite } from './browser-suite.ts';

/**
 * The web app's composer and post detail in real headless Chromium against the real server (with
 * its publishing engine) on loopback: sign in with the mailed code, connect a webhook channel,
 * compose a post with a dropped image, its alt text, a comment and a setting, see it scheduled
 * and in the calendar; a retry after a lost answer makes no second post; publish one now and see
 * it become published with its link; delete one; a drag the API refuses puts the post back; a
 * viewer is offered no composer and the API refuses them. Markup typed stays text. Screenshots at
 * 390 and 1,440 px (light and dark) go to a temporary folder, named in the test's output.
 */
const SHOTS = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-composer-shots-'));
const CHANNEL = '<img src=x id=injected-channel>Hook & <b>Co</b>';
const TYPED = 'Launch <b>day</b> & <img src=x onerror="window.injected=1" id="injected-img"> soon';
const DAY = 24 * 60 * 60_000;

const app = appSuite({
  artifacts: SHOTS,
  receiver: true,
  engine: true,
  env: { RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /account/sign-in': 10_000 }) },
});
console.log(`Composer screenshots: ${SHOTS}`);

/** `YYYY-MM-DDTHH:mm` at 10:00 UTC, `days` from today (the browser runs in UTC). */
function tenOClock(days: number): { local: string; iso: string; day: string } {
  const d = new Date(Date.now() + days * DAY);
  const day = d.toISOString().slice(0, 10);
  return { local: `${day}T10:00`, iso: `${day}T10:00:00.000Z`, day };
}

async function postsWith(page: Page, text: string): Promise<Array<Record<string, unknown>>> {
  const list = await app.api(
    page,
    'GET',
    `/posts?startDate=${new Date(Date.now() - 30 * DAY).toISOString()}&endDate=${new Date(Date.now() + 60 * DAY).toISOString()}`,
  );
  return (list.body.posts as Array<Record<string, unknown>>).filter((p) => String(p.content).includes(text));
}

describe('the web app: composer and post detail', () => {
  it('an owner composes, schedules, retries safely, publishes now, deletes; a refused drag reverts; a viewer cannot compose', async () => {
    const { email, workspace } = await app.owner('owner', unique('<i>Acme</i>'));
    const { context, page } = await app.signIn(email);

    const channelId = await app.connectHook(page, CHANNEL);
    const limits = await app.api(page, 'GET', `/integration-settings/${channelId}`);
    const textLimit = limits.body.textLimit as { max: number };

    // From the calendar's button to the composer.
    await page.reload();
    await page.click('a.button:has-text("New post")');
    await page.waitForURL(/\/app\/compose$/);
    await page.locator('#compose-text').waitFor();
    await page.check(`#pick-${channelId}`);
    await page.fill('#compose-text', TYPED);
    // The preview shows the typed markup as text, with the platform's counter.
    const preview = page.locator('.preview');
    await expect.poll(() => preview.locator('.counter').innerText()).toBe(`${[...TYPED].length} / ${textLimit.max} characters`);
    expect(await preview.locator('.preview-text').innerText()).toBe(TYPED);
    expect(await preview.innerText()).toContain(CHANNEL);
    expect(await page.locator('#injected-img, #injected-channel').count()).toBe(0);
    expect(await page.evaluate('window.injected')).toBeUndefined();

    // An image dropped on the composer goes to the library and onto the post. A webhook takes no
    // alt text, so none is asked for (the rich-text case below gives alt text to a platform that does).
    await dropFile(page, 'kite.png', png(64, 48), 'image/png');
    await page.locator('.attached li').waitFor();
    expect(await page.locator('#alt-0').count()).toBe(0);
    expect(await page.locator('.attached').locator('..').innerText()).toContain("None of the chosen channels' platforms takes alt text");
    // A comment ten minutes after the post, and the channel's title setting from its schema.
    await page.click('button:has-text("Add a comment")');
    await page.fill('#comment-0', 'More in the thread');
    await page.fill('#delay-0', '10');
    await page.click(`details.channel-settings summary`);
    await page.fill(`#settings-${channelId}-title`, 'Launch day');
    const when = tenOClock(2);
    await page.fill('#compose-when', when.local);
    expect(await page.locator('.readiness').innerText()).toContain('Nothing missing');
    await screenshotsBothWidths(page, SHOTS, 'composer');
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.click('button:has-text("Schedule")');
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    const scheduledId = decodeURIComponent(page.url().split('/').pop()!);
    await expect.poll(() => page.locator('h1').innerText()).toContain('Scheduled');
    const stored = (await app.api(page, 'GET', `/posts/${scheduledId}`)).body;
    expect(stored.state).toBe('QUEUE');
    expect(stored.publishDate).toBe(when.iso);
    const value = stored.value as Array<{ content: string; image: Array<{ path: string }>; delay: number }>;
    expect(value).toHaveLength(2);
    expect(value[0]!.image).toHaveLength(1);
    expect(value[1]).toMatchObject({ delay: 10 });
    expect(value[1]!.content).toContain('More in the thread');
    expect(stored.settings).toMatchObject({ title: 'Launch day' });
    // Typed markup was sent as text: the stored HTML has it escaped, and the detail shows it as typed.
    expect(String(stored.content)).toContain('&lt;b&gt;day&lt;/b&gt;');
    expect(await page.locator('.post-detail .content').first().innerText()).toBe(TYPED);
    await screenshotsBothWidths(page, SHOTS, 'post-scheduled');
    expect(await accessibilityProblems(page)).toEqual([]);

    // In the calendar, on its day.
    await page.click('a:has-text("Back to the calendar")');
    await page.waitForURL(/\/app$/);
    const event = page.locator(`.fc-daygrid-day[data-date="${when.day}"] .fc-event.post`);
    await expect.poll(() => event.count()).toBe(1);
    expect(await event.innerText()).toContain(TYPED);

    // A click on a day opens the composer at that day; the answer to the first save is lost, the
    // person presses the button again, and there is still one post (the same idempotency key).
    const other = tenOClock(3);
    await page.click(`.fc-daygrid-day[data-date="${other.day}"] .fc-daygrid-day-frame`);
    await page.waitForURL(/\/app\/compose\?date=/);
    expect(await page.inputValue('#compose-when')).toBe(`${other.day}T09:00`);
    await page.check(`#pick-${channelId}`);
    await page.fill('#compose-text', 'Retried draft');
    let lost = 0;
    await page.route('**/public/v1/posts', async (route) => {
      if (route.request().method() !== 'POST' || lost++ > 0) return route.continue();
      await route.fetch(); // the server does the work…
      await route.abort('connectionreset'); // …and the answer never arrives
    });
    await page.click('button:has-text("Save as draft")');
    await expect.poll(() => page.locator('[role=status]').innerText()).toContain('press the same button again');
    expect(await postsWith(page, 'Retried draft')).toHaveLength(1);
    await page.click('button:has-text("Save as draft")');
    await expect.poll(() => page.locator('[role=status]').innerText()).toBe('Saved as a draft.');
    const drafts = await postsWith(page, 'Retried draft');
    expect(drafts).toHaveLength(1);
    expect(drafts[0]!.state).toBe('DRAFT');
    await page.unroute('**/public/v1/posts');

    // Publish now, after the confirmation; the detail follows it to published, with its link.
    await page.goto(`${app.origin}/app/compose`);
    await page.check(`#pick-${channelId}`);
    await page.fill('#compose-text', 'Out right now');
    await page.click('button:has-text("Publish now")');
    expect(await page.locator('.confirm').innerText()).toContain('cannot be undone');
    await page.click('button:has-text("Yes, publish now")');
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    await expect.poll(() => page.locator('h1').innerText(), { timeout: 30_000 }).toContain('Published');
    const link = page.locator('.release-links a');
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(/^https:\/\/receiver\.example\/p\/\d+$/);
    await screenshotsBothWidths(page, SHOTS, 'post-published');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Repeat: a daily series of three, from the composer.
    await page.goto(`${app.origin}/app/compose`);
    await page.check(`#pick-${channelId}`);
    await page.fill('#compose-text', 'Every day at ten');
    await page.fill('#compose-when', tenOClock(1).local);
    await page.selectOption('#repeat-frequency', 'daily');
    await page.fill('#repeat-count', '3');
    const repeatOnce = async () => {
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/public/v1/series')),
        page.click('button:has-text("Repeat")'),
      ]);
      expect(answer.status()).toBe(201);
      return { key: answer.request().headers()['idempotency-key'], id: ((await answer.json()) as { id: string }).id };
    };
    const firstSeries = await repeatOnce();
    await expect.poll(() => page.locator('[role=status]').innerText()).toMatch(/^Repeating: the next one goes out/);
    // Pressed again, the same request carries the same Idempotency-Key: the same series answers, none is added.
    expect(firstSeries.key).toBeTruthy();
    expect(await repeatOnce()).toEqual(firstSeries);
    await expect.poll(() => page.locator('[role=status]').innerText()).toMatch(/^Repeating: the next one goes out/);
    const series = (await app.api(page, 'GET', '/series')).body.series as Array<{
      repeat: { frequency: string; count: number };
    }>;
    expect(series.map((s) => s.repeat)).toMatchObject([{ frequency: 'daily', count: 3 }]);
    expect(await postsWith(page, 'Every day at ten')).toHaveLength(3);

    // Delete the retried draft from its page.
    await page.goto(`${app.origin}/app/posts/${encodeURIComponent(String(drafts[0]!.id))}`);
    await page.click('button:has-text("Delete")');
    await page.click('button:has-text("Yes, delete")');
    await page.waitForURL(/\/app$/);
    expect((await app.api(page, 'GET', `/posts/${String(drafts[0]!.id)}`)).status).toBe(404);

    // A drag the API refuses puts the post back: it was published (elsewhere) after the calendar read it.
    const raced = await app.api(page, 'POST', '/posts', {
      type: 'draft',
      date: tenOClock(4).iso,
      posts: [{ integration: { id: channelId }, value: [{ content: 'Raced post' }] }],
    });
    const racedId = raced.body[0]!.postId as string;
    await page.reload();
    const racedEvent = page.locator('.fc-event.post:has-text("Raced post")');
    await racedEvent.waitFor();
    expect((await app.api(page, 'PATCH', `/posts/${racedId}`, { type: 'now' })).status).toBe(200);
    await expect.poll(async () => (await app.api(page, 'GET', `/posts/${racedId}`)).body.state, { timeout: 30_000 }).toBe('PUBLISHED');
    await drag(page, racedEvent, page.locator(`.fc-daygrid-day[data-date="${tenOClock(5).day}"]`));
    await expect.poll(() => page.locator('[role=status]').getAttribute('class')).toContain('bad');
    expect(await page.locator(`.fc-daygrid-day[data-date="${tenOClock(4).day}"] .fc-event.post:has-text("Raced post")`).count()).toBe(1);
    expect(await page.locator(`.fc-daygrid-day[data-date="${tenOClock(5).day}"] .fc-event.post:has-text("Raced post")`).count()).toBe(0);

    // A viewer: no compose button, the composer says why, and the API refuses the post anyway.
    const viewer = await app.signIn((await app.member(workspace.id, 'viewer')).email);
    expect(await viewer.page.locator('a:has-text("New post")').count()).toBe(0);
    await viewer.page.goto(`${app.origin}/app/compose`);
    await expect.poll(() => viewer.page.locator('main').innerText()).toContain('can read posts but not write them');
    expect(await viewer.page.locator('#compose-text').count()).toBe(0);
    await viewer.page.goto(`${app.origin}/app/posts/${encodeURIComponent(scheduledId)}`);
    await viewer.page.locator('.post-detail').waitFor();
    expect(await viewer.page.locator('.post-detail button').count()).toBe(0);
    const refused = await app.api(viewer.page, 'POST', '/posts', {
      type: 'draft',
      date: when.iso,
      posts: [{ integration: { id: channelId }, value: [{ content: 'Not allowed' }] }],
    });
    expect(refused.status).toBe(403);
    await screenshotsBothWidths(viewer.page, SHOTS, 'post-viewer');
    expect(await accessibilityProblems(viewer.page)).toEqual([]);
    await viewer.context.close();
    await context.close();
  }, 240_000);

  it("adds a post to the queue: it takes the channel's next free slot, and the calendar shows it there", async () => {
    const { email } = await app.owner('queuer', unique('Queue'));
    const { context, page } = await app.signIn(email);
    const channelId = await app.connectHook(page, 'Queue hook');
    // One weekly slot, two days from today at 14:30 UTC: whatever the time now, that is the next free one.
    const slotDay = tenOClock(2).day;
    const weekday = new Date(`${slotDay}T00:00:00Z`).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' }).toLowerCase();
    const schedule = await app.api(page, 'PUT', `/integrations/${channelId}/schedule`, {
      timeZone: 'UTC',
      slots: [{ day: weekday, time: '14:30' }],
    });
    expect(schedule.status, JSON.stringify(schedule.body)).toBe(200);
    const slot = `${slotDay}T14:30:00.000Z`;
    expect((await app.api(page, 'GET', `/find-slot/${channelId}`)).body.date).toBe(slot);

    await page.goto(`${app.origin}/app/compose`);
    await page.locator('#compose-text').waitFor();
    await page.check(`#pick-${channelId}`);
    await page.fill('#compose-text', 'Next in the queue');
    await page.click('button:has-text("Add to queue")');
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    const queuedId = decodeURIComponent(page.url().split('/').pop()!);
    const stored = (await app.api(page, 'GET', `/posts/${queuedId}`)).body;
    expect(stored.state).toBe('QUEUE');
    expect(stored.publishDate).toBe(slot);

    // The calendar (in the browser's zone, UTC) shows it on the slot's day, at the slot's time.
    await page.goto(`${app.origin}/app`);
    const event = page.locator(`.fc-daygrid-day[data-date="${slotDay}"] .fc-event.post:has-text("Next in the queue")`);
    await event.waitFor();
    expect(await event.innerText()).toContain('14:30');
    // The next post queued goes after it: the slot is taken, so a week later.
    const next = await app.api(page, 'GET', `/find-slot/${channelId}`);
    expect(next.body.date).toBe(new Date(Date.parse(slot) + 7 * DAY).toISOString());
    await context.close();
  }, 120_000);

  it("the counter shows the platform's own count from the server once the writer pauses: X counts a link as 23, Mastodon a remote mention by its local part", async () => {
    const { email, workspace } = await app.owner('counter', unique('Counts'));
    const { context, page } = await app.signIn(email);
    // Stored as given (the operator's path): nothing here calls X or the instance.
    const x = await app.t.services.channels.create(workspace.id, {
      provider: 'x',
      name: 'Birdsite',
      config: { accessToken: 'x-access-token-for-tests', userId: '12345', username: 'herald' },
    });
    const toots = await app.t.services.channels.create(workspace.id, {
      provider: 'mastodon',
      name: 'Toots',
      config: { instance: 'https://mastodon.example', accessToken: 'token-for-the-operator-path' },
    });
    // Each count the composer asks for is held until the test lets it through.
    const held: Array<{ body: { integrations: string[] }; release: () => void }> = [];
    const asked: string[][] = [];
    await page.route('**/public/v1/posts/measure', (route: Route) => {
      const body = route.request().postDataJSON() as { integrations: string[] };
      asked.push(body.integrations);
      held.push({ body, release: () => void route.continue() });
    });

    /** Lets the held counts through, one at a time, until `done`; never more than one is asked for at once. */
    const releaseUntil = (done: () => Promise<boolean>) =>
      expect
        .poll(async () => {
          expect(held.length).toBeLessThanOrEqual(1);
          held.shift()?.release();
          return done();
        })
        .toBe(true);

    await page.goto(`${app.origin}/app/compose`);
    await page.locator('#compose-text').waitFor();
    await page.check(`#pick-${x.id}`);
    await page.check(`#pick-${toots.id}`);
    const typed = `Read https://example.com/articles/${'a'.repeat(120)} with @alice@social.example.org`;
    await page.fill('#compose-text', typed);
    const onX = page.locator(`.counter[data-channel="${x.id}"]`);
    const onToots = page.locator(`.counter[data-channel="${toots.id}"]`);
    // Until the server answers, the browser's estimate: every character, against the platform's widest limit.
    await expect.poll(() => onX.innerText()).toBe(`${[...typed].length} / 25000 characters`);
    expect(await onX.getAttribute('data-counted')).toBe('estimate');
    expect(await onToots.innerText()).toBe(`${[...typed].length} / 100000 characters`);
    // The server's count replaces it: X weighs the link (and the bare domain of the mention) as 23 against this account's 280;
    // Mastodon counts the link as 23 and @alice@social.example.org as @alice, against the instance's 500.
    await releaseUntil(async () => (await onX.innerText()) === '64 / 280 characters');
    expect(asked.at(-1)!.sort()).toEqual([x.id, toots.id].sort());
    expect(await onX.getAttribute('data-counted')).toBe('server');
    await expect.poll(() => onToots.innerText()).toBe('40 / 500 characters');
    await screenshotsBothWidths(page, SHOTS, 'composer-counts');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Over X's limit: the estimate (under 25,000) does not know it; the server's count does, and says so to screen readers too.
    await page.fill('#compose-text', 'y'.repeat(300));
    await expect.poll(() => onX.innerText()).toBe('300 / 25000 characters');
    await releaseUntil(async () => (await onX.innerText()) === '300 / 280 characters — too long');
    expect(await page.locator('.readiness').innerText()).toContain('Birdsite: The text is 20 over the limit of 280.');
    expect(await page.locator(`.preview[aria-label="Preview on Birdsite"] [aria-live]`).innerText()).toBe(
      'Birdsite: the text is 20 over the limit of 280.',
    );
    await expect.poll(() => onToots.innerText()).toBe('300 / 500 characters');
    expect(await page.locator('button:has-text("Schedule")').isDisabled()).toBe(true);
    await screenshotsBothWidths(page, SHOTS, 'composer-counts-over');
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  }, 120_000);

  it('the text is rich: formats from the toolbar and the keyboard, the HTML the API stores, counted as the platform counts; alt text only where the platform takes it; an edit loads the stored HTML', async () => {
    const { email, workspace } = await app.owner('writer', 'Acme Bakery');
    const { context, page } = await app.signIn(email);
    const hook = await app.hookChannel(workspace.id, 'Hook', app.receiver.url);
    // Stored as given (the operator's path): nothing asks the instance, nothing is published here.
    const toots = await app.t.services.channels.create(workspace.id, {
      provider: 'mastodon',
      name: 'Toots',
      config: { instance: 'https://mastodon.example', accessToken: 'token-for-the-operator-path' },
    });

    await page.goto(`${app.origin}/app/compose`);
    await page.locator('#compose-text').waitFor();
    await page.check(`#pick-${hook.id}`);
    // Typed with the keyboard: bold by its shortcut, a list from the toolbar, a link by Ctrl+K.
    await page.click('#compose-text');
    await page.keyboard.type('Launch ');
    await page.keyboard.press('Control+b');
    await page.keyboard.type('day');
    await page.keyboard.press('Control+b');
    await page.keyboard.type(' is <b>near</b>');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Bulleted list' }).click();
    await page.keyboard.type('one');
    await page.keyboard.press('Enter');
    await page.keyboard.type('two');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Read ');
    await page.keyboard.press('Control+k');
    const address = page.getByLabel('Link address (web or e-mail)');
    await address.fill('javascript:alert(1)');
    await address.press('Enter');
    expect(await page.locator('.field-error').innerText()).toContain('web address');
    expect(await accessibilityProblems(page)).toEqual([]);
    await address.fill('example.com/launch');
    await address.press('Enter');
    // The editor takes the focus back in the next animation frame (the editor's own focus command), so wait for it.
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe('compose-text');
    const editor = page.locator('#compose-text');
    expect(await editor.locator('strong').innerText()).toBe('day');
    expect(await editor.locator('ul li').count()).toBe(2);
    expect(await editor.locator('a').getAttribute('href')).toBe('https://example.com/launch');
    expect(await editor.locator('b').count()).toBe(0);
    // The toolbar is one Tab stop: Alt+F10 reaches it from the text, the arrows move along it.
    await page.keyboard.press('Alt+F10');
    expect(await page.evaluate('document.activeElement.textContent')).toContain('Bold');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate('document.activeElement.textContent')).toContain('Italic');
    expect(await page.getByRole('button', { name: 'Bulleted list' }).getAttribute('tabindex')).toBe('-1');

    // The preview shows the text the platform takes, and the counter counts it as the server does.
    const preview = page.locator('.preview');
    const shown = 'Launch day is <b>near</b>\n\n- one\n- two\n\nRead https://example.com/launch';
    await expect.poll(() => preview.locator('.preview-text').innerText()).toBe(shown);

    // Alt text: not asked for while only the webhook is chosen; asked for, and sent to Mastodon alone, once Mastodon is.
    await dropFile(page, 'kite.png', png(64, 48), 'image/png');
    await page.locator('.attached li').waitFor();
    expect(await page.locator('#alt-0').count()).toBe(0);
    await page.check(`#pick-${toots.id}`);
    await page.locator('#alt-0').waitFor();
    expect(await page.locator('#alt-for').innerText()).toBe(
      'Alt text goes to Toots (up to 1500 characters); not to Hook, whose platform takes none.',
    );
    await page.fill('#alt-0', 'A red kite over a field');
    expect(await page.locator('.preview[aria-label="Preview on Toots"] .preview-media img').getAttribute('alt')).toBe(
      'A red kite over a field',
    );
    expect(await page.locator('.preview[aria-label="Preview on Hook"] .preview-media img').getAttribute('alt')).toBe('');
    await screenshotsBothWidths(page, SHOTS, 'composer-rich');
    expect(await accessibilityProblems(page)).toEqual([]);

    await page.click('button:has-text("Save as draft")');
    await expect.poll(() => page.locator('[role=status]').innerText()).toContain('Saved as a draft');
    const saved = await postsWith(page, 'Launch');
    expect(saved).toHaveLength(2);
    const onHook = saved.find((p) => (p.integration as { id: string }).id === hook.id)!;
    const onToots = saved.find((p) => (p.integration as { id: string }).id === toots.id)!;
    const stored = String(onHook.content);
    expect(stored).toBe(
      '<p>Launch <strong>day</strong> is &lt;b&gt;near&lt;/b&gt;</p><ul><li>one</li><li>two</li></ul><p>Read <a href="https://example.com/launch" rel="noopener noreferrer nofollow">https://example.com/launch</a></p>',
    );
    expect(htmlToPlainText(stored)).toBe(shown);
    const limits = (await app.api(page, 'GET', `/integration-settings/${hook.id}`)).body.textLimit as { max: number };
    expect(await page.locator(`.counter[data-channel="${hook.id}"]`).innerText()).toBe(`${[...shown].length} / ${limits.max} characters`);
    const image = (onToots.value as Array<{ image: Array<{ path: string }> }>)[0]!.image[0]!.path;
    expect(onToots.settings).toMatchObject({ alt: { [image]: 'A red kite over a field' } });
    expect(onHook.settings).not.toHaveProperty('alt');

    // Editing the stored post shows its formats again, and its alt text.
    await page.goto(`${app.origin}/app/posts/${encodeURIComponent(String(onToots.id))}/edit`);
    await expect.poll(() => editor.locator('strong').count()).toBe(1);
    expect(await editor.locator('ul li').count()).toBe(2);
    expect(await page.inputValue('#alt-0')).toBe('A red kite over a field');
    await expect.poll(() => preview.locator('.preview-text').innerText()).toBe(shown);

    // A week planned on both channels, seen in the calendar (the README's picture of it).
    const plan: Array<[number, number, string, 'schedule' | 'draft', string]> = [
      [1, 9, '<p>Three ways to plan a week of posts</p>', 'schedule', hook.id],
      [1, 14, '<p>Behind the scenes at the studio</p>', 'draft', toots.id],
      [2, 10, '<p>Customer story: the bakery on Main Street</p>', 'schedule', hook.id],
      [3, 11, '<p>Live Q&amp;A on Thursday</p>', 'schedule', hook.id],
      [4, 16, '<p>Weekend reading list</p>', 'draft', hook.id],
      [5, 9, '<p>Monday motivation</p>', 'schedule', hook.id],
      [6, 12, '<p>New feature: <strong>queues</strong></p>', 'draft', toots.id],
    ];
    for (const [days, hour, content, type, channel] of plan) {
      const date = new Date(Date.parse(tenOClock(days).iso) + (hour - 10) * 60 * 60_000).toISOString();
      const res = await app.api(page, 'POST', '/posts', {
        type,
        date,
        posts: [{ integration: { id: channel }, value: [{ content }] }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await page.goto(`${app.origin}/app`);
    await expect.poll(() => page.locator('.fc-event.post').count()).toBeGreaterThanOrEqual(plan.length);
    await screenshotsBothWidths(page, SHOTS, 'calendar-planned');
    await context.close();
  }, 240_000);
});
