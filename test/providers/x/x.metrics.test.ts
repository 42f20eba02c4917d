// X's numbers through the provider's metrics capability against the local X (public metrics,
// non-public ones for the account's own recent posts, deleted posts, rate limits), and through the
// collector, which renews an expiring access token once before reading.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { xProvider } from '../../../src/providers/x/x.provider.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, publishInput } from '../bluesky/helpers.ts';
import { createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { FakeX } from '../oauth/fake-x.ts';
import { connectedChannel, listed, refreshChannelNumbers } from '../oauth/sign-in.ts';

let t: TestApp;
let x: FakeX;
beforeAll(async () => {
  x = await new FakeX().start();
  t = await createTestApp({
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', X_CLIENT_ID: x.clientId, X_CLIENT_SECRET: x.clientSecret, X_API_BASE: x.url },
  });
});
beforeEach(() => {
  x.reset();
  x.expiresIn = 7200;
  x.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await x.stop();
});

const metrics = xProvider.metrics!;

const connected = (expiresIn?: number) => connectedChannel(t, x, 'x', { expiresIn, lifetime: 7200 });

describe('X metrics', () => {
  it("reads posts' public numbers, and link and profile clicks for posts under 30 days old; a deleted post is absent", async () => {
    const { ctx } = await connected();
    const recent = await xProvider.publish(ctx, publishInput({ text: 'recent' }));
    x.postedAgoMs = 40 * 86_400_000;
    const old = await xProvider.publish(ctx, publishInput({ text: 'old' }));
    x.postedAgoMs = 0;
    x.counts.set(recent.id, {
      public: { impression_count: 120, like_count: 9, retweet_count: 2, reply_count: 1, quote_count: 3, bookmark_count: 4 },
      nonPublic: { url_link_clicks: 7, user_profile_clicks: 5 },
    });
    x.counts.set(old.id, { public: { like_count: 2 } });
    const readings = await metrics.posts(ctx, [recent, old, { id: '1799999999999999999' }]);
    const lookups = x.calls.filter((c) => c.path === '/2/tweets' && c.method === 'GET');
    // Posts under 30 days old (by their ids) with their non-public numbers; older ones (X would refuse them so) in a second call.
    expect(lookups.map((c) => [c.query.get('ids'), c.query.get('tweet.fields')])).toEqual([
      [recent.id, 'public_metrics,non_public_metrics'],
      [`${old.id},1799999999999999999`, 'public_metrics'],
    ]);
    expect(readings.get(recent.id)).toEqual({
      metrics: { impressions: 120, likes: 9, reposts: 2, replies: 1, quotes: 3, bookmarks: 4, clicks: 7, profile_visits: 5 },
      raw: {
        impression_count: 120,
        like_count: 9,
        retweet_count: 2,
        reply_count: 1,
        quote_count: 3,
        bookmark_count: 4,
        url_link_clicks: 7,
        user_profile_clicks: 5,
      },
    });
    // Over 30 days old: X gives no non-public numbers, so clicks are not reported (not zero).
    expect(readings.get(old.id)?.metrics).toEqual({ impressions: 0, likes: 2, reposts: 0, replies: 0, quotes: 0, bookmarks: 0 });
    expect(readings.has('1799999999999999999')).toBe(false);
    expect(metrics.batchSize).toBe(100);
  });

  it("reads the account's followers from its public_metrics", async () => {
    const { ctx } = await connected();
    await xProvider.publish(ctx, publishInput({ text: 'one' }));
    x.followers = 321;
    expect(await metrics.account(ctx)).toEqual({
      metrics: { followers: 321, following: 7, posts: 1 },
      raw: { followers_count: 321, following_count: 7, tweet_count: 1 },
    });
    expect(x.calls.at(-1)!.query.get('user.fields')).toBe('public_metrics');
  });

  it("a 429 is rate_limited until X's reset time; a refused token is auth", async () => {
    const { ctx } = await connected();
    const ref = await xProvider.publish(ctx, publishInput({ text: 'limited' }));
    const reset = Math.floor(Date.now() / 1000) + 600;
    x.on((req) =>
      req.path === '/2/tweets' && req.method === 'GET'
        ? {
            status: 429,
            headers: { 'x-rate-limit-reset': String(reset) },
            body: { title: 'Too Many Requests', detail: 'Too Many Requests' },
          }
        : undefined,
    );
    const limited = await providerFailure(metrics.posts(ctx, [ref]));
    expect(limited).toMatchObject({ kind: 'rate_limited' });
    expect(limited.options.retryAfterMs).toBeGreaterThan(500_000);
    x.reset();
    expect(await providerFailure(metrics.account({ ...ctx, config: { ...ctx.config, accessToken: 'xat_revoked_token' } }))).toMatchObject({
      kind: 'auth',
    });
  });
});

describe('X through the collector', () => {
  const read = (w: Tenant, channelId: string) => refreshChannelNumbers(t, w, channelId);

  it('renews an access token due for renewal (once, stored) and reads with the new one', async () => {
    const { tenant, channelId } = await connected(120);
    const before = await t.services.channels.config(tenant.workspaceId, channelId);
    x.followers = 55;
    const res = await read(tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 55, following: 7, posts: 0 } });
    expect(x.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(Date.parse(String(after.expiresAt))).toBeGreaterThan(Date.now() + 3600_000);
    // The renewed token is not due: the next read renews nothing.
    expect((await read(tenant, channelId)).statusCode).toBe(200);
    expect(x.refreshes).toBe(1);
  });

  it('a refused renewal disables the channel for reconnecting, as a refused publish does', async () => {
    const { tenant, channelId } = await connected(120);
    x.refuseRefresh = true;
    await read(tenant, channelId);
    expect(x.refreshCalls).toBe(1);
    expect((await listed(t, tenant)).find((c) => c.id === channelId)).toMatchObject({ disabled: true });
    expect(x.calls.some((c) => c.path === '/2/users/me' && c.query.get('user.fields') === 'public_metrics')).toBe(false);
  });
});
