// TikTok's numbers through the provider's metrics capability against the local TikTok API (video
// query stats with 64-bit ids, the account's counts, rate limits, a sign-in without the stats
// scopes), and through the collector: an expiring token renewed before reading, a missing scope
// recorded without disabling the channel.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import { tiktokProvider } from '../../../src/providers/tiktok/tiktok.provider.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { mp4 } from '../../helpers/media-files.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, mediaItem, publishInput } from '../bluesky/helpers.ts';
import { FakeTiktok } from '../oauth/fake-tiktok.ts';
import { connectedChannel, listed, refreshChannelNumbers } from '../oauth/sign-in.ts';

let t: TestApp;
let tk: FakeTiktok;
beforeAll(async () => {
  tk = await new FakeTiktok().start();
  t = await createTestApp({
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      TIKTOK_CLIENT_KEY: tk.clientKey,
      TIKTOK_CLIENT_SECRET: tk.clientSecret,
      TIKTOK_API_BASE: tk.url,
    },
  });
});
beforeEach(() => {
  tk.reset();
  tk.processingPolls = 0;
  tk.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await tk.stop();
});

const metrics = tiktokProvider.metrics!;
const connected = (options: { expiresIn?: number } = {}) =>
  connectedChannel(t, tk, 'tiktok', { expiresIn: options.expiresIn, lifetime: 86_400 });
const video = (privacyLevel = 'PUBLIC_TO_EVERYONE') =>
  publishInput({ media: [mediaItem(mp4(720, 1280), { mimeType: 'video/mp4' })], settings: { privacyLevel } });

describe('TikTok metrics', () => {
  it("reads videos' views, likes, comments and shares in one query by their exact 64-bit ids; unknown ids are absent", async () => {
    const { ctx } = await connected();
    const a = await tiktokProvider.publish(ctx, video());
    const b = await tiktokProvider.publish(ctx, video());
    const hidden = await tiktokProvider.publish(ctx, video('SELF_ONLY'));
    tk.stats.set(a.id, { view_count: 1200, like_count: 80, comment_count: 7, share_count: 3 });
    tk.stats.set(b.id, { view_count: 5 });
    const readings = await metrics.posts(ctx, [a, b, hidden, { id: '7311999999999999999' }]);
    const query = tk.calls.filter((c) => c.path === '/v2/video/query/');
    expect(query).toHaveLength(1);
    expect(query[0]!.query.get('fields')).toBe('id,view_count,like_count,comment_count,share_count');
    // A private post's release id is its publish id: not asked for.
    expect(query[0]!.json).toEqual({ filters: { video_ids: [a.id, b.id, '7311999999999999999'] } });
    expect(readings.get(a.id)).toEqual({
      metrics: { views: 1200, likes: 80, replies: 7, shares: 3 },
      raw: { view_count: 1200, like_count: 80, comment_count: 7, share_count: 3 },
    });
    expect(readings.get(b.id)).toEqual({ metrics: { views: 5 }, raw: { view_count: 5 } });
    expect([...readings.keys()].sort()).toEqual([a.id, b.id].sort());
    expect(metrics.batchSize).toBe(20);
  });

  it("reads the account's followers, following and videos", async () => {
    const { ctx } = await connected();
    await tiktokProvider.publish(ctx, video());
    tk.followers = 431;
    expect(await metrics.account(ctx)).toEqual({
      metrics: { followers: 431, following: 12, posts: 1 },
      raw: { follower_count: 431, following_count: 12, video_count: 1 },
    });
  });

  it('a rate limit is rate_limited; a sign-in without the stats scopes is a permission refusal, not dead credentials', async () => {
    const { ctx } = await connected();
    const ref = await tiktokProvider.publish(ctx, video());
    tk.on((req) =>
      req.path === '/v2/video/query/'
        ? {
            status: 429,
            headers: { 'retry-after': '30' },
            body: { data: {}, error: { code: 'rate_limit_exceeded', message: 'slow down', log_id: 'L' } },
          }
        : undefined,
    );
    expect(await providerFailure(metrics.posts(ctx, [ref]))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 30_000 } });
    tk.reset();
    tk.grant = (scope) => scope !== 'user.info.stats' && scope !== 'video.list';
    const { ctx: without } = await connected();
    const refused = await providerFailure(metrics.account(without));
    expect(refused).toBeInstanceOf(MetricsPermissionError);
    expect(refused.message).toContain('user.info.stats');
    expect(await providerFailure(metrics.posts(without, [ref]))).toBeInstanceOf(MetricsPermissionError);
  });
});

describe('TikTok through the collector', () => {
  it('renews an expiring token once before reading; a missing scope is recorded without disabling the channel', async () => {
    const { tenant, channelId } = await connected({ expiresIn: 600 });
    tk.followers = 9;
    const res = await refreshChannelNumbers(t, tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 9 } });
    expect(tk.refreshes).toBe(1);

    tk.grant = (scope) => scope !== 'user.info.stats';
    const other = await connected();
    expect((await refreshChannelNumbers(t, other.tenant, other.channelId)).statusCode).toBe(200);
    const state = await t.services.analytics.collector.collect(other.channelId, { due: false, account: true });
    expect(state).toMatchObject({ failures: 1 });
    expect((await listed(t, other.tenant)).find((c) => c.id === other.channelId)).toMatchObject({ disabled: false });
  });
});
