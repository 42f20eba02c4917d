import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { launchChromium, BROWSER_TEST_MS } from '../helpers/browser.ts';
import { gif, jpeg, png } from '../helpers/media-files.ts';

vi.setConfig({ testTimeout: BROWSER_TEST_MS });

/**
 * The signed-out upload page in real headless Chromium (Debian's `chromium`), against the
 * real server on loopback. Screenshots of each state go to test-artifacts/upload-page/.
 */
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/upload-page/', import.meta.url));
const TWO_HOURS = 2 * 3600_000;

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const clock = new ManualClock('2026-07-01T09:00:00.000Z');
let t: TestApp;
let origin: string;
let browser: Browser;
/** Requests the browser tried to send anywhere but this server: must stay empty. */
const strayRequests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await createTestApp({ clock, env: { BASE_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  expect(strayRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
});

async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 }, ...options });
  const page = await context.newPage();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'blob:' && url.protocol !== 'data:' && url.origin !== origin) strayRequests.push(request.url());
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // Chrome reports every 4xx answer as "Failed to load resource"; the refusals below are meant.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
  return { context, page };
}

async function createLink(tenant: Tenant) {
  const res = await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; url: string; expiresAt: string };
}

async function contents(tenant: Tenant, id: string) {
  return (await t.request({ method: 'GET', url: `/public/v1/upload-link/${id}`, key: tenant.key })).json();
}

type Row = { name: string; state: string; status: string; progress: number | null; thumbnail: { src: string; width: number } | null };

/**
 * The rows of the page's file list, as a person reads them. Code that runs in the page goes
 * through Playwright's protocol calls (not eval, which the page's CSP rightly forbids).
 */
async function rows(page: Page): Promise<Row[]> {
  return page.locator('#files li').evaluateAll((items) =>
    items.map((li) => {
      const thumb = li.querySelector('.thumb');
      const bar = li.querySelector('progress');
      return {
        name: li.querySelector('.name').textContent,
        state: li.className.replace('file', '').trim() || 'pending',
        status: li.querySelector('.status').firstChild?.textContent,
        progress: bar ? bar.value : null,
        thumbnail: thumb && thumb.tagName === 'IMG' ? { src: thumb.currentSrc, width: thumb.naturalWidth } : null,
      };
    }),
  );
}

function countOf(page: Page, selector: string) {
  return () => page.locator(selector).count();
}

