// Threads' insights through the provider's metrics capability against the local Threads API (a
// post's lifetime metrics, the account's followers, deleted posts, rate limits, a token without
// threads_manage_insights), and through the collector: an expiring token renewed before reading,
// a missing permission recorded without disabling the channel.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import { threadsProvider } from '../../../src/providers/threads/threads.provider.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, publishInput } from '../bluesky/helpers.ts';
import { createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { FakeThreads } from '../oauth/fake-threads.ts';
import { connectedChannel, listed, refreshChannelNumbers } from '../oauth/sign-in.ts';

let t: TestApp;
let th: FakeThreads;
beforeAll(async () => {
  th = await new FakeThreads().start();
  t = await createTestApp({
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', THREADS_APP_ID: th.appId, THREADS_APP_SECRET: th.appSecret, THREADS_API_BASE: th.url },
  });
});
beforeEach(() => {
  th.reset();
  th.processingPolls = 0;
  th.expiresIn = 5_183_944;
  th.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await th.stop();
});

const metrics = threadsProvider.metrics!;

async function connected(options: { expiresIn?: number } = {}) {
  const channel = await connectedChannel(t, th, 'threads', { expiresIn: options.expiresIn, lifetime: 5_183_944 });
  expect(channel.authorize.searchParams.get('scope')).toBe('threads_basic,threads_content_publish,threads_manage_insights');
  return channel;
}

const insightCalls = () => th.calls.filter((c) => /\/insights$/.test(c.path));

describe('Threads metrics', () => {
  it("reads each post's lifetime insights (one call a post); a deleted post is absent", async () => {
    const { ctx } = await connected();
    const a = await threadsProvider.publish(ctx, publishInput({ text: 'first' }));
    const b = await threadsProvider.publish(ctx, publishInput({ text: 'second' }));
    th.insights.set(a.id, { views: 250, likes: 12, replies: 3, reposts: 2, quotes: 1, shares: 4 });
    const readings = await metrics.posts(ctx, [a, b, { id: '18999999999999999' }]);
    expect(insightCalls().map((c) => c.path)).toEqual([
      `/v1.0/${a.id}/insights`,
      `/v1.0/${b.id}/insights`,
      '/v1.0/18999999999999999/insights',
    ]);
    expect(insightCalls()[0]!.query.get('metric')).toBe('views,likes,replies,reposts,quotes,shares');
    expect(readings.get(a.id)).toEqual({
      metrics: { views: 250, likes: 12, replies: 3, reposts: 2, quotes: 1, shares: 4 },
      raw: { views: 250, likes: 12, replies: 3, reposts: 2, quotes: 1, shares: 4 },
    });
    expect(readings.get(b.id)?.metrics).toEqual({ views: 0, likes: 0, replies: 0, reposts: 0, quotes: 0, shares: 0 });
    expect(readings.has('18999999999999999')).toBe(false);
    expect(metrics.batchSize).toBe(1);
  });

  it("reads the account's followers from its user insights", async () => {
    const { ctx } = await connected();
    th.followers = 87;
    expect(await metrics.account(ctx)).toEqual({ metrics: { followers: 87 }, raw: { followers_count: 87 } });
    expect(th.calls.at(-1)!.path).toBe(`/v1.0/${th.signedIn.id}/threads_insights`);
    expect(th.calls.at(-1)!.query.get('metric')).toBe('followers_count');
  });

  it("a rate limit (code 4) is rate_limited; a token without threads_manage_insights is a permission refusal, not the credentials'", async () => {
    const { ctx } = await connected();
    const ref = await threadsProvider.publish(ctx, publishInput({ text: 'limited' }));
    th.on((req) =>
      req.path.endsWith('/insights')
        ? { status: 400, body: { error: { message: 'Application request limit reached', type: 'OAuthException', code: 4 } } }
        : undefined,
    );
    expect(await providerFailure(metrics.posts(ctx, [ref]))).toMatchObject({ kind: 'rate_limited' });
    th.reset();
    th.grantInsights = false;
    const { ctx: without } = await connected();
    const refused = await providerFailure(metrics.account(without));
    expect(refused).toBeInstanceOf(MetricsPermissionError);
    expect(refused).toMatchObject({ kind: 'auth' });
    expect(refused.message).toMatch(/threads_manage_insights/);
  });
});

describe('Threads through the collector', () => {
  const read = (w: Tenant, channelId: string) => refreshChannelNumbers(t, w, channelId);

  it('renews a long-lived token due for renewal once and reads with the new one', async () => {
    const { tenant, channelId } = await connected({ expiresIn: 3600 });
    th.followers = 9;
    const res = await read(tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 9 } });
    expect(th.refreshes).toBe(1);
    expect((await read(tenant, channelId)).statusCode).toBe(200);
    expect(th.refreshes).toBe(1);
  });

  it('a channel connected without threads_manage_insights stays enabled; the refusal is recorded', async () => {
    th.grantInsights = false;
    const { tenant, channelId } = await connected();
    const res = await read(tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect((await listed(t, tenant)).find((c) => c.id === channelId)).toMatchObject({ disabled: false });
    const state = await t.services.analytics.collector.collect(channelId, { due: false, account: true });
    expect(state).toMatchObject({ failures: 1 });
    expect((await listed(t, tenant)).find((c) => c.id === channelId)).toMatchObject({ disabled: false });
  });
});
