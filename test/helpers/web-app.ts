import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { signInWithCode } from './account-pages.ts';
import type { startMailServer } from './mail-server.ts';

/** The REST API as the web app calls it: the session's cookie (the page's context) and the page's CSRF token (unless `csrf` is false). */
export async function apiCall(page: Page, origin: string, method: string, url: string, data?: unknown, csrf = true) {
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
export async function signedInContext(
  browser: Browser,
  t: TestApp,
  mail: Awaited<ReturnType<typeof startMailServer>>,
  origin: string,
  email: string,
): Promise<BrowserContext> {
  const agent = await signInWithCode(t, mail, email);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC', locale: 'en-GB' });
  await context.addCookies([...agent.cookies].map(([name, value]) => ({ name, value, url: origin })));
  return context;
}

/**
 * Screenshots at 1,440 and 390 px, light and dark, into `dir`; at neither width may the page be
 * wider than the window. `settled` waits for the page to lay itself out again after a resize.
 */
export async function screenshotsAtBothWidths(page: Page, dir: string, name: string, settled?: () => Promise<void>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width > 600 ? 900 : 844 });
      await settled?.();
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
}
