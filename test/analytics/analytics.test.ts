// Analytics end to end: posts published to a local Mastodon, its numbers collected by the
// collector on the test clock, stored as snapshots and read back through the HTTP API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sqliteReader } from '../../src/db/connection.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { clearMastodonInstances } from '../../src/providers/mastodon/mastodon.provider.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createOk, postBody } from '../helpers/posts.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';
import { newCollector } from './collectors.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
const HOUR = 3_600_000;
let t: TestApp;
let fake: FakeMastodon;

beforeAll(async () => {
  fake = await new FakeMastodon().start();
  fake.processingPolls = 0;
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});
beforeEach(() => {
  fake.reset();
  fake.reportsQuotes = true;
  clearMastodonInstances();
});

type Workspace = Tenant & { channelId: string; accountId: string };

let accounts = 10;
/** A workspace with a Mastodon channel on its own fake account. */
async function mastodonTenant(options: Parameters<typeof createTenant>[1] = {}, tenant?: Tenant): Promise<Workspace> {
  const owner = tenant ?? (await createTenant(t, options));
  const accountId = String(accounts++);
  fake.addAccount({ id: accountId, username: `user${accountId}`, display_name: '', avatar: '' });
  const channel = await t.services.channels.create(owner.workspaceId, {
    provider: 'mastodon',
    name: 'Toots',
    config: { instance: fake.url, accessToken: fake.tokenFor(accountId) },
  });
  return { ...owner, channelId: channel.id, accountId };
}

/** Publishes a post now (with `comments` comments) and returns its id and its statuses on the fake. */
async function publish(w: Workspace, comments = 0, content = '<p>Hello</p>') {
  const values = [{ content }, ...Array.from({ length: comments }, (_, i) => ({ content: `<p>Comment ${i}</p>`, delay: 0 }))];
  const [created] = await createOk(t, w, postBody(w.channelId, { type: 'now', date: clock.now().toISOString() }, values));
  await t.settle();
  const statuses = fake.statuses.filter((s) => s.account.id === w.accountId).slice(-(comments + 1));
  expect(statuses).toHaveLength(comments + 1);
  return { postId: created!.postId, statuses };
}

