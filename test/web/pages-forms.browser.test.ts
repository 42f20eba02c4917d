import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { accessibilityProblems } from '../helpers/browser.ts';
import { ARTIFACTS, pageTour, WIDTHS } from './page-tour.ts';

/** The tour's pages reached through forms, a layout check and the API reference (the rest: pages-account and pages-public). */
const { visitor, pageAt, visitThrough } = pageTour();

describe('pages reached through a form', () => {
  it('the confirmation page of a destructive action', async () => {
    await visitThrough('confirm-revoke', async (page) => {
      await page.goto(`${visitor.origin}/account/keys`);
      await page.click('form[action$="/revoke"] button');
      await page.waitForSelector('#confirm-title');
    });
  });

  it('a webhook endpoint just added, its secret shown once; the confirmation of its deletion', async () => {
    await visitThrough('webhook-created', async (page) => {
      await page.goto(`${visitor.origin}/account/webhooks`);
      await page.fill('#webhook-url', 'https://new.example.test/in');
      await page.check('input[name="eventTypes"][value="post.published"]');
      await page.click('form[action="/account/webhooks"] button[type="submit"]');
      await page.waitForSelector('#new-secret');
    });
    await visitThrough('confirm-webhook-delete', async (page) => {
      await page.goto(`${visitor.origin}/account/webhooks`);
      await page.click('form[action$="/delete"] button');
      await page.waitForSelector('#confirm-title');
    });
  });

  it('the device pages: confirm the code, consent, connected, and the state after a reload', async () => {
    await visitThrough('device-flow', async (page) => {
      const started = await fetch(`${visitor.origin}/oauth/device/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: 'herald-cli', scope: 'posts:read', resource: `${visitor.origin}/public/v1` }).toString(),
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
    await page.goto(`${visitor.origin}/account/members`);
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
      const answer = await page.goto(`${visitor.origin}/docs`);
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
    const page = await (await fetch(`${visitor.origin}/account/keys`, { headers: { cookie: `herald_session=${visitor.session}` } })).text();
    expect(page).toContain('<a href="/docs">API reference</a>');
    expect(page).toContain('<a href="/developers">Developers</a>');
  });
});
