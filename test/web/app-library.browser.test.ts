import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { unique } from '../helpers/app.ts';
import { accessibilityProblems } from '../helpers/browser.ts';
import { multipart, png } from '../helpers/media-files.ts';
import { dropFile, screenshotsBothWidths } from '../helpers/web-app.ts';
import { appSuite } from './browser-suite.ts';

/**
 * The web app's media library, channels, notifications and analytics in real headless Chromium
 * against the real server on loopback: each view works through the public API with the session;
 * names holding markup stay text; a viewer sees no destructive button and the API refuses them.
 * axe-core on every view; screenshots at 390 and 1,440 px, light and dark, go to /tmp/herald-shots/library.
 */
const SHOTS = '/tmp/herald-shots/library';
const MARKUP = (id: string) => `<img src=x id=${id}>Hook & <b>Co</b>`;

const app = appSuite({ artifacts: SHOTS, receiver: true });

/** Nothing the names hold became an element. */
async function noInjected(page: Page): Promise<void> {
  expect(await page.locator('[id^=injected]').count()).toBe(0);
}

describe('the web app: media, channels, notifications, analytics', () => {
  it('an owner uses every view through the API; markup in names stays text; a viewer sees no destructive button and the API refuses them', async () => {
    const workspaceName = unique(MARKUP('injected-workspace'));
    const { email, workspace } = await app.owner('owner', workspaceName);
    const group = await app.t.services.groups.create(workspace.id, MARKUP('injected-group'));

    // Channels: connect a webhook through the form, with a name holding markup.
    const page = await app.open(email, '/app/channels');
    await page.locator('h1', { hasText: 'Channels' }).waitFor();
    await expect.poll(() => page.locator('main').innerText()).toContain('No channel yet');
    expect(await page.title()).toBe('Channels · Herald');
    expect(await page.locator('header nav a[aria-current=page]').innerText()).toBe('Channels');
    // The form is the API's (GET /providers): Discord offers a webhook or a bot, each with its own fields; secrets are hidden as typed.
    await page.selectOption('#connect-platform', 'discord');
    expect(await page.locator('#connect-way option').allInnerTexts()).toEqual(['A channel webhook', 'A bot']);
    expect(await page.locator('#connect-webhookUrl').getAttribute('type')).toBe('password');
    await page.selectOption('#connect-way', '1');
    await page.locator('#connect-botToken').waitFor();
    expect(await page.locator('#connect-channelId').getAttribute('required')).not.toBeNull();
    await page.selectOption('#connect-platform', 'webhook');
    expect(await page.locator('.more-fields summary').innerText()).toContain('Signing secret');
    await page.fill('#connect-url', app.receiver.url);
    await page.fill('#connect-name', MARKUP('injected-channel'));
    await page.selectOption('#connect-group', group.id);
    await page.click('.connect-form button[type=submit]');
    const card = page.locator('.channel-card').first();
    await expect.poll(() => card.locator('.name').innerText()).toBe(MARKUP('injected-channel'));
    expect(await page.locator('.banner.good code').innerText()).toMatch(/^whsec_/);
    expect(await card.innerText()).toContain('Active');
    expect(await card.innerText()).toContain(MARKUP('injected-group'));
    await noInjected(page);
    const [channel] = (await app.api(page, 'GET', '/integrations')).body;
    expect(channel!.name).toBe(MARKUP('injected-channel'));
    expect((channel!.customer as { id: string }).id).toBe(group.id);
    await screenshotsBothWidths(page, SHOTS, 'channels');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Rename it, take it out of its group and give it a preferred title (a form from the platform's settings schema); the API has the change.
    await card.locator('button', { hasText: 'Edit' }).click();
    await card.locator('input[id^=name-]').fill('Launch hook');
    await card.locator('select[id^=group-]').selectOption('');
    const preferredTitle = card.locator(`#preferred-${String(channel!.id)}-title`);
    await preferredTitle.fill('From the channel');
    await screenshotsBothWidths(page, SHOTS, 'channel-editor');
    expect(await accessibilityProblems(page)).toEqual([]);
    await card.locator('.channel-editor button[type=submit]').click();
    await expect.poll(() => page.locator('.channels-view > [role=status]').innerText()).toBe('Launch hook is saved.');
    const renamed = (await app.api(page, 'GET', '/integrations')).body[0]!;
    expect(renamed.name).toBe('Launch hook');
    expect(renamed.customer).toBeNull();
    const preferred = (await app.api(page, 'GET', `/integration-settings/${String(channel!.id)}`)).body;
    expect(preferred.preferredSettings).toEqual({ title: 'From the channel' });
    // Opened again, the form shows the channel's preferred settings as the API answers them.
    await card.locator('button', { hasText: 'Edit' }).click();
    await expect.poll(() => preferredTitle.inputValue()).toBe('From the channel');
    await card.locator('button', { hasText: 'Edit' }).click();
    // A channel the platform stopped accepting says so in words; Reconnect (the same credentials, checked again) enables it.
    await app.t.runtime.db
      .updateTable('channels')
      .set({ disabled: 1, disabled_reason: 'needs_reconnect' })
      .where('id', '=', String(channel!.id))
      .execute();
    await page.reload();
    await expect.poll(() => card.locator('.tag').innerText()).toBe('Needs reconnecting');
    await card.locator('button', { hasText: 'Reconnect' }).click();
    await expect.poll(() => card.locator('.tag').innerText()).toBe('Active');
    expect((await app.api(page, 'GET', '/integrations')).body[0]!.disabled).toBe(false);

    // Media: upload two images, one (named with markup) with the file button, one dropped on the drop zone; both show in the grid.
    await page.goto(`${app.origin}/app/media`);
    await page.locator('h1', { hasText: 'Media library' }).waitFor();
    await expect.poll(() => page.locator('main').innerText()).toContain('The library is empty');
    const markupFile = '<img src=x id=injected-file onerror=alert(1)> & co.png'; // no slash: a browser sends the last path segment
    await page.setInputFiles('input[type=file]', [{ name: markupFile, mimeType: 'image/png', buffer: png(40, 30) }]);
    await expect.poll(() => page.locator('.media-card').count()).toBe(1);
    await dropFile(page, 'sunrise.png', png(60, 40, [20, 90, 200]), 'image/png');
    await expect.poll(() => page.locator('.media-card').count()).toBe(2);
    expect(await page.locator('.media-card .name').allInnerTexts()).toEqual(['sunrise.png', markupFile]);
    await noInjected(page);
    // Thumbnails load (the CSP allows the media's address).
    await expect
      .poll(() => page.evaluate('[...document.querySelectorAll(".media-card img")].every((i) => i.complete && i.naturalWidth > 0)'))
      .toBe(true);
    // Search by name, through the API's `search`.
    await page.fill('input[type=search]', 'SUNRISE');
    await expect.poll(() => page.locator('.media-card .name').allInnerTexts()).toEqual(['sunrise.png']);
    await page.fill('input[type=search]', '');
    await expect.poll(() => page.locator('.media-card').count()).toBe(2);

    // An upload link: create it, a person sends a file through its page, and it shows up here.
    await page.click('.upload-link summary');
    await page.click('text=Create an upload link');
    const linkUrl = await page.locator('.upload-link code').innerText();
    expect(linkUrl).toMatch(/\/u\//);
    const body = multipart([{ name: 'file', filename: 'from-the-client.png', contentType: 'image/png', data: png(20, 20, [0, 200, 0]) }]);
    const sent = await fetch(`${linkUrl}/files`, { method: 'POST', headers: body.headers, body: body.payload });
    expect(sent.status).toBe(200);
    await expect.poll(() => page.locator('.upload-link .arrived').innerText(), { timeout: 15_000 }).toContain('from-the-client.png');
    await expect.poll(() => page.locator('.media-card').count()).toBe(3);
    await screenshotsBothWidths(page, SHOTS, 'media');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Delete one (after the confirmation); the API no longer lists it.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('.media-card', { hasText: 'sunrise.png' }).locator('button.danger').click();
    await expect.poll(() => page.locator('.media-card').count()).toBe(2);
    const library = (await app.api(page, 'GET', '/media')).body as unknown as { results: Array<{ name: string }> };
    expect(library.results.map((m) => m.name)).toEqual(['from-the-client.png', markupFile]);

    // Notifications: the header counts the unseen ones; the list links to what each is about.
    await app.t.services.notifications.notify(workspace.id, {
      kind: 'channel_disconnected',
      message: `${MARKUP('injected-notification')} needs reconnecting`,
      channelId: String(channel!.id),
    });
    await page.goto(`${app.origin}/app`);
    const badge = page.locator('header nav a[href="/app/notifications"] .unread');
    await expect.poll(() => badge.innerText()).toBe('1');
    await page.click('header nav a[href="/app/notifications"]');
    await page.locator('.notification').first().waitFor();
    const note = page.locator('.notification').first();
    expect(await note.innerText()).toContain(`${MARKUP('injected-notification')} needs reconnecting`);
    expect(await note.locator('a').getAttribute('href')).toBe(`/app/channels#channel-${String(channel!.id)}`);
    await noInjected(page);
    await expect.poll(() => badge.count()).toBe(0);
    // Read is the member's, on the server: after one more, another browser of theirs counts that one only; the API agrees.
    await app.t.services.notifications.notify(workspace.id, { kind: 'limit_warning', message: 'Nearly at the plan limit' });
    const elsewhere = await app.open(email, '/app');
    await expect.poll(() => elsewhere.locator('header nav a[href="/app/notifications"] .unread').innerText()).toBe('1');
    expect((await app.api(elsewhere, 'GET', '/notifications')).body.unreadCount).toBe(1);
    await elsewhere.context().close();
    await screenshotsBothWidths(page, SHOTS, 'notifications');
    expect(await accessibilityProblems(page)).toEqual([]);

    // Analytics: the workspace's numbers over a range, then one channel's.
    await page.goto(`${app.origin}/app/analytics`);
    await page.locator('.totals').waitFor();
    expect(await page.locator('main').innerText()).toContain('No published post with numbers in this range.');
    await page.selectOption('.analytics-view select >> nth=2', String(channel!.id));
    await page.locator('.chart figcaption', { hasText: 'per day on Launch hook' }).waitFor();
    await page.selectOption('.analytics-view select >> nth=0', '7');
    await expect.poll(() => page.locator('.chart details tr').count()).toBe(7); // the last 7 UTC days, today's included;
    await screenshotsBothWidths(page, SHOTS, 'analytics');
    expect(await accessibilityProblems(page)).toEqual([]);

    // The workspace's name holds markup: the header shows it as text.
    expect(await page.locator('header').innerText()).toContain(workspaceName);
    await noInjected(page);

    // A viewer: no connect form, no channel or media buttons; the API refuses the same things.
    const viewer = await app.open((await app.member(workspace.id, 'viewer')).email, '/app/channels');
    await expect.poll(() => viewer.locator('.channel-card').count()).toBe(1);
    expect(await viewer.locator('main button, .connect-form').count()).toBe(0);
    expect(await viewer.locator('main').innerText()).toContain('an owner or an admin connects and changes them');
    expect((await app.api(viewer, 'DELETE', `/integrations/${String(channel!.id)}`)).status).toBe(403);
    expect((await app.api(viewer, 'PATCH', `/integrations/${String(channel!.id)}`, { name: 'x' })).status).toBe(403);
    await screenshotsBothWidths(viewer, SHOTS, 'channels-viewer');
    expect(await accessibilityProblems(viewer)).toEqual([]);
    await viewer.goto(`${app.origin}/app/media`);
    await viewer.locator('main', { hasText: 'cannot use the media library' }).waitFor();
    expect(await viewer.locator('main button').count()).toBe(0);
    expect((await app.api(viewer, 'POST', '/upload-link')).status).toBe(403);
    const fileId = (library.results[0] as unknown as { id: string }).id;
    expect((await app.api(viewer, 'DELETE', `/media/${fileId}`)).status).toBe(403);
    expect(await accessibilityProblems(viewer)).toEqual([]);

    // Back as the owner: delete the channel (confirmed); it shows as deleted and leaves the API's list.
    await page.goto(`${app.origin}/app/channels`);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.locator('.channel-card button.danger').click();
    await page.locator('.channel-card.gone').waitFor();
    expect(await page.locator('.channel-card.gone').innerText()).toContain('Deleted');
    expect((await app.api(page, 'GET', '/integrations')).body).toEqual([]);
  }, 240_000);
});
