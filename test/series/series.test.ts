import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { getPost, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

/** Recurring posts through HTTP on the configured backend, the engine running on a controlled clock. */

const clock = new ManualClock('2026-03-20T12:00:00.000Z');
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' } });
});

type WithChannel = Tenant & { channelId: string };
type CalendarPost = {
  id: string;
  state: string;
  publishDate: string;
  errorKind: string | null;
  series: { id: string; occurrence: string; edited: boolean } | null;
  content: string;
};

async function api(tenant: Tenant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  return t.request({ method, url: `/public/v1${url}`, key: tenant.key, ...(payload !== undefined && { payload: payload as object }) });
}

function seriesBody(channelId: string, repeat: Record<string, unknown>, content = 'Every time') {
  return { repeat, posts: [{ integration: { id: channelId }, value: [{ content }] }] };
}

/** POST /series repeating `content` on the tenant's channel (`channelId`). */
async function postSeries(tenant: WithChannel, repeat: Record<string, unknown>, content?: string) {
  return api(tenant, 'POST', '/series', seriesBody(tenant.channelId, repeat, content));
}

async function createSeries(tenant: WithChannel, repeat: Record<string, unknown>, content?: string) {
  const res = await postSeries(tenant, repeat, content);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; nextOccurrence: string | null; writtenUntil: string; skipped: number; ended: boolean; rule: string };
}

