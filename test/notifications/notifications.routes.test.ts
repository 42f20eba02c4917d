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

describe('POST /public/v1/notifications/read and the unread count', () => {
  const list = async (key: string) => (await t.request({ method: 'GET', url: '/public/v1/notifications', key })).json();
  const read = (key: string, until?: string) =>
    t.request({ method: 'POST', url: '/public/v1/notifications/read', key, ...(until !== undefined && { payload: { until } }) });
  async function notifyMany(workspaceId: string, n: number, channelId: string | null = null): Promise<void> {
    for (let i = 0; i < n; i++) {
      clock.advance(1000);
      await t.services.notifications.notify(workspaceId, { kind: 'publish_failed', message: `failure ${i}`, channelId });
    }
  }

  it("counts the member's unread notifications, and marks them read up to one of them or the newest", async () => {
    const tenant = await createTenant(t);
    await notifyMany(tenant.workspaceId, 5);
    const before = await list(tenant.key);
    expect(before.unreadCount).toBe(5);
    expect(before.notifications.map((n: { unread: boolean }) => n.unread)).toEqual([true, true, true, true, true]);
    // Up to the third newest: it and the older ones are read.
    const third = before.notifications[2].id as string;
    const res = await read(tenant.key, third);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ unreadCount: 2, readUntil: third });
    const after = await list(tenant.key);
    expect(after.unreadCount).toBe(2);
    expect(after.notifications.map((n: { unread: boolean }) => n.unread)).toEqual([true, true, false, false, false]);
    // Marking an older one read changes nothing: the marker only moves forwards.
    expect((await read(tenant.key, before.notifications[4].id)).json()).toEqual({ unreadCount: 2, readUntil: third });
    // Without `until`: up to the newest.
    expect((await read(tenant.key)).json()).toEqual({ unreadCount: 0, readUntil: before.notifications[0].id });
    await notifyMany(tenant.workspaceId, 1);
    expect((await list(tenant.key)).unreadCount).toBe(1);
  });

  it('keeps one marker per member and workspace: their other keys count the same, other members their own', async () => {
    const tenant = await createTenant(t);
    const colleague = await createTenant(t, { workspaceId: tenant.workspaceId });
    const { secret: secondKey } = await t.services.apiKeys.create({
      userId: tenant.userId,
      kind: 'rest',
      channelIds: null,
      workspaceId: null,
    });
    await notifyMany(tenant.workspaceId, 3);
    expect((await read(tenant.key)).json().unreadCount).toBe(0);
    expect((await list(secondKey)).unreadCount).toBe(0);
    expect((await list(colleague.key)).unreadCount).toBe(3);
    // The same member in another workspace has a marker of its own there.
    const elsewhere = await t.services.workspaces.create({ name: 'Elsewhere' });
    await t.services.workspaces.addMember(elsewhere.id, tenant.userId, 'owner');
    await notifyMany(elsewhere.id, 2);
    const there = await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key, headers: { showorg: elsewhere.id } });
    expect(there.json().unreadCount).toBe(2);
    const here = await t.request({
      method: 'GET',
      url: '/public/v1/notifications',
      key: secondKey,
      headers: { showorg: tenant.workspaceId },
    });
    expect(here.json().unreadCount).toBe(0);
  });

  it('refuses an id from another workspace, or about a channel outside a limited key, as not found', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    await notifyMany(other.workspaceId, 1);
    const theirs = (await list(other.key)).notifications[0].id as string;
    expect((await read(tenant.key, theirs)).statusCode).toBe(404);
    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: ['ch-mine'] });
    await notifyMany(tenant.workspaceId, 1, 'ch-theirs');
    const hidden = (await list(tenant.key)).notifications[0].id as string;
    expect((await read(limited.key, hidden)).statusCode).toBe(404);
    expect((await list(limited.key)).unreadCount).toBe(0);
    expect((await read(tenant.key, 'no-such-id')).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'POST', url: '/public/v1/notifications/read', key: tenant.key, payload: { until: 'x', more: 1 } }))
        .statusCode,
    ).toBe(400);
  });

  it('counts up to 100 unread: 100 means 100 or more', async () => {
    const tenant = await createTenant(t);
    await notifyMany(tenant.workspaceId, 105);
    expect((await list(tenant.key)).unreadCount).toBe(100);
    expect((await read(tenant.key)).json().unreadCount).toBe(0);
  });

  runAuthMatrix(() => t, { method: 'POST', url: () => '/public/v1/notifications/read', scope: 'posts:read', body: {} });
});
