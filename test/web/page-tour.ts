import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { beforeAll, expect } from 'vitest';
import { accessOf, createTenant, TEST_WEBHOOK_SECRET } from '../helpers/app.ts';
import { accessibilityProblems } from '../helpers/browser.ts';
import { createPerson } from '../oauth/helpers.ts';
import { browserSuite } from './browser-suite.ts';

/**
 * The tour of the server-rendered pages, shared by the files that take it in parts
 * (`pages-*.browser.test.ts`, run side by side): every kind of page in real headless Chromium
 * (Debian's `chromium`) against the real server on loopback, at a phone's (390 px) and a desktop's
 * (1,440 px) width, with a workspace that fills every page's controls. Nothing sticks out, and the
 * screenshots (test-artifacts/pages/) show one look.
 */
export const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/pages/', import.meta.url));
export const WIDTHS = [390, 1440];

/** Who visits, and where: filled in once the workspace, its key and an upload link exist. */
export interface Visitor {
  origin: string;
  session: string;
  uploadPath: string;
}

/** Registers the file's hooks (a server, Chromium, the seeded workspace) and returns the tour's helpers. */
export function pageTour() {
  const suite = browserSuite({ artifacts: ARTIFACTS });
  const visitor: Visitor = { origin: '', session: '', uploadPath: '' };

  /** A fresh browser page `width` px wide (a phone's below 500 px), signed in with `session` if given, its problems recorded. */
  async function pageAt(width: number, session?: string): Promise<Page> {
    const page = await suite.newPage({
      viewport: { width, height: 900 },
      ...(width < 500 && { isMobile: true, hasTouch: true, deviceScaleFactor: 2 }),
    });
    if (session) await page.context().addCookies([{ name: 'herald_session', value: session, url: visitor.origin }]);
    return page;
  }

  /** Opens `url` at each width (signed in with `session` if given), saves a screenshot, and returns what the page shows of the shell. */
  async function visit(name: string, url: string, session?: string) {
    const seen: Array<{ width: number; scroll: number; client: number; brand: string | null; stylesheets: number }> = [];
    for (const width of WIDTHS) {
      const page = await pageAt(width, session);
      await page.goto(`${visitor.origin}${url}`);
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

  // The workspace every page shows: keys, apps, members, an invitation, webhook endpoints, a post awaiting approval.
  beforeAll(async () => {
    const t = suite.t;
    visitor.origin = suite.origin;
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

  return { visitor, pageAt, visit, visitThrough };
}