async function calendar(tenant: Tenant, startDate: string, endDate: string): Promise<CalendarPost[]> {
  const res = await api(tenant, 'GET', `/posts?startDate=${startDate}&endDate=${endDate}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { posts: CalendarPost[] }).posts;
}

const dates = (posts: CalendarPost[]) => posts.map((p) => p.publishDate);
const deliveriesFor = (postId: string) => receiver.deliveries.filter((d) => d.body.data.postId === postId);

/** The series refused with a 400: its error. */
async function refused(tenant: WithChannel, repeat: Record<string, unknown>) {
  const res = await postSeries(tenant, repeat);
  expect(res.statusCode, res.body).toBe(400);
  return res.json() as { code: string; msg: string };
}

const readSeries = async (tenant: Tenant, id: string) => api(tenant, 'GET', `/series/${id}`);

/** A new workspace with a webhook channel, the clock first set to `now`. */
async function tenantAt(now: string, tenantOptions?: Parameters<typeof createTenant>[1]) {
  clock.set(now);
  return webhookTenant(t, receiver.url, {}, tenantOptions);
}

async function at(iso: string) {
  clock.set(iso);
  await t.settle();
}

/** The clock moved to `iso`, then the engine's sweep (which writes series ahead) run and its work settled. */
async function sweepAt(iso: string) {
  await at(iso);
  await t.publisher.sweep();
  await t.settle();
}

/** A daily rule at 09:00 UTC from 1 April 2026. */
const DAILY_UTC = { frequency: 'daily', start: '2026-04-01T09:00', timeZone: 'UTC' };

describe('recurring posts: the rule and its time zone', () => {
  it('a weekly series in Europe/Berlin keeps 09:00 local across the spring change, and ends after its count', async () => {
    const tenant = await tenantAt('2026-03-20T12:00:00.000Z');
    const series = await createSeries(tenant, {
      frequency: 'weekly',
      days: ['monday', 'thursday'],
      start: '2026-03-23T09:00',
      timeZone: 'Europe/Berlin',
      count: 4,
    });
    expect(series.rule).toBe('FREQ=WEEKLY;BYDAY=MO,TH;COUNT=4');
    expect(series.nextOccurrence).toBe('2026-03-23T08:00:00.000Z');
    const posts = await calendar(tenant, '2026-03-01T00:00:00Z', '2026-06-01T00:00:00Z');
    // Clocks go forward on 29 March: CET (UTC+1) before, CEST (UTC+2) after; still 09:00 in Berlin.
    expect(dates(posts)).toEqual([
      '2026-03-23T08:00:00.000Z',
      '2026-03-26T08:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-04-02T07:00:00.000Z',
    ]);
    expect(posts.every((p) => p.state === 'QUEUE' && p.series?.id === series.id)).toBe(true);
    expect(new Set(posts.map((p) => p.id)).size).toBe(4);
    const read = await readSeries(tenant, series.id);
    expect(read.json()).toMatchObject({ ended: false, skipped: 0 });
  });

  it('a daily series in Australia/Sydney keeps 08:30 local when daylight saving ends in April', async () => {
    const tenant = await tenantAt('2026-04-02T00:00:00.000Z');
    await createSeries(tenant, {
      frequency: 'daily',
      start: '2026-04-03T08:30',
      timeZone: 'Australia/Sydney',
      until: '2026-04-06T00:00:00Z',
    });
    const posts = await calendar(tenant, '2026-04-01T00:00:00Z', '2026-05-01T00:00:00Z');
    // AEDT (UTC+11) until 5 April 03:00, AEST (UTC+10) after.
    expect(dates(posts)).toEqual([
      '2026-04-02T21:30:00.000Z',
      '2026-04-03T21:30:00.000Z',
      '2026-04-04T22:30:00.000Z',
      '2026-04-05T22:30:00.000Z',
    ]);
  });

  it('in Sydney in October a time the clocks skip moves forward by the gap, the next days keep 02:30', async () => {
    const tenant = await tenantAt('2026-10-01T00:00:00.000Z');
    await createSeries(tenant, {
      frequency: 'rrule',
      rrule: 'FREQ=DAILY',
      start: '2026-10-03T02:30',
      timeZone: 'Australia/Sydney',
      count: 3,
    });
    const posts = await calendar(tenant, '2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z');
    // 4 October: 02:00 AEST becomes 03:00 AEDT, so 02:30 does not exist: 03:30 AEDT (16:30 UTC).
    expect(dates(posts)).toEqual(['2026-10-02T16:30:00.000Z', '2026-10-03T16:30:00.000Z', '2026-10-04T15:30:00.000Z']);
  });

  it('a monthly RRULE in America/Santiago (first Monday) keeps 10:00 local across its April change', async () => {
    const tenant = await tenantAt('2026-02-01T00:00:00.000Z');
    await createSeries(tenant, {
      frequency: 'rrule',
      rrule: 'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1',
      start: '2026-03-02T10:00',
      timeZone: 'America/Santiago',
      count: 2,
    });
    const posts = await calendar(tenant, '2026-02-01T00:00:00Z', '2026-05-01T00:00:00Z');
    // Chile leaves summer time (UTC-3) for UTC-4 on 5 April 2026.
    expect(dates(posts)).toEqual(['2026-03-02T13:00:00.000Z']);
    clock.set('2026-03-10T00:00:00.000Z');
    await t.publisher.sweep();
    expect(dates(await calendar(tenant, '2026-02-01T00:00:00Z', '2026-05-01T00:00:00Z'))).toEqual([
      '2026-03-02T13:00:00.000Z',
      '2026-04-06T14:00:00.000Z',
    ]);
  });

  it('refuses a rule it cannot read, an unknown zone, a rule with no occurrence left, and another workspace’s series', async () => {
    const tenant = await tenantAt('2026-03-20T12:00:00.000Z');
    expect((await refused(tenant, { ...DAILY_UTC, frequency: 'rrule', rrule: 'FREQ=SOMETIMES' })).code).toBe('invalid_rule');
    expect((await refused(tenant, { ...DAILY_UTC, frequency: 'rrule', rrule: 'FREQ=DAILY;UNTIL=20270101T000000Z' })).msg).toContain(
      'repeat.until',
    );
    await refused(tenant, { ...DAILY_UTC, frequency: 'rrule', rrule: 'FREQ=MINUTELY' });
    expect((await refused(tenant, { ...DAILY_UTC, timeZone: 'Mars/Olympus' })).code).toBe('invalid_time_zone');
    expect((await refused(tenant, { ...DAILY_UTC, start: '2026-01-01T09:00', count: 3 })).code).toBe('series_empty');
    await refused(tenant, { ...DAILY_UTC, start: '2026-04-01T09:00Z' });
    await refused(tenant, { ...DAILY_UTC, days: ['monday'] });

    const series = await createSeries(tenant, { ...DAILY_UTC, count: 2 });
    const other = await createTenant(t);
    expect((await readSeries(other, series.id)).statusCode).toBe(404);
    expect((await api(other, 'DELETE', `/series/${series.id}`)).statusCode).toBe(404);
    expect((await api(other, 'GET', '/series')).json().series).toEqual([]);
    // Another workspace's channel is not one to repeat on.
    expect((await postSeries({ ...other, channelId: tenant.channelId }, DAILY_UTC)).statusCode).toBe(404);
  });
});

describe('recurring posts: publishing', () => {
  it('each occurrence is published at its own time with its own post and release id; a late one does not shift the next', async () => {
    const tenant = await tenantAt('2026-05-01T00:00:00.000Z');
    await createSeries(tenant, { frequency: 'daily', start: '2026-05-01T09:00', timeZone: 'Europe/Berlin', count: 3 }, 'Daily note');
    const [first, second, third] = await calendar(tenant, '2026-05-01T00:00:00Z', '2026-05-05T00:00:00Z');
    expect(dates([first!, second!, third!])).toEqual(['2026-05-01T07:00:00.000Z', '2026-05-02T07:00:00.000Z', '2026-05-03T07:00:00.000Z']);

    // The first goes out an hour late (the server was busy): within the window, so it is published.
    await at('2026-05-01T08:00:00.000Z');
    const published = await getPost(t, tenant, first!.id);
    expect(published.state).toBe('PUBLISHED');
    expect(deliveriesFor(first!.id)).toHaveLength(1);
    // The next keeps the rule's time, not "a day after the first went out".
    expect((await getPost(t, tenant, second!.id)).publishDate).toBe('2026-05-02T07:00:00.000Z');
    await at('2026-05-02T06:59:59.000Z');
    expect(deliveriesFor(second!.id)).toHaveLength(0);
    await at('2026-05-02T07:00:00.000Z');
    const next = await getPost(t, tenant, second!.id);
    expect(next.state).toBe('PUBLISHED');
    expect(next.releaseId).not.toBe(published.releaseId);
  });

  it('after an outage, occurrences older than the missed window are skipped and reported, not published in a burst', async () => {
    const tenant = await tenantAt('2026-06-01T00:00:00.000Z');
    const series = await createSeries(tenant, { frequency: 'daily', start: '2026-06-01T09:00', timeZone: 'UTC', count: 6 });
    const posts = await calendar(tenant, '2026-06-01T00:00:00Z', '2026-06-10T00:00:00Z');
    expect(posts).toHaveLength(6);
    // Down from before the first until 10:00 on the 4th: the 1st to 3rd are days old, the 4th is an hour late.
    await at('2026-06-04T10:00:00.000Z');
    const after = await calendar(tenant, '2026-06-01T00:00:00Z', '2026-06-10T00:00:00Z');
    expect(after.map((p) => [p.state, p.errorKind])).toEqual([
      ['ERROR', 'skipped'],
      ['ERROR', 'skipped'],
      ['ERROR', 'skipped'],
      ['PUBLISHED', null],
      ['QUEUE', null],
      ['QUEUE', null],
    ]);
    for (const skipped of after.slice(0, 3)) expect(deliveriesFor(skipped.id)).toHaveLength(0);
    expect((await getPost(t, tenant, after[0]!.id)).error).toContain('not published late');
    const notes = await api(tenant, 'GET', '/notifications');
    expect(JSON.stringify(notes.json())).toContain('Skipped');
    // The 5th goes out on time.
    await at('2026-06-05T09:00:00.000Z');
    expect((await getPost(t, tenant, after[4]!.id)).state).toBe('PUBLISHED');
    expect((await readSeries(tenant, series.id)).json()).toMatchObject({ skipped: 0 });
  });

  it('occurrences never written because the server was down longer than the horizon are counted as skipped', async () => {
    const tenant = await tenantAt('2026-07-01T00:00:00.000Z');
    const series = await createSeries(tenant, { frequency: 'weekly', start: '2026-07-01T09:00', timeZone: 'UTC' });
    // 60 days written: Wednesdays 1 July to 26 August.
    expect(await calendar(tenant, '2026-07-01T00:00:00Z', '2026-12-31T00:00:00Z')).toHaveLength(9);
    await sweepAt('2026-10-07T09:30:00.000Z');
    const read = (await readSeries(tenant, series.id)).json();
    // 2 September to 30 September were never written (over two hours late): 5 skipped; 7 October (30 minutes late) is written and published.
    expect(read.skipped).toBe(5);
    const october = await calendar(tenant, '2026-10-01T00:00:00Z', '2026-10-08T00:00:00Z');
    expect(october.map((p) => [p.publishDate, p.state])).toEqual([['2026-10-07T09:00:00.000Z', 'PUBLISHED']]);
  });
});

describe('recurring posts: edits', () => {
  it('editing the series changes future occurrences only; an occurrence edited or deleted alone keeps its change', async () => {
    const tenant = await tenantAt('2026-08-01T00:00:00.000Z');
    const series = await createSeries(tenant, { frequency: 'daily', start: '2026-08-01T09:00', timeZone: 'UTC', count: 5 }, 'Old text');
    await at('2026-08-01T09:00:00.000Z');
    const [first, second, third, fourth, fifth] = await calendar(tenant, '2026-08-01T00:00:00Z', '2026-08-10T00:00:00Z');
    expect(first!.state).toBe('PUBLISHED');

    // One occurrence edited on its own, another deleted on its own.
    const edited = await api(tenant, 'PATCH', `/posts/${second!.id}`, { content: 'Only the 2nd' });
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.json().series).toMatchObject({ id: series.id, edited: true });
    expect((await api(tenant, 'DELETE', `/posts/${third!.id}`)).statusCode).toBe(200);
    expect((await getPost(t, tenant, fourth!.id)).state).toBe('QUEUE');

    const changed = await api(tenant, 'PATCH', `/series/${series.id}`, {
      posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'New text' }] }],
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const after = await calendar(tenant, '2026-08-01T00:00:00Z', '2026-08-10T00:00:00Z');
    expect(after.map((p) => [p.publishDate, p.content])).toEqual([
      ['2026-08-01T09:00:00.000Z', '<p>Old text</p>'],
      ['2026-08-02T09:00:00.000Z', '<p>Only the 2nd</p>'],
      ['2026-08-04T09:00:00.000Z', '<p>New text</p>'],
      ['2026-08-05T09:00:00.000Z', '<p>New text</p>'],
    ]);
    // The published one is the same post; the rewritten ones are new posts.
    expect(after[0]!.id).toBe(first!.id);
    expect(after[1]!.id).toBe(second!.id);
    expect(after[2]!.id).not.toBe(fourth!.id);
    expect((await api(tenant, 'GET', `/posts/${fifth!.id}`)).statusCode).toBe(404);

    // A new rule: the edited occurrence stays, the others follow the rule from now on.
    const moved = await api(tenant, 'PATCH', `/series/${series.id}`, {
      repeat: { frequency: 'daily', start: '2026-08-01T18:00', timeZone: 'UTC', count: 5 },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(dates(await calendar(tenant, '2026-08-01T00:00:00Z', '2026-08-10T00:00:00Z'))).toEqual([
      '2026-08-01T09:00:00.000Z',
      '2026-08-01T18:00:00.000Z',
      '2026-08-02T09:00:00.000Z',
      '2026-08-02T18:00:00.000Z',
      '2026-08-03T18:00:00.000Z',
      '2026-08-04T18:00:00.000Z',
      '2026-08-05T18:00:00.000Z',
    ]);
  });

  it('deleting the series stops it: future occurrences go, published ones stay, nothing more is published', async () => {
    const tenant = await tenantAt('2026-09-01T00:00:00.000Z');
    const series = await createSeries(tenant, { frequency: 'daily', start: '2026-09-01T09:00', timeZone: 'UTC' });
    await at('2026-09-01T09:00:00.000Z');
    const before = await calendar(tenant, '2026-09-01T00:00:00Z', '2026-12-31T00:00:00Z');
    expect(before.length).toBeGreaterThan(50);
    const deleted = await api(tenant, 'DELETE', `/series/${series.id}`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json().removed).toHaveLength(before.length - 1);
    expect((await readSeries(tenant, series.id)).statusCode).toBe(404);
    const left = await calendar(tenant, '2026-09-01T00:00:00Z', '2026-12-31T00:00:00Z');
    expect(left.map((p) => p.state)).toEqual(['PUBLISHED']);
    const delivered = receiver.deliveries.length;
    await sweepAt('2026-09-03T09:00:00.000Z');
    expect(receiver.deliveries.length).toBe(delivered);
    expect(await calendar(tenant, '2026-09-02T00:00:00Z', '2026-12-31T00:00:00Z')).toEqual([]);
  });

  it('a retry with the same Idempotency-Key answers the same series and writes nothing again; the key with another body is refused', async () => {
    const tenant = await tenantAt('2026-03-20T12:00:00.000Z');
    const body = seriesBody(tenant.channelId, { ...DAILY_UTC, count: 3 }, 'Once only');
    const send = (key: string, payload: unknown = body, who: Tenant = tenant) =>
      t.request({
        method: 'POST',
        url: '/public/v1/series',
        key: who.key,
        headers: { 'idempotency-key': key },
        payload: payload as object,
      });
    const first = await send('series-once');
    expect(first.statusCode, first.body).toBe(201);
    const replay = await send('series-once');
    expect(replay.statusCode, replay.body).toBe(201);
    expect(replay.json()).toEqual(first.json());
    const listed = (await api(tenant, 'GET', '/series')).json() as { series: Array<{ id: string }> };
    expect(listed.series.map((s) => s.id)).toEqual([(first.json() as { id: string }).id]);
    const posts = await calendar(tenant, '2026-03-20T00:00:00Z', '2026-05-01T00:00:00Z');
    expect(posts.filter((p) => p.content.includes('Once only'))).toHaveLength(3);

    const other = await send('series-once', seriesBody(tenant.channelId, { ...DAILY_UTC, count: 2 }, 'Once only'));
    expect(other.statusCode, other.body).toBe(400);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    // A key used for POST /posts is not an answer for POST /series.
    const post = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      headers: { 'idempotency-key': 'shared-key' },
      payload: { type: 'draft', date: '2026-04-02T09:00:00Z', posts: body.posts },
    });
    expect(post.statusCode, post.body).toBe(200);
    expect((await send('shared-key')).json()).toMatchObject({ code: 'idempotency_key_reused' });
    // Keys are the workspace's: another workspace's same key makes its own series.
    const elsewhere = await tenantAt('2026-03-20T12:00:00.000Z');
    const theirs = await send('series-once', seriesBody(elsewhere.channelId, { ...DAILY_UTC, count: 3 }, 'Once only'), elsewhere);
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect((theirs.json() as { id: string }).id).not.toBe((first.json() as { id: string }).id);
    // Checks run before a replay: a key that may not create series is refused, not answered.
    const reader = await createTenant(t, { scopes: ['posts:read'], workspaceId: tenant.workspaceId });
    expect((await send('series-once', body, reader)).statusCode).toBe(403);
  });

  it('needs posts:publish to create, edit or delete a series; posts:read to read one', async () => {
    const tenant = await tenantAt('2026-03-20T12:00:00.000Z', { scopes: ['posts:read', 'posts:draft'] });
    expect((await postSeries(tenant, DAILY_UTC)).statusCode).toBe(403);
    expect((await api(tenant, 'GET', '/series')).statusCode).toBe(200);
  });
});

describe('recurring posts and approval before publishing', () => {
  it("an editor's series, in a workspace that asks approval of editors, writes occurrences that wait; the engine never publishes them until approved", async () => {
    const owner = await tenantAt('2026-09-01T08:00:00.000Z');
    const editor = await createTenant(t, { role: 'editor', workspaceId: owner.workspaceId });
    const set = await t.request({
      method: 'PUT',
      url: '/public/v1/approval-settings',
      key: owner.key,
      payload: { roles: ['editor'] },
    });
    expect(set.statusCode, set.body).toBe(200);
    const res = await postSeries({ ...editor, channelId: owner.channelId }, { ...DAILY_UTC, start: '2026-09-02T10:00', count: 2 });
    expect(res.statusCode, res.body).toBe(201);
    const posts = await calendar(owner, '2026-09-01T00:00:00Z', '2026-09-10T00:00:00Z');
    expect(posts.map((p) => p.state)).toEqual(['AWAITING_APPROVAL', 'AWAITING_APPROVAL']);
    // The first occurrence's time passes: it is neither published nor skipped while it waits.
    await at('2026-09-02T10:05:00.000Z');
    expect((await getPost(t, owner, posts[0]!.id)).state).toBe('AWAITING_APPROVAL');
    expect(deliveriesFor(posts[0]!.id)).toHaveLength(0);
    // Approved, it goes out (its time has passed: at once).
    const approved = await api(owner, 'POST', `/posts/${posts[1]!.id}/approve`, { comment: 'ok' });
    expect(approved.statusCode, approved.body).toBe(200);
    await at('2026-09-03T10:00:00.000Z');
    expect((await getPost(t, owner, posts[1]!.id)).state).toBe('PUBLISHED');
    expect(deliveriesFor(posts[1]!.id)).toHaveLength(1);
    expect((await getPost(t, owner, posts[0]!.id)).state).toBe('AWAITING_APPROVAL');
  });
});
