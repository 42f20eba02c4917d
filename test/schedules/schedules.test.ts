import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { createPosts, getPost, postBody, webhookTenant } from '../helpers/posts.ts';

/** Posting schedules, the queue of POST /posts and GET /find-slot, through HTTP on the configured backend. */

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
const HOOK = 'https://hooks.example.test/in';
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});

type WithChannel = Tenant & { channelId: string };

async function api(tenant: Tenant, method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) {
  return t.request({ method, url: `/public/v1${url}`, key: tenant.key, ...(payload !== undefined && { payload: payload as object }) });
}

async function setSchedule(tenant: WithChannel, timeZone: string, slots: Array<[string, string]>) {
  const res = await api(tenant, 'PUT', `/integrations/${tenant.channelId}/schedule`, {
    timeZone,
    slots: slots.map(([day, time]) => ({ day, time })),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

async function findSlot(tenant: Tenant, channelId: string): Promise<string> {
  const res = await api(tenant, 'GET', `/find-slot/${channelId}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { date: string }).date;
}

/** Queues one post on each channel; the publish date of each, in order. */
async function queue(tenant: Tenant, channelIds: string[], extra: Record<string, unknown> = {}): Promise<string[]> {
  const res = await createPosts(t, tenant, {
    type: 'queue',
    posts: channelIds.map((id) => ({ integration: { id }, value: [{ content: 'queued' }] })),
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(200);
  const created = res.json() as Array<{ postId: string }>;
  return Promise.all(
    created.map(async ({ postId }) => {
      const post = await getPost(t, tenant as WithChannel, postId);
      expect(post.state).toBe('QUEUE');
      return post.publishDate as string;
    }),
  );
}

async function queueOne(tenant: WithChannel): Promise<string> {
  return (await queue(tenant, [tenant.channelId]))[0]!;
}

describe('schedules', () => {
  it('a channel without a schedule uses the built-in default (09:00, 12:00, 17:00 UTC every day) until the workspace sets its own', async () => {
    clock.set('2026-05-01T12:00:00.000Z');
    const tenant = await webhookTenant(t, HOOK);
    const read = await api(tenant, 'GET', `/integrations/${tenant.channelId}/schedule`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ source: 'default', timeZone: 'UTC', updatedAt: null });
    expect(read.json().slots).toHaveLength(21);
    // 12:00 is now, not after it: the next slot is 17:00.
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-01T17:00:00.000Z');

    const set = await api(tenant, 'PUT', '/schedule', { timeZone: 'America/New_York', slots: [{ day: 'saturday', time: '08:15' }] });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ source: 'workspace', timeZone: 'America/New_York' });
    expect((await api(tenant, 'GET', '/schedule')).json()).toMatchObject({ source: 'workspace' });
    expect((await api(tenant, 'GET', `/integrations/${tenant.channelId}/schedule`)).json()).toMatchObject({ source: 'workspace' });
    // Saturday 2 May 08:15 in New York (EDT, UTC-4).
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-02T12:15:00.000Z');

    // A channel's own schedule wins; removing it brings the workspace's back.
    expect(await setSchedule(tenant, 'UTC', [['friday', '20:00']])).toMatchObject({ source: 'channel' });
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-01T20:00:00.000Z');
    const cleared = await api(tenant, 'DELETE', `/integrations/${tenant.channelId}/schedule`);
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(cleared.json()).toMatchObject({ source: 'workspace' });
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-02T12:15:00.000Z');
  });

  it('stores slots in week order, each once, and the canonical zone name', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const stored = await setSchedule(tenant, 'utc', [
      ['tuesday', '10:00'],
      ['monday', '18:00'],
      ['monday', '09:00'],
      ['tuesday', '10:00'],
    ]);
    expect(stored.timeZone).toBe('UTC');
    expect(stored.slots).toEqual([
      { day: 'monday', time: '09:00' },
      { day: 'monday', time: '18:00' },
      { day: 'tuesday', time: '10:00' },
    ]);
  });

  it('refuses an unknown time zone, a malformed time and an unknown day with 400', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const url = `/integrations/${tenant.channelId}/schedule`;
    const zone = await api(tenant, 'PUT', url, { timeZone: 'Mars/Olympus', slots: [] });
    expect(zone.statusCode).toBe(400);
    expect(zone.json().code).toBe('invalid_time_zone');
    expect((await api(tenant, 'PUT', url, { timeZone: 'UTC', slots: [{ day: 'monday', time: '24:00' }] })).statusCode).toBe(400);
    expect((await api(tenant, 'PUT', url, { timeZone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] })).statusCode).toBe(400);
  });

  it('a schedule without slots gives no slot: find-slot and the queue answer 409 no_free_slot', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await setSchedule(tenant, 'UTC', []);
    const found = await api(tenant, 'GET', `/find-slot/${tenant.channelId}`);
    expect(found.statusCode).toBe(409);
    expect(found.json().code).toBe('no_free_slot');
    const queued = await createPosts(t, tenant, {
      type: 'queue',
      posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'x' }] }],
    });
    expect(queued.statusCode).toBe(409);
    expect(queued.json().code).toBe('no_free_slot');
  });
});

describe('the queue', () => {
  it('takes the next free slot; scheduled and published posts hold theirs, drafts do not; date is ignored', async () => {
    clock.set('2026-05-04T06:00:00.000Z'); // a Monday
    const tenant = await webhookTenant(t, HOOK);
    await setSchedule(tenant, 'UTC', [
      ['monday', '09:00'],
      ['monday', '15:00'],
      ['tuesday', '09:00'],
    ]);
    const scheduled = await createPosts(t, tenant, postBody(tenant.channelId, { date: '2026-05-04T09:00:00Z' }));
    expect(scheduled.statusCode, scheduled.body).toBe(200);
    const draft = await createPosts(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-05-04T15:00:00Z' }));
    expect(draft.statusCode, draft.body).toBe(200);

    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-04T15:00:00.000Z');
    expect(await queue(tenant, [tenant.channelId], { date: '2030-01-01T00:00:00Z' })).toEqual(['2026-05-04T15:00:00.000Z']);
    expect(await queueOne(tenant)).toBe('2026-05-05T09:00:00.000Z');
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-05-11T09:00:00.000Z');
  });

  it('other types still need a date (400 naming body.date)', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const res = await createPosts(t, tenant, {
      type: 'schedule',
      posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'x' }] }],
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().message)).toMatch(/body\.date/);
  });

  it('a group across channels: each channel\'s own next slot by default, one slot free on all with queueSlot "common"', async () => {
    clock.set('2026-05-04T06:00:00.000Z'); // a Monday
    const a = await webhookTenant(t, HOOK);
    const b = {
      ...a,
      channelId: (
        await t.services.channels.create(a.workspaceId, {
          provider: 'webhook',
          name: 'B',
          config: { url: HOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        })
      ).id,
    };
    await setSchedule(a, 'UTC', [
      ['monday', '09:00'],
      ['monday', '10:00'],
      ['monday', '11:00'],
    ]);
    await setSchedule(b, 'UTC', [['monday', '12:00']]);
    // a's 09:00 is taken.
    await queueOne(a);
    expect(await queue(a, [a.channelId, b.channelId])).toEqual(['2026-05-04T10:00:00.000Z', '2026-05-04T12:00:00.000Z']);
    // Common: a's schedule; 09:00 and 10:00 taken on a, so 11:00 on both.
    expect(await queue(a, [a.channelId, b.channelId], { queueSlot: 'common' })).toEqual([
      '2026-05-04T11:00:00.000Z',
      '2026-05-04T11:00:00.000Z',
    ]);
  });

  it('50 concurrent queue requests on one channel each get a different slot', async () => {
    clock.set('2026-05-04T06:00:00.000Z');
    const tenant = await webhookTenant(t, HOOK);
    const dates = await Promise.all(Array.from({ length: 50 }, () => queueOne(tenant)));
    expect(new Set(dates).size).toBe(50);
    // And they are the first 50 slots of the default schedule (three a day from Monday 09:00).
    const first = Date.parse('2026-05-04T09:00:00.000Z');
    const expected = Array.from({ length: 50 }, (_, i) => {
      const day = Math.floor(i / 3);
      return new Date(first + day * 86_400_000 + [0, 3, 8][i % 3]! * 3_600_000).toISOString();
    });
    expect([...dates].sort()).toEqual(expected);
  });
});

describe('daylight-saving changes', () => {
  it('Europe/Paris: a 09:00 slot stays 09:00 local across both changes', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await setSchedule(tenant, 'Europe/Paris', [['monday', '09:00']]);
    clock.set('2026-03-20T00:00:00.000Z');
    // 23 March (CET, UTC+1), then 30 March (CEST, UTC+2).
    expect(await queueOne(tenant)).toBe('2026-03-23T08:00:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-03-30T07:00:00.000Z');
    clock.set('2026-10-20T00:00:00.000Z');
    // 26 October is on CET again.
    expect(await queueOne(tenant)).toBe('2026-10-26T08:00:00.000Z');
  });

  it('Europe/Paris: a slot in the spring-forward gap moves forward by the gap; one in the fall-back hour is used once, at its first occurrence', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await setSchedule(tenant, 'Europe/Paris', [
      ['sunday', '02:30'],
      ['sunday', '03:30'],
      ['sunday', '09:00'],
    ]);
    // 29 March 2026: 02:00 CET jumps to 03:00 CEST. 02:30 becomes 03:30 CEST (01:30Z), the same instant as the 03:30 slot.
    clock.set('2026-03-28T12:00:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-03-29T01:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-03-29T07:00:00.000Z');
    // 25 October 2026: 03:00 CEST falls back to 02:00 CET; 02:30 is taken once, on CEST (00:30Z).
    clock.set('2026-10-24T12:00:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-10-25T00:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-10-25T02:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-10-25T08:00:00.000Z');
  });

  it('Australia/Sydney (southern): the same rules in October (spring forward) and April (fall back)', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await setSchedule(tenant, 'Australia/Sydney', [
      ['sunday', '02:30'],
      ['sunday', '09:00'],
    ]);
    // 4 October 2026: 02:00 AEST jumps to 03:00 AEDT; 02:30 becomes 03:30 AEDT (16:30Z the day before).
    clock.set('2026-10-03T00:00:00.000Z');
    expect(await findSlot(tenant, tenant.channelId)).toBe('2026-10-03T16:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-10-03T16:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-10-03T22:00:00.000Z');
    // 5 April 2026: 03:00 AEDT falls back to 02:00 AEST; 02:30 is taken once, on AEDT (15:30Z), and 09:00 AEST is 23:00Z.
    clock.set('2026-04-04T00:00:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-04-04T15:30:00.000Z');
    expect(await queueOne(tenant)).toBe('2026-04-04T23:00:00.000Z');
    // The next Sunday 02:30 is a week later, on AEST.
    expect(await queueOne(tenant)).toBe('2026-04-11T16:30:00.000Z');
  });
});

describe('access', () => {
  it("another workspace's channel is a 404 for every route and for the queue", async () => {
    const owner = await webhookTenant(t, HOOK);
    const stranger = await createTenant(t);
    for (const [method, url] of [
      ['GET', `/integrations/${owner.channelId}/schedule`],
      ['PUT', `/integrations/${owner.channelId}/schedule`],
      ['DELETE', `/integrations/${owner.channelId}/schedule`],
      ['GET', `/find-slot/${owner.channelId}`],
    ] as const) {
      const res = await api(stranger, method, url, method === 'PUT' ? { timeZone: 'UTC', slots: [] } : undefined);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const queued = await createPosts(t, stranger, {
      type: 'queue',
      posts: [{ integration: { id: owner.channelId }, value: [{ content: 'x' }] }],
    });
    expect(queued.statusCode).toBe(404);
  });

  it('scopes: reading needs channels:read, setting channels:write, the queue posts:publish; a channel-limited key sees only its channels and cannot set the default', async () => {
    const owner = await webhookTenant(t, HOOK);
    const reader = await createTenant(t, { workspaceId: owner.workspaceId, scopes: ['channels:read', 'posts:read', 'posts:draft'] });
    expect((await api(reader, 'GET', `/integrations/${owner.channelId}/schedule`)).statusCode).toBe(200);
    expect((await api(reader, 'GET', `/find-slot/${owner.channelId}`)).statusCode).toBe(200);
    expect((await api(reader, 'PUT', `/integrations/${owner.channelId}/schedule`, { timeZone: 'UTC', slots: [] })).statusCode).toBe(403);
    expect((await api(reader, 'PUT', '/schedule', { timeZone: 'UTC', slots: [] })).statusCode).toBe(403);
    const queued = await createPosts(t, reader, {
      type: 'queue',
      posts: [{ integration: { id: owner.channelId }, value: [{ content: 'x' }] }],
    });
    expect(queued.statusCode).toBe(403);

    const other = await t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name: 'Other',
      config: { url: HOOK, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
    const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [owner.channelId] });
    expect((await api(limited, 'PUT', `/integrations/${owner.channelId}/schedule`, { timeZone: 'UTC', slots: [] })).statusCode).toBe(200);
    expect((await api(limited, 'GET', `/integrations/${other.id}/schedule`)).statusCode).toBe(404);
    expect((await api(limited, 'GET', `/find-slot/${other.id}`)).statusCode).toBe(404);
    const defaults = await api(limited, 'PUT', '/schedule', { timeZone: 'UTC', slots: [] });
    expect(defaults.statusCode).toBe(403);
    expect(defaults.json().code).toBe('channel_limited_key');
  });
});
