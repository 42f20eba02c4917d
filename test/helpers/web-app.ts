import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { recordProblems } from './browser.ts';
import { signInWithCode } from './account-pages.ts';
import type { TestApp } from './app.ts';
import { codeOf, type startMailServer } from './mail-server.ts';

type Mail = Awaited<ReturnType<typeof startMailServer>>;

/** A desktop-sized browser context in UTC, its page recording script errors and CSP violations. */
export async function appContext(
  browser: Browser,
  problems: { pageErrors: string[]; cspViolations: string[] },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC', locale: 'en-GB' });
  const page = recordProblems(await context.newPage(), problems);
  return { context, page };
}

/** Opens the app signed out, signs in with the code mailed over SMTP, and lands on the app's calendar. */
export async function signInToApp(page: Page, origin: string, mail: Mail, email: string): Promise<void> {
  await page.goto(`${origin}/app`);
  await page.waitForURL(/\/account\/sign-in\?next=%2Fapp/);
  await page.fill('#email', email);
  const waiting = mail.next(email);
  await Promise.all([page.waitForURL(/\/account\/sign-in\?email=/), page.click('button[type=submit]')]);
  await page.fill('#code', codeOf(await waiting));
  await Promise.all([page.waitForURL(/\/app$/), page.click('form[action="/account/sign-in/verify"] button[type=submit]')]);
  await page.locator('.fc').waitFor();
}

/** The REST API as the app calls it: the session's cookie (the context's) and, unless `csrf` is false, the page's CSRF token. */
export async function sessionApi(page: Page, origin: string, method: string, url: string, data?: unknown, csrf = true) {
  const token = await page.locator('meta[name="herald-csrf"]').getAttribute('content');
  const res = await page.request.fetch(`${origin}/public/v1${url}`, {
    method,
    headers: csrf ? { 'x-herald-csrf': token! } : {},
    ...(data !== undefined && { data }),
  });
  const text = await res.text();
  return { status: res.status(), body: (text ? JSON.parse(text) : null) as Record<string, unknown> & Array<Record<string, unknown>> };
}

/**
 * A browser context signed in as `email` (the mailed code, through the sign-in pages over HTTP;
 * the browser flow itself is in app.browser.test.ts), holding the session's cookies.
 */
export async function signedInContext(browser: Browser, t: TestApp, mail: Mail, origin: string, email: string): Promise<BrowserContext> {
  const agent = await signInWithCode(t, mail, email);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC', locale: 'en-GB' });
  await context.addCookies([...agent.cookies].map(([name, value]) => ({ name, value, url: origin })));
  return context;
}

/** Full-page screenshots at 1,440 and 390 px, light and dark, into `dir`; at neither width may the page be wider than the window. */
export async function screenshotsBothWidths(page: Page, dir: string, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
      await calendarLaidOut(page);
      await page.screenshot({ path: path.join(dir, `${name}-${width}-${scheme}.png`), fullPage: true });
      const sizes = (await page.evaluate(
        '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
      )) as {
        scroll: number;
        client: number;
      };
      expect(sizes.scroll, `${name} at ${width} px is wider than the window`).toBeLessThanOrEqual(sizes.client);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
  // What the test does next (a drag) aims at the calendar as laid out at this width.
  await calendarLaidOut(page);
}

/** Waits until the calendar, if the page has one, has laid itself out again after a resize (in its resize handler): its grids span its box. */
async function calendarLaidOut(page: Page): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(`(() => {
        const box = document.querySelector('.fc-view-harness');
        if (!box) return true;
        const width = box.getBoundingClientRect().width;
        return [...document.querySelectorAll('.fc-col-header, .fc-daygrid-body, .fc-timegrid-body')].every(
          (grid) => Math.abs(grid.getBoundingClientRect().width - width) < 20,
        );
      })()`),
    )
    .toBe(true);
}

/** The element's box once it has stopped moving (two animation frames apart): a drag aims at where it is, not where it was. */
async function settledBox(page: Page, locator: Locator) {
  let box = await locator.boundingBox();
  for (;;) {
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    const next = await locator.boundingBox();
    if (box && next && box.x === next.x && box.y === next.y && box.width === next.width && box.height === next.height) return next;
    box = next;
  }
}

/** Drops a file on the app's drop zone (the composer's or the media library's), as a person dragging it from their desktop does. */
export async function dropFile(page: Page, name: string, bytes: Buffer, type: string): Promise<void> {
  await page.evaluate(`(() => {
    const bytes = Uint8Array.from(atob(${JSON.stringify(bytes.toString('base64'))}), (c) => c.charCodeAt(0));
    const data = new DataTransfer();
    data.items.add(new File([bytes], ${JSON.stringify(name)}, { type: ${JSON.stringify(type)} }));
    const zone = document.querySelector('.drop-zone');
    zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  })()`);
}

/** A mouse drag from one element's middle to another's, in steps, as a person makes it (FullCalendar starts a drag after a few pixels). */
export async function drag(page: Page, from: Locator, to: Locator): Promise<void> {
  await to.scrollIntoViewIfNeeded();
  await from.scrollIntoViewIfNeeded();
  const a = await settledBox(page, from);
  const b = await settledBox(page, to);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 5, a.y + a.height / 2 + 5, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 20 });
  await page.mouse.up();
}