const get = (w: Tenant, url: string) => t.request({ method: 'GET', url: `/public/v1${url}`, key: w.key });
async function ok(w: Tenant, url: string) {
  const res = await get(w, url);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
/** The reads of statuses by id that asked for one of `ids` (other tests' channels come due on the same clock). */
const statusReads = (ids: string[]) =>
  fake.received.filter(
    (c) => c.path === '/api/v1/statuses' && c.method === 'GET' && c.url.searchParams.getAll('id[]').some((id) => ids.includes(id)),
  );
const collect = () => t.services.analytics.collector.collectDue();

describe('collection from the platform', () => {
  it("reads a post's and its comment's numbers as Mastodon reports them, normalised, with the history of changes", async () => {
    const w = await mastodonTenant();
    const { postId, statuses } = await publish(w, 1);
    Object.assign(statuses[0]!, { favourites_count: 5, reblogs_count: 2, replies_count: 1, quotes_count: 3 });
    Object.assign(statuses[1]!, { favourites_count: 1 });
    fake.accounts.get(w.accountId)!.followers_count = 42;
    await collect();
    const first = await ok(w, `/analytics/posts/${postId}`);
    expect(first).toMatchObject({
      postId,
      integration: w.channelId,
      identifier: 'mastodon',
      published: true,
      metricsUpdatedAt: clock.now().toISOString(),
      metrics: { likes: 5, reposts: 2, replies: 1, quotes: 3 },
      refreshed: false,
    });
    expect(first.parts.map((p: { part: number; releaseId: string }) => [p.part, p.releaseId])).toEqual([
      [0, statuses[0]!.id],
      [1, statuses[1]!.id],
    ]);
    expect(first.parts[1].metrics).toEqual({ likes: 1, reposts: 0, replies: 0, quotes: 0 });

    // The counts change on the platform; the next hourly reading stores a new snapshot.
    statuses[0]!.favourites_count = 9;
    clock.advance(HOUR);
    await collect();
    const second = await ok(w, `/analytics/posts/${postId}`);
    expect(second.metrics.likes).toBe(9);
    expect(second.parts[0].history.map((h: { metrics: { likes: number } }) => h.metrics.likes)).toEqual([5, 9]);
    // The comment did not change: its history keeps one snapshot.
    expect(second.parts[1].history).toHaveLength(1);
  });

  it('a metric the platform does not report is absent, never 0 (quotes before Mastodon 4.5)', async () => {
    fake.reportsQuotes = false;
    const w = await mastodonTenant();
    const { postId } = await publish(w);
    await collect();
    const answer = await ok(w, `/analytics/posts/${postId}`);
    expect(answer.metrics).toEqual({ likes: 0, reposts: 0, replies: 0 });
  });

  it('reads on a decaying schedule: hourly in the first day, every 6 hours in the first week, daily to 30 days, then never', async () => {
    const w = await mastodonTenant();
    const { statuses } = await publish(w);
    await collect();
    const reads = () => statusReads([statuses[0]!.id]).length;
    const at = (offsetMs: number) => clock.set(new Date(start + offsetMs));
    const start = clock.now().getTime();
    const base = reads();
    at(30 * 60_000);
    await collect();
    expect(reads()).toBe(base);
    at(HOUR);
    await collect();
    expect(reads()).toBe(base + 1);
    // Past the first day: the next reading is 6 hours after the last.
    at(25 * HOUR);
    await collect();
    const afterDay = reads();
    at(27 * HOUR);
    await collect();
    expect(reads()).toBe(afterDay);
    at(31 * HOUR);
    await collect();
    expect(reads()).toBe(afterDay + 1);
    // Past 30 days the post is no longer read.
    at(31 * 24 * HOUR);
    await collect();
    const last = reads();
    at(40 * 24 * HOUR);
    await collect();
    expect(reads()).toBe(last);
    clock.set(new Date(start));
  });

  it('batches statuses by the API maximum of 20 ids', async () => {
    const w = await mastodonTenant();
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) ids.push((await publish(w, 0, `<p>Post ${i}</p>`)).statuses[0]!.id);
    await collect();
    const batches = statusReads(ids).map((c) => c.url.searchParams.getAll('id[]').length);
    expect(batches.sort((x, y) => x - y)).toEqual([1, 20]);
  });

  it("honours the platform's Retry-After on 429: nothing of the channel is read before it", async () => {
    const w = await mastodonTenant();
    const { postId, statuses } = await publish(w);
    fake.on(({ path, method }) =>
      method === 'GET' && path === '/api/v1/statuses'
        ? { status: 429, body: { error: 'Too many requests' }, headers: { 'retry-after': '600' } }
        : undefined,
    );
    await collect();
    const channel = await ok(w, `/analytics/channels/${w.channelId}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z`);
    expect(channel.error).toContain('429');
    const start = clock.now().getTime();
    fake.reset();
    statuses[0]!.favourites_count = 4;
    const before = statusReads([statuses[0]!.id]).length;
    clock.set(new Date(start + 300_000));
    await collect();
    expect(statusReads([statuses[0]!.id])).toHaveLength(before);
    clock.set(new Date(start + 601_000));
    await collect();
    expect(statusReads([statuses[0]!.id])).toHaveLength(before + 1);
    expect((await ok(w, `/analytics/posts/${postId}`)).metrics.likes).toBe(4);
  });

  it('a refused token disables the channel as needing reconnection and notifies; reading resumes once it is reconnected', async () => {
    const w = await mastodonTenant();
    const { postId, statuses } = await publish(w);
    await collect();
    fake.on(({ path }) =>
      path === '/api/v1/accounts/verify_credentials' ? { status: 401, body: { error: 'The access token is invalid' } } : undefined,
    );
    clock.advance(25 * HOUR);
    await collect();
    const channels = await ok(w, '/integrations');
    expect(channels.find((c: { id: string }) => c.id === w.channelId)).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = await ok(w, '/notifications');
    expect(notes.notifications).toEqual([expect.objectContaining({ type: 'channel_disconnected', integration: w.channelId })]);
    const range = 'startDate=2026-05-01T00:00:00Z&endDate=2026-07-31T00:00:00Z';
    expect(await ok(w, `/analytics/channels/${w.channelId}?${range}`)).toMatchObject({ error: expect.stringContaining('401') });
    // While disabled, the platform is not called; the history stays readable.
    const calls = fake.received.length;
    clock.advance(2 * HOUR);
    await collect();
    expect(fake.received.length).toBe(calls);
    expect((await ok(w, `/analytics/posts/${postId}`)).metrics).toEqual({ likes: 0, reposts: 0, replies: 0, quotes: 0 });
    // Reconnected with a new token: reading resumes at the next look.
    fake.reset();
    await t.services.channels.reconnect(w.workspaceId, w.channelId, { accessToken: fake.tokenFor(w.accountId) });
    statuses[0]!.favourites_count = 8;
    clock.advance(HOUR);
    await collect();
    expect((await ok(w, `/analytics/posts/${postId}`)).metrics.likes).toBe(8);
    expect(await ok(w, `/analytics/channels/${w.channelId}?${range}`)).toMatchObject({ collecting: true, error: null });
  });

  it("a refused read of posts' numbers is reported on the channel without disabling it", async () => {
    const w = await mastodonTenant();
    await publish(w);
    fake.on(({ path, method }) =>
      method === 'GET' && path === '/api/v1/statuses'
        ? { status: 401, body: { error: 'This API requires an authenticated user' } }
        : undefined,
    );
    await collect();
    const channel = await ok(w, `/analytics/channels/${w.channelId}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-31T00:00:00Z`);
    expect(channel.error).toMatch(/Reading posts' numbers was refused .*reconnect/);
    expect((await ok(w, '/integrations')).find((c: { id: string }) => c.id === w.channelId).disabled).toBe(false);
  });

  it('a deleted channel is no longer read; its history stays readable', async () => {
    const w = await mastodonTenant();
    const { postId, statuses } = await publish(w);
    statuses[0]!.favourites_count = 2;
    await collect();
    await t.services.channels.delete(w.workspaceId, w.channelId, { force: true });
    clock.advance(HOUR);
    const before = statusReads([statuses[0]!.id]).length;
    await collect();
    clock.advance(HOUR);
    await collect();
    expect(statusReads([statuses[0]!.id])).toHaveLength(before);
    expect((await ok(w, `/analytics/posts/${postId}`)).metrics.likes).toBe(2);
    const channel = await ok(w, `/analytics/channels/${w.channelId}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-31T00:00:00Z`);
    expect(channel).toMatchObject({ collecting: false, error: expect.stringContaining('deleted') });
  });

  it('two workers collecting at once read each due channel once (the lease)', async () => {
    const w = await mastodonTenant();
    await publish(w);
    await t.services.analytics.collector.followChannels();
    const other = newCollector(t, clock);
    const accountReads = () =>
      fake.received.filter(
        (c) =>
          c.path === '/api/v1/accounts/verify_credentials' &&
          fake.tokens.get(String(c.headers.authorization).replace('Bearer ', '')) === w.accountId,
      ).length;
    const before = accountReads();
    await Promise.all([collect(), other.collectDue(), collect(), other.collectDue()]);
    expect(accountReads() - before).toBe(1);
    const mine = await t.runtime.db
      .selectFrom('analytics_channels')
      .selectAll()
      .where('channel_id', '=', w.channelId)
      .executeTakeFirstOrThrow();
    expect(mine.lease_until).toBeNull();
    expect(mine.metrics_updated_at).toBe(clock.now().toISOString());
  });
});

describe('the cycle gives way', () => {
  // On PostgreSQL every statement already waits for the server, outside the event loop.
  it.skipIf(BACKEND !== 'sqlite')(
    'stores readings a slice at a time, with a turn of the event loop between slices (SQLite, where a statement holds the loop)',
    async () => {
      const reader = sqliteReader(t.runtime.db)!;
      const w = await mastodonTenant();
      const { postId, statuses } = await publish(w, 5);
      for (const [i, status] of statuses.entries()) status.favourites_count = 10 + i;
      await t.services.analytics.collector.followChannels();
      // A slice of 0 ms: one part a transaction, then a turn.
      const sliced = newCollector(t, clock, { sliceMs: 0 });
      const stored = () =>
        Number((reader.first('select count(*) as n from analytics_post_snapshots where post_id = ?', [postId]) as { n: number }).n);
      // Between two turns of the loop, how many of the post's six readings were stored.
      const perTurn: number[] = [];
      let last = stored();
      const count = () => {
        const now = stored();
        if (now !== last) perTurn.push(now - last);
        last = now;
      };
      const everyTurn = () => {
        count();
        next = setImmediate(everyTurn);
      };
      let next = setImmediate(everyTurn);
      await sliced.collectDue();
      clearImmediate(next);
      // What the last slice stored after the last turn counted.
      count();
      expect(stored()).toBe(6);
      expect(perTurn.reduce((a, b) => a + b, 0)).toBe(6);
      expect(Math.max(...perTurn)).toBe(1);
    },
  );
});

describe('refresh on demand', () => {
  it('refresh=true reads the platform first, once per channel every 5 minutes; otherwise the stored numbers answer', async () => {
    const w = await mastodonTenant();
    const { postId, statuses } = await publish(w);
    statuses[0]!.favourites_count = 3;
    const fresh = await ok(w, `/analytics/posts/${postId}?refresh=true`);
    expect(fresh).toMatchObject({ refreshed: true, metrics: { likes: 3 }, metricsUpdatedAt: clock.now().toISOString() });
    const readAt = clock.now().toISOString();
    statuses[0]!.favourites_count = 7;
    clock.advance(60_000);
    const limited = await ok(w, `/analytics/posts/${postId}?refresh=true`);
    expect(limited).toMatchObject({ refreshed: false, metrics: { likes: 3 }, metricsUpdatedAt: readAt });
    clock.advance(5 * 60_000);
    expect(await ok(w, `/analytics/posts/${postId}?refresh=true`)).toMatchObject({ refreshed: true, metrics: { likes: 7 } });
    expect(await ok(w, `/analytics/posts/${postId}`)).toMatchObject({ refreshed: false, metrics: { likes: 7 } });
  });

  it("a channel's refresh reads its account", async () => {
    const w = await mastodonTenant();
    fake.accounts.get(w.accountId)!.followers_count = 17;
    const answer = await ok(
      w,
      `/analytics/channels/${w.channelId}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z&refresh=true`,
    );
    expect(answer).toMatchObject({
      refreshed: true,
      collecting: true,
      account: { followers: 17, following: 0 },
      supported: { post: ['likes', 'reposts', 'replies', 'quotes'], account: ['followers', 'following', 'posts'] },
    });
    expect(answer.accountHistory).toEqual([{ date: clock.now().toISOString().slice(0, 10), metrics: answer.account }]);
    // The channel's settings say which metrics its platform reports.
    expect((await ok(w, `/integration-settings/${w.channelId}`)).metrics).toEqual(answer.supported);
  });
});

describe('channel and summary', () => {
  it('sums the numbers per day, per channel and in all, and ranks the top posts by the chosen metric', async () => {
    const a = await mastodonTenant();
    const b = await mastodonTenant({}, a);
    const day1 = clock.now().getTime();
    const p1 = await publish(a);
    const p2 = await publish(a);
    clock.set(new Date(day1 + 24 * HOUR));
    const p3 = await publish(b);
    Object.assign(p1.statuses[0]!, { favourites_count: 10, reblogs_count: 1 });
    Object.assign(p2.statuses[0]!, { favourites_count: 4, reblogs_count: 6 });
    Object.assign(p3.statuses[0]!, { favourites_count: 7, reblogs_count: 0 });
    await collect();
    const range = 'startDate=2026-05-01T00:00:00Z&endDate=2026-12-01T00:00:00Z';
    const summary = await ok(a, `/analytics/summary?${range}`);
    expect(summary.posts).toBe(3);
    expect(summary.totals).toMatchObject({ likes: 21, reposts: 7 });
    expect(summary.channels).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ integration: a.channelId, posts: 2, metrics: expect.objectContaining({ likes: 14, reposts: 7 }) }),
        expect.objectContaining({ integration: b.channelId, posts: 1, metrics: expect.objectContaining({ likes: 7, reposts: 0 }) }),
      ]),
    );
    expect(summary.top.map((p: { postId: string }) => p.postId)).toEqual([p1.postId, p3.postId, p2.postId]);
    const byReposts = await ok(a, `/analytics/summary?${range}&metric=reposts&limit=1`);
    expect(byReposts.top).toEqual([expect.objectContaining({ postId: p2.postId, value: 6 })]);

    const channel = await ok(a, `/analytics/channels/${a.channelId}?${range}`);
    expect(channel.daily).toEqual([
      { date: new Date(day1).toISOString().slice(0, 10), posts: 2, metrics: expect.objectContaining({ likes: 14 }) },
    ]);
  });

  it('validates the window like GET /posts', async () => {
    const w = await mastodonTenant();
    expect((await get(w, '/analytics/summary?startDate=2026-06-01T00:00:00&endDate=2026-07-01T00:00:00Z')).statusCode).toBe(400);
    expect((await get(w, '/analytics/summary?startDate=2026-07-01T00:00:00Z&endDate=2026-06-01T00:00:00Z')).statusCode).toBe(400);
    expect((await get(w, '/analytics/summary?startDate=2026-01-01T00:00:00Z&endDate=2027-06-01T00:00:00Z')).statusCode).toBe(400);
    expect((await get(w, '/analytics/summary?startDate=2026-01-01T00:00:00Z&endDate=2026-02-01T00:00:00Z&metric=nope')).statusCode).toBe(
      400,
    );
  });
});

