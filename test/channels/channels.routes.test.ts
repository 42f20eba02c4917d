import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

async function channel(workspaceId: string, name: string, extra: { groupId?: string; profile?: string; picture?: string } = {}) {
  // Lists are in creation order, then by id: each channel of these tests is created in a millisecond of its own.
  const last = Date.now();
  while (Date.now() === last) await new Promise((resolve) => setImmediate(resolve));
  return t.services.channels.create(workspaceId, {
    provider: 'webhook',
    name,
    config: { url: 'https://example.test/hook', secret: TEST_WEBHOOK_SECRET },
    ...extra,
  });
}

describe('GET /public/v1/integrations', () => {
  it("lists the workspace's channels in the spec's shape", async () => {
    const tenant = await createTenant(t);
    const group = await t.services.groups.create(tenant.workspaceId, 'Acme');
    const a = await channel(tenant.workspaceId, 'Alpha', {
      groupId: group.id,
      profile: '@alpha',
      picture: 'https://cdn.example.test/a.png',
    });
    const b = await channel(tenant.workspaceId, 'Beta');
    const res = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: a.id,
        name: 'Alpha',
        identifier: 'webhook',
        picture: 'https://cdn.example.test/a.png',
        disabled: false,
        disabledReason: null,
        profile: 'alpha',
        customer: { id: group.id, name: 'Acme' },
      },
      {
        id: b.id,
        name: 'Beta',
        identifier: 'webhook',
        picture: 'http://herald.test/assets/channel.svg',
        disabled: false,
        disabledReason: null,
        profile: '',
        customer: null,
      },
    ]);
  });

  it("never shows another workspace's channels", async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    await channel(theirs.workspaceId, 'Theirs');
    const res = await t.request({ method: 'GET', url: '/public/v1/integrations', key: mine.key });
    expect(res.json()).toEqual([]);
  });

  it('filters by client group', async () => {
    const tenant = await createTenant(t);
    const group = await t.services.groups.create(tenant.workspaceId, 'Acme');
    const inGroup = await channel(tenant.workspaceId, 'In', { groupId: group.id });
    await channel(tenant.workspaceId, 'Out');
    const res = await t.request({ method: 'GET', url: `/public/v1/integrations?group=${group.id}`, key: tenant.key });
    expect((res.json() as Array<{ id: string }>).map((c) => c.id)).toEqual([inGroup.id]);
  });

  it("answers 404 alike for a missing group and another workspace's group", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const foreign = await t.services.groups.create(other.workspaceId, 'Foreign');
    const missing = await t.request({ method: 'GET', url: '/public/v1/integrations?group=nope', key: tenant.key });
    const theirs = await t.request({ method: 'GET', url: `/public/v1/integrations?group=${foreign.id}`, key: tenant.key });
    expect(missing.statusCode).toBe(404);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().code).toBe(missing.json().code);
  });

  it('a channel-limited key sees only its channels, without a 403', async () => {
    const owner = await createTenant(t);
    const a = await channel(owner.workspaceId, 'A');
    await channel(owner.workspaceId, 'B');
    const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [a.id] });
    const res = await t.request({ method: 'GET', url: '/public/v1/integrations', key: limited.key });
    expect(res.statusCode).toBe(200);
    expect((res.json() as Array<{ id: string }>).map((c) => c.id)).toEqual([a.id]);
  });

  it('rejects an empty group filter as a validation error', async () => {
    const tenant = await createTenant(t);
    const res = await t.request({ method: 'GET', url: '/public/v1/integrations?group=', key: tenant.key });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: [expect.stringContaining('querystring.group')] });
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/integrations', scope: 'channels:read' });
});

describe('GET /public/v1/groups', () => {
  it("lists the workspace's client groups only", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    await t.services.groups.create(other.workspaceId, 'Foreign');
    const b = await t.services.groups.create(tenant.workspaceId, 'Beta');
    const a = await t.services.groups.create(tenant.workspaceId, 'Alpha');
    const res = await t.request({ method: 'GET', url: '/public/v1/groups', key: tenant.key });
    expect(res.json()).toEqual([a, b]);
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/groups', scope: 'channels:read' });
});

describe('channel plan quota', () => {
  it('refuses a channel over the plan with 402', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 1 });
    await channel(tenant.workspaceId, 'First');
    await expect(channel(tenant.workspaceId, 'Second')).rejects.toMatchObject({ statusCode: 402 });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes).toEqual([
      expect.objectContaining({ type: 'limit_warning', message: 'All 1 channels of the plan are in use; no more can be connected.' }),
    ]);
  });

  it('warns once when the channel quota is nearly used', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 5 });
    for (let i = 0; i < 4; i++) await channel(tenant.workspaceId, `C${i}`);
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes.map((n: { message: string }) => n.message)).toEqual(['4 of the 5 channels the plan allows are in use.']);
  });

  it('stores provider credentials sealed, never in clear', async () => {
    const tenant = await createTenant(t);
    const config = { url: 'https://example.test/hook', secret: TEST_WEBHOOK_SECRET };
    const c = await t.services.channels.create(tenant.workspaceId, { provider: 'webhook', name: 'Sealed', config });
    const row = await t.runtime.db.selectFrom('channels').select('credentials').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.credentials).not.toContain(TEST_WEBHOOK_SECRET.slice(6));
    expect(row.credentials).not.toContain('example.test');
    expect(await t.services.channels.config(tenant.workspaceId, c.id)).toEqual(config);
  });

  it('refuses a configuration the provider does not accept', async () => {
    const tenant = await createTenant(t);
    await expect(
      t.services.channels.create(tenant.workspaceId, { provider: 'webhook', name: 'X', config: { url: 'ftp://x' } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/url.*secret|secret.*url/s),
    });
  });
});
