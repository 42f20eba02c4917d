// Deleting a channel keeps its posts: drafts and history stay readable, nothing is published or
// scheduled on it, it leaves every channel listing and the plan's count, and connecting the same
// account again brings it back under the same id. Against a local server speaking the Bot API.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { createOk, getPost, postBody } from '../helpers/posts.ts';
import { FakeBotApi } from '../providers/telegram/fake-bot-api.ts';

const clock = new ManualClock('2026-11-23T08:00:00.000Z');
let t: TestApp;
let bot: FakeBotApi;
beforeAll(async () => {
  bot = await new FakeBotApi().start();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(() => bot.stop());

const NEWS = '-1001234567890';
const GROUP = '-1009876543210';
const inHours = (h: number) => new Date(clock.now().getTime() + h * 3_600_000).toISOString();

async function connect(tenant: Tenant, chatId: string) {
  return t.request({
    method: 'POST',
    url: '/public/v1/integrations/connect',
    key: tenant.key,
    payload: { provider: 'telegram', botToken: bot.token, chatId, apiBase: bot.url },
  });
}

async function connected(tenant: Tenant, chatId = NEWS) {
  const res = await connect(tenant, chatId);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { integration: { id: string; name: string }; reconnected: boolean };
}

async function listedIds(tenant: Tenant) {
  const res = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as Array<{ id: string }>).map((c) => c.id);
}

const remove = (tenant: Tenant, id: string, query = '') =>
  t.request({ method: 'DELETE', url: `/public/v1/integrations/${id}${query}`, key: tenant.key });
const setStatus = (tenant: Tenant, id: string, status: string) =>
  t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: tenant.key, payload: { status } });
const sentTexts = () => bot.calls.filter((c) => c.method === 'sendMessage').map((c) => String(c.params.text));