describe('compatible series routes', () => {
  it('GET /analytics/{channelId}?date=N answers a series per metric, with percentageChange computed from the data', async () => {
    const w = await mastodonTenant();
    const account = fake.accounts.get(w.accountId)!;
    const start = clock.now().getTime();
    account.followers_count = 10;
    await collect();
    const p = await publish(w);
    p.statuses[0]!.favourites_count = 2;
    // Seven days later: followers 15, a post with 6 likes.
    clock.set(new Date(start + 7 * 24 * HOUR));
    account.followers_count = 15;
    const q = await publish(w);
    q.statuses[0]!.favourites_count = 6;
    await collect();
    const series = await ok(w, `/analytics/${w.channelId}?date=7`);
    const followers = series.find((s: { label: string }) => s.label === 'followers');
    expect(followers.percentageChange).toBe(50);
    expect(followers.data.at(-1)).toEqual({ total: 15, date: clock.now().toISOString().slice(0, 10) });
    const likes = series.find((s: { label: string }) => s.label === 'likes');
    expect(likes.data).toHaveLength(7);
    expect(likes.data.at(-1)).toEqual({ total: 6, date: clock.now().toISOString().slice(0, 10) });
    expect(likes.percentageChange).toBe(200);
    // A year back compares with the year before: two years of history, allowed here.
    const yearBack = await get(w, `/analytics/${w.channelId}?date=365`);
    expect(yearBack.statusCode, yearBack.body).toBe(200);
    expect((await get(w, `/analytics/${w.channelId}?date=366`)).statusCode).toBe(400);
    clock.set(new Date(start));
  });

  it('GET /analytics/post/{postId}?date=N: the post over time, or {missing: true} without a platform id', async () => {
    const w = await mastodonTenant();
    const [draft] = await createOk(t, w, postBody(w.channelId, { type: 'draft' }));
    expect(await ok(w, `/analytics/post/${draft!.postId}?date=7`)).toEqual({ missing: true });
    const p = await publish(w);
    p.statuses[0]!.favourites_count = 4;
    await collect();
    const series = await ok(w, `/analytics/post/${p.postId}?date=7`);
    expect(series.find((s: { label: string }) => s.label === 'likes')).toEqual({
      label: 'likes',
      percentageChange: 100,
      data: [{ total: 4, date: clock.now().toISOString().slice(0, 10) }],
    });
  });
});