describe('upload page in Chromium', () => {
  it('a person picks two files, sees both uploaded with thumbnails, and the API reports them', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    expect(link.url.startsWith(`${origin}/u/`)).toBe(true);
    const { context, page } = await newPage();
    await page.goto(link.url);
    expect(await page.title()).toBe('Send files');
    await expect.poll(() => page.textContent('#until')).not.toBe('');
    await page.screenshot({ path: path.join(ARTIFACTS, '1-empty.png'), fullPage: true });

    await page.setInputFiles('#picker', [
      { name: 'beach.png', mimeType: 'image/png', buffer: png(64, 40, [30, 140, 220]) },
      { name: 'portrait.jpg', mimeType: 'image/jpeg', buffer: jpeg(48, 64, 90) },
    ]);
    await expect.poll(countOf(page, '#files li.done'), { timeout: 20_000 }).toBe(2);
    await expect
      .poll(() => page.locator('#files img.thumb').evaluateAll((images) => images.every((img) => img.complete && img.naturalWidth > 0)))
      .toBe(true);
    expect(await page.textContent('#count')).toBe('2 files uploaded.');
    await page.screenshot({ path: path.join(ARTIFACTS, '2-two-files-uploaded.png'), fullPage: true });

    const listed = await rows(page);
    expect(listed.map((r) => [r.name, r.state, r.status, r.progress]).sort()).toEqual([
      ['beach.png', 'done', 'Uploaded', 100],
      ['portrait.jpg', 'done', 'Uploaded', 100],
    ]);
    const api = await contents(tenant, link.id);
    expect(api).toMatchObject({ id: link.id, status: 'ready', count: 2 });
    expect(api.files.map((f: { name: string }) => f.name).sort()).toEqual(['beach.png', 'portrait.jpg']);
    // The thumbnails are the hosted files themselves, decoded by the browser.
    for (const row of listed) {
      const file = api.files.find((f: { name: string; path: string }) => f.name === row.name);
      expect(row.thumbnail).toEqual({ src: file.path, width: row.name === 'beach.png' ? 64 : 48 });
    }

    // A reload shows what already arrived.
    await page.reload();
    await expect.poll(countOf(page, '#files li.done')).toBe(2);
    await context.close();
  }, 60_000);

  it('explains a file that is too large or of the wrong type, and takes a dropped file', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    const { context, page } = await newPage();
    await page.goto(link.url);
    await page.setInputFiles('#picker', [
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('just text') },
      { name: 'huge.png', mimeType: 'image/png', buffer: png(2, 2, [1, 2, 3], 10 * 1024 * 1024) },
      { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<!doctype html><p>not a picture</p>') },
    ]);
    await expect.poll(countOf(page, '#files li.failed'), { timeout: 20_000 }).toBe(3);

    // Drag and drop, the way a desktop browser delivers it.
    await page.locator('#drop').evaluate((zone, base64) => {
      const win = zone.ownerDocument.defaultView;
      const bytes = win.Uint8Array.from(win.atob(base64), (c: string) => c.charCodeAt(0));
      const transfer = new win.DataTransfer();
      transfer.items.add(new win.File([bytes], 'dropped.gif', { type: 'image/gif' }));
      zone.dispatchEvent(new win.DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new win.DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, gif(12, 12).toString('base64'));
    await expect.poll(countOf(page, '#files li.done'), { timeout: 20_000 }).toBe(1);

    const byName = Object.fromEntries((await rows(page)).map((r) => [r.name, r]));
    expect(byName['notes.txt']).toMatchObject({
      state: 'failed',
      status: 'Not a supported type. Accepted: JPEG, PNG, GIF, WEBP, AVIF, BMP or TIFF images, or MP4 videos.',
    });
    expect(byName['huge.png']).toMatchObject({
      state: 'failed',
      status: 'Too large: images can be at most 10 MB (this file is just over 10 MB).',
    });
    // A file the server refused shows no broken preview.
    await expect.poll(async () => (await rows(page)).find((r) => r.name === 'fake.png')!.thumbnail).toBeNull();
    // The server's own refusal, for a file the browser could not judge by its name.
    expect(byName['fake.png']).toMatchObject({
      state: 'failed',
      status: expect.stringMatching(/^The file "fake\.png" is not a recognised image or video\. Accepted: /),
    });
    expect(byName['dropped.gif']).toMatchObject({ state: 'done', status: 'Uploaded', progress: 100 });
    expect(await contents(tenant, link.id)).toMatchObject({ status: 'ready', count: 1, files: [{ name: 'dropped.gif' }] });
    await page.screenshot({ path: path.join(ARTIFACTS, '3-refusals-and-drop.png'), fullPage: true });
    await context.close();
  }, 60_000);

  it('works on a phone-sized touch screen', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    const { context, page } = await newPage({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    await page.goto(link.url);
    const button = await page.locator('#drop').boundingBox();
    expect(button!.width).toBeLessThanOrEqual(390);
    await page.setInputFiles('#picker', [{ name: 'IMG_0042.jpg', mimeType: 'image/jpeg', buffer: jpeg(40, 30, 150) }]);
    await expect.poll(countOf(page, '#files li.done'), { timeout: 20_000 }).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, '4-phone.png'), fullPage: true });
    expect(await contents(tenant, link.id)).toMatchObject({ count: 1 });
    await context.close();
  }, 60_000);

  it('after two hours the link shows the expired page; an open page says so on its next upload', async () => {
    const tenant = await createTenant(t);
    const link = await createLink(tenant);
    const { context, page } = await newPage();
    await page.goto(link.url);
    clock.advance(TWO_HOURS);

    await page.setInputFiles('#picker', [{ name: 'late.png', mimeType: 'image/png', buffer: png(8, 8, [200, 0, 0]) }]);
    await page.waitForSelector('#banner:not([hidden])');
    expect(await page.textContent('#banner')).toBe('This upload link has expired; ask for a new one.');
    expect(await page.locator('#drop').isVisible()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, '5-expired-while-open.png'), fullPage: true });

    const answer = await page.goto(link.url);
    expect(answer!.status()).toBe(410);
    expect(await page.textContent('h1')).toBe('This link has expired');
    expect(await page.textContent('main p')).toBe('Upload links work for two hours. Ask the person who sent it to you for a new one.');
    await page.screenshot({ path: path.join(ARTIFACTS, '6-expired.png'), fullPage: true });
    expect(await contents(tenant, link.id)).toMatchObject({ status: 'empty', count: 0 });
    await context.close();
  }, 60_000);
});