describe('deleting a channel', () => {
  it('with force keeps its scheduled posts as drafts, readable and deletable, and its published history', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const [published] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }, [{ content: '<p>Already out</p>' }]));
    await t.settle();
    expect((await getPost(t, tenant, published!.postId)).state).toBe('PUBLISHED');
    const [scheduled] = await createOk(t, tenant, postBody(integration.id, { date: inHours(2) }, [{ content: '<p>Kept as a draft</p>' }]));
    const [draft] = await createOk(t, tenant, postBody(integration.id, { type: 'draft', date: inHours(3) }));
    // Read once, so the channel list is kept by the API at this version.
    expect(await listedIds(tenant)).toEqual([integration.id]);

    const refused = await remove(tenant, integration.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'channel_has_scheduled_posts', posts: [scheduled!.postId] });
    const forced = await remove(tenant, integration.id, '?force=true');
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json()).toMatchObject({ id: integration.id, deleted: true });

    // Gone as a channel: from the (kept) list, the settings, the tools, a second delete.
    expect(await listedIds(tenant)).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/public/v1/integration-settings/${integration.id}`, key: tenant.key })).statusCode).toBe(
      404,
    );
    expect((await remove(tenant, integration.id)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PATCH', url: `/public/v1/integrations/${integration.id}`, key: tenant.key, payload: { name: 'x' } }))
        .statusCode,
    ).toBe(404);

    // Its posts stay, under the deleted channel's id and platform.
    const kept = await getPost(t, tenant, scheduled!.postId);
    expect(kept).toMatchObject({ state: 'DRAFT', integration: { id: integration.id, providerIdentifier: 'telegram' } });
    expect(await getPost(t, tenant, draft!.postId)).toMatchObject({ state: 'DRAFT' });
    expect(await getPost(t, tenant, published!.postId)).toMatchObject({ state: 'PUBLISHED', integration: { id: integration.id } });
    const window = await t.request({
      method: 'GET',
      url: `/public/v1/posts?startDate=${inHours(-1)}&endDate=${inHours(4)}`,
      key: tenant.key,
    });
    expect(window.statusCode, window.body).toBe(200);
    expect((window.json().posts as Array<{ id: string }>).map((p) => p.id).sort()).toEqual(
      [published!.postId, scheduled!.postId, draft!.postId].sort(),
    );

    // They cannot be scheduled again, nor can new posts be written for the channel: a 409 naming it.
    const schedule = await setStatus(tenant, scheduled!.postId, 'schedule');
    expect(schedule.statusCode).toBe(409);
    expect(schedule.json()).toMatchObject({ code: 'channel_deleted' });
    expect(schedule.json().msg).toContain(integration.id);
    expect(schedule.json().msg).toContain('Herald News');
    const fresh = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: postBody(integration.id, { date: inHours(5) }),
    });
    expect(fresh.statusCode).toBe(409);
    expect(fresh.json()).toMatchObject({ code: 'channel_deleted' });
    expect(fresh.json().msg).toMatch(/^posts\[0\]\.integration\.id: Channel /);
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${scheduled!.postId}/missing`, key: tenant.key })).statusCode).toBe(
      409,
    );

    // Nothing was sent for the draft when its date passed.
    clock.set(inHours(2.5));
    await t.settle();
    expect(sentTexts()).not.toContain('Kept as a draft');

    // And they can be deleted.
    expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${draft!.postId}`, key: tenant.key })).statusCode).toBe(200);
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}`, key: tenant.key })).statusCode).toBe(404);
  });

  it('without scheduled posts deletes the same way, keeping the drafts', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const [draft] = await createOk(t, tenant, postBody(integration.id, { type: 'draft', date: inHours(3) }));
    const res = await remove(tenant, integration.id);
    expect(res.statusCode, res.body).toBe(200);
    expect(await listedIds(tenant)).toEqual([]);
    expect(await getPost(t, tenant, draft!.postId)).toMatchObject({ state: 'DRAFT', integration: { id: integration.id } });
  });

  it('connecting the same account again restores the channel with the same id, its settings and its drafts', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const group = await t.services.groups.create(tenant.workspaceId, 'Acme');
    const patched = await t.request({
      method: 'PATCH',
      url: `/public/v1/integrations/${integration.id}`,
      key: tenant.key,
      payload: { name: 'News desk', group: group.id, preferredSettings: { disableNotification: true } },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    const [scheduled] = await createOk(t, tenant, postBody(integration.id, { date: inHours(2) }, [{ content: '<p>Back again</p>' }]));
    expect((await remove(tenant, integration.id, '?force=true')).statusCode).toBe(200);
    expect(await listedIds(tenant)).toEqual([]);

    const again = await connected(tenant);
    expect(again).toMatchObject({ reconnected: true, integration: { id: integration.id, name: 'News desk' } });
    expect(await listedIds(tenant)).toEqual([integration.id]);
    const settings = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${integration.id}`, key: tenant.key });
    expect(settings.statusCode).toBe(200);
    expect(settings.json()).toMatchObject({ preferredSettings: { disableNotification: true } });
    const inGroup = await t.request({ method: 'GET', url: `/public/v1/integrations?group=${group.id}`, key: tenant.key });
    expect((inGroup.json() as Array<{ id: string }>).map((c) => c.id)).toEqual([integration.id]);

    // Its draft is back on the channel and can be scheduled and published again.
    expect((await setStatus(tenant, scheduled!.postId, 'schedule')).statusCode).toBe(200);
    clock.set(inHours(2));
    await t.settle();
    expect(await getPost(t, tenant, scheduled!.postId)).toMatchObject({ state: 'PUBLISHED' });
    expect(sentTexts()).toContain('Back again');
  });

  it('a deleted channel does not count against the plan, and restoring it counts again (402 when full)', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 1 });
    const { integration } = await connected(tenant);
    expect((await connect(tenant, GROUP)).statusCode).toBe(402);
    expect((await remove(tenant, integration.id)).statusCode).toBe(200);

    const other = await connected(tenant, GROUP);
    expect(other.reconnected).toBe(false);
    expect(other.integration.id).not.toBe(integration.id);
    const restore = await connect(tenant, NEWS);
    expect(restore.statusCode).toBe(402);
    expect(await listedIds(tenant)).toEqual([other.integration.id]);

    expect((await remove(tenant, other.integration.id)).statusCode).toBe(200);
    expect((await connected(tenant, NEWS)).integration.id).toBe(integration.id);
    expect(await listedIds(tenant)).toEqual([integration.id]);
  });

  it('a due post of a deleted channel is never published, by the engine or the sweep', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const [due] = await createOk(t, tenant, postBody(integration.id, { date: inHours(1) }, [{ content: '<p>Must not go out</p>' }]));
    // A deletion that raced the scheduling: the channel is marked, the post is still queued.
    await sql`update channels set deleted_at = ${clock.now().toISOString()} where id = ${integration.id}`.execute(t.runtime.db);
    clock.set(inHours(1));
    await t.settle();
    await t.publisher.sweep();
    await t.settle();
    expect(sentTexts()).not.toContain('Must not go out');
    expect(await getPost(t, tenant, due!.postId)).toMatchObject({ state: 'DRAFT' });
  });

  it('the operator can still remove a deleted channel for good, with its posts', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const [draft] = await createOk(t, tenant, postBody(integration.id, { type: 'draft', date: inHours(3) }));
    await t.services.channels.delete(tenant.workspaceId, integration.id);
    await t.services.channels.delete(tenant.workspaceId, integration.id, { purge: true });
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}`, key: tenant.key })).statusCode).toBe(404);
    // Nothing to restore: the same account makes a new channel.
    expect((await connected(tenant)).reconnected).toBe(false);
  });
});