describe('access', () => {
  it("a key without analytics:read gets 403 naming it; another workspace's post or channel is 404", async () => {
    const w = await mastodonTenant();
    const { postId } = await publish(w);
    const noScope = await createTenant(t, { workspaceId: w.workspaceId, scopes: ['posts:read'] });
    const refused = await get(noScope, `/analytics/posts/${postId}`);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'missing_scope', scope: 'analytics:read' });
    const stranger = await createTenant(t);
    for (const url of [
      `/analytics/posts/${postId}`,
      `/analytics/post/${postId}`,
      `/analytics/${w.channelId}`,
      `/analytics/channels/${w.channelId}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z`,
    ])
      expect((await get(stranger, url)).statusCode, url).toBe(404);
  });

  it('a channel-limited key sees only its channels, in the summary too', async () => {
    const a = await mastodonTenant();
    const b = await mastodonTenant({}, a);
    const pa = await publish(a);
    const pb = await publish(b);
    await collect();
    const limited = await createTenant(t, { workspaceId: a.workspaceId, channelIds: [a.channelId] });
    expect((await get(limited, `/analytics/posts/${pb.postId}`)).statusCode).toBe(404);
    expect((await get(limited, `/analytics/${b.channelId}`)).statusCode).toBe(404);
    expect((await get(limited, `/analytics/posts/${pa.postId}`)).statusCode).toBe(200);
    const summary = await ok(limited, '/analytics/summary?startDate=2026-05-01T00:00:00Z&endDate=2026-12-01T00:00:00Z');
    expect(summary.channels.map((c: { integration: string }) => c.integration)).toEqual([a.channelId]);
  });
});

