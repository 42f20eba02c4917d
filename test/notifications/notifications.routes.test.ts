import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { accessOf, createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';

const clock = new ManualClock('2026-05-01T00:00:00.000Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});

describe('GET /public/v1/notifications', () => {
  it('pages newest first, 20 a page, from page zero, saying whether more exist', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    for (let i = 0; i < 45; i++) {
      clock.advance(1000);
      await t.services.notifications.notify(tenant.workspaceId, { kind: 'publish_failed', message: `failure ${i}`, postId: `p${i}` });
    }
    await t.services.notifications.notify(other.workspaceId, { kind: 'limit_warning', message: 'not yours' });
    const page = async (n?: number) =>
      (await t.request({ method: 'GET', url: `/public/v1/notifications${n === undefined ? '' : `?page=${n}`}`, key: tenant.key })).json();
    const first = await page();
    expect(first).toMatchObject({ page: 0, pageSize: 20, hasMore: true });
    expect(first.notifications[0]).toMatchObject({
      type: 'publish_failed',
      message: 'failure 44',
      postId: 'p44',
      createdAt: '2026-05-01T00:00:45.000Z',
    });
    expect((await page(1)).notifications[0].message).toBe('failure 24');
    const last = await page(2);
    expect(last).toMatchObject({ page: 2, hasMore: false });
    expect(last.notifications).toHaveLength(5);
    expect((await page(3)).notifications).toEqual([]);
  });

  it('keeps a deduplicated notification to one', async () => {
    const tenant = await createTenant(t);
    for (let i = 0; i < 3; i++)
      await t.services.notifications.notify(tenant.workspaceId, {
        kind: 'limit_warning',
        message: 'nearly',
        dedupeKey: 'posts-2026-05-80',
      });
    const body = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(body.notifications).toHaveLength(1);
  });

  it('refuses a page that is not a whole number from zero', async () => {
    const tenant = await createTenant(t);
    for (const page of ['-1', '1.5', 'two']) {
      expect((await t.request({ method: 'GET', url: `/public/v1/notifications?page=${page}`, key: tenant.key })).statusCode, page).toBe(
        400,
      );
    }
  });

  it('serves pages 0 to 499 only: how deep a request reaches is bounded', async () => {
    const tenant = await createTenant(t);
    expect((await t.request({ method: 'GET', url: '/public/v1/notifications?page=499', key: tenant.key })).json()).toMatchObject({
      page: 499,
      notifications: [],
      hasMore: false,
    });
    for (const page of ['500', '100000']) {
      const res = await t.request({ method: 'GET', url: `/public/v1/notifications?page=${page}`, key: tenant.key });
      expect(res.statusCode, page).toBe(400);
      expect(JSON.stringify(res.json().message), page).toMatch(/querystring\.page/);
    }
    await expect(t.services.notifications.list(await accessOf(t, tenant), 500)).rejects.toThrow(/newest 10000 notifications/);
  });

  it("a key limited to some channels sees their notifications and the workspace-wide ones, not other channels'", async () => {
    const tenant = await createTenant(t);
    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: ['ch-mine'] });
    await t.services.notifications.notify(tenant.workspaceId, {
      kind: 'publish_failed',
      message: 'mine',
      postId: 'p1',
      channelId: 'ch-mine',
    });
    await t.services.notifications.notify(tenant.workspaceId, {
      kind: 'publish_failed',
      message: 'theirs',
      postId: 'p2',
      channelId: 'ch-theirs',
    });
    await t.services.notifications.notify(tenant.workspaceId, { kind: 'limit_warning', message: 'workspace-wide' });
    const messages = async (key: string) =>
      ((await t.request({ method: 'GET', url: '/public/v1/notifications', key })).json().notifications as Array<{ message: string }>)
        .map((n) => n.message)
        .sort();
    expect(await messages(limited.key)).toEqual(['mine', 'workspace-wide']);
    expect(await messages(tenant.key)).toEqual(['mine', 'theirs', 'workspace-wide']);
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/notifications', scope: 'posts:read' });
});