describe('short-link clicks', () => {
  it("counts people's clicks as the post's clicks (Mastodon reports none), leaving out bots, link previews, HEAD and prefetch", async () => {
    const w = await mastodonTenant();
    const [created] = await createOk(
      t,
      w,
      postBody(w.channelId, { type: 'now', date: clock.now().toISOString(), shortLink: true }, [
        { content: '<p>See https://example.com/a</p>' },
      ]),
    );
    await t.settle();
    const text = fake.statuses.filter((s) => s.account.id === w.accountId).at(-1)!.text;
    const path = new URL(/http:\/\/herald\.test\/s\/[0-9A-Za-z]{8}/.exec(text)![0]).pathname;
    const browser = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const visits: Array<{ method: 'GET' | 'HEAD'; headers: Record<string, string> }> = [
      { method: 'GET', headers: { 'user-agent': browser } },
      { method: 'GET', headers: { 'user-agent': browser } },
      { method: 'GET', headers: { 'user-agent': 'http.rb/5.1.1 (Mastodon/4.3.0; +https://mastodon.example/)' } },
      { method: 'GET', headers: { 'user-agent': 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' } },
      { method: 'GET', headers: { 'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } },
      { method: 'GET', headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' } },
      { method: 'GET', headers: { 'user-agent': '' } },
      { method: 'GET', headers: { 'user-agent': browser, 'sec-purpose': 'prefetch;prerender' } },
      { method: 'HEAD', headers: { 'user-agent': browser } },
    ];
    for (const visit of visits) {
      const res = await t.app.inject({ method: visit.method, url: path, headers: visit.headers });
      expect(res.statusCode).toBe(302);
    }
    await collect();
    expect((await ok(w, `/analytics/posts/${created!.postId}`)).metrics).toMatchObject({ clicks: 2, likes: 0 });
  });
});
