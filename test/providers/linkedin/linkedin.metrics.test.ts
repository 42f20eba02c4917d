// LinkedIn's numbers through the providers' metrics capability against the local LinkedIn: a
// member's posts (memberCreatorPostAnalytics, asked for with LINKEDIN_MEMBER_ANALYTICS), a page's
// posts (organizationalEntityShareStatistics) and followers (networkSizes), refusals and rate
// limits; and through the collector, which renews an expiring token before reading.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { linkedinPageProvider, linkedinProvider } from '../../../src/providers/linkedin/linkedin.provider.ts';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import type { OAuthAppStore } from '../../../src/providers/provider.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { FakeLinkedIn } from '../oauth/fake-linkedin.ts';
import { connectedChannel, listed, refreshChannelNumbers } from '../oauth/sign-in.ts';

let t: TestApp;
let li: FakeLinkedIn;
beforeAll(async () => {
  li = await new FakeLinkedIn().start();
  t = await createTestApp({
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      LINKEDIN_CLIENT_ID: li.clientId,
      LINKEDIN_CLIENT_SECRET: li.clientSecret,
      LINKEDIN_API_BASE: li.url,
      LINKEDIN_MEMBER_ANALYTICS: 'true',
    },
  });
});
beforeEach(() => {
  li.reset();
  li.expiresIn = 5_184_000;
  li.refuseRefresh = false;
  li.issueRefreshTokens = true;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await li.stop();
});

const connected = (provider: 'linkedin' | 'linkedin-page', expiresIn?: number) =>
  connectedChannel(t, li, provider, { expiresIn, lifetime: 5_184_000 });

const statCalls = (path: string) => li.calls.filter((c) => c.path === path);

describe("LinkedIn members' numbers", () => {
  it("asks for r_member_postAnalytics only when the operator's app has it", async () => {
    const { authorize } = await connected('linkedin');
    expect(authorize.searchParams.get('scope')).toBe('openid profile w_member_social r_member_postAnalytics');
    const platformApps = t.services.channels.platformApps;
    const without = {
      ...platformApps,
      apps: { ...platformApps.apps, linkedin: { ...platformApps.apps.linkedin, memberAnalytics: false } },
    };
    const { url } = await linkedinProvider.signIn!.start(
      // LinkedIn's sign-in registers no app: no store is used.
      { ...providerContext({}, { platformApps: without }), apps: {} as OAuthAppStore, redirectUri: 'http://127.0.0.1/cb' },
      { start: {}, state: 's' },
    );
    expect(new URL(url).searchParams.get('scope')).toBe('openid profile w_member_social');
  });

  it("reads a post's impressions, reach, reactions, comments and reshares (one query type a call); a deleted post is absent", async () => {
    const { ctx } = await connected('linkedin');
    const metrics = linkedinProvider.metrics!;
    const ref = await linkedinProvider.publish(ctx, publishInput({ text: 'member post' }));
    li.stats.set(ref.id, { IMPRESSION: 900, MEMBERS_REACHED: 640, REACTION: 31, COMMENT: 4, RESHARE: 2 });
    const readings = await metrics.posts(ctx, [ref, { id: 'urn:li:share:6999999999999999999' }]);
    const calls = statCalls('/rest/memberCreatorPostAnalytics');
    expect(calls.slice(0, 5).map((c) => c.query.get('queryType'))).toEqual([
      'IMPRESSION',
      'MEMBERS_REACHED',
      'REACTION',
      'COMMENT',
      'RESHARE',
    ]);
    expect(calls[0]!.query.get('entity')).toBe(`(share:${ref.id})`);
    expect(calls[0]!.query.get('aggregation')).toBe('TOTAL');
    expect(readings.get(ref.id)).toEqual({
      metrics: { impressions: 900, reach: 640, likes: 31, replies: 4, reposts: 2 },
      raw: { IMPRESSION: 900, MEMBERS_REACHED: 640, REACTION: 31, COMMENT: 4, RESHARE: 2 },
    });
    expect(readings.has('urn:li:share:6999999999999999999')).toBe(false);
    expect(metrics.reports.account).toEqual([]);
  });

  it('a token without the scope is a permission refusal (the channel still publishes); a 429 is rate_limited', async () => {
    li.declined = ['r_member_postAnalytics'];
    const { ctx, tenant, channelId } = await connected('linkedin');
    const ref = await linkedinProvider.publish(ctx, publishInput({ text: 'no numbers' }));
    const refused = await providerFailure(linkedinProvider.metrics!.posts(ctx, [ref]));
    expect(refused).toBeInstanceOf(MetricsPermissionError);
    expect(refused.message).toMatch(/r_member_postAnalytics/);
    // Through the collector: recorded, the channel stays enabled.
    await t.services.analytics.collector.collect(channelId, { due: false, account: true });
    expect((await listed(t, tenant)).find((c) => c.id === channelId)).toMatchObject({ disabled: false });
    li.on((req) =>
      req.path === '/rest/memberCreatorPostAnalytics'
        ? { status: 429, headers: { 'retry-after': '120' }, body: { status: 429, message: 'Resource level throttle limit reached' } }
        : undefined,
    );
    expect(await providerFailure(linkedinProvider.metrics!.posts(ctx, [ref]))).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 120_000 },
    });
  });
});

describe("LinkedIn pages' numbers", () => {
  it("reads the page's posts in one share-statistics call and its followers from networkSizes", async () => {
    const { ctx } = await connected('linkedin-page');
    const metrics = linkedinPageProvider.metrics!;
    const a = await linkedinPageProvider.publish(ctx, publishInput({ text: 'page post a' }));
    const b = await linkedinPageProvider.publish(ctx, publishInput({ text: 'page post b' }));
    li.stats.set(a.id, {
      impressionCount: 500,
      uniqueImpressionsCount: 410,
      clickCount: 12,
      likeCount: 20,
      commentCount: 3,
      shareCount: 1,
    });
    const readings = await metrics.posts(ctx, [a, b, { id: 'urn:li:ugcPost:6999999999999999999' }]);
    const calls = statCalls('/rest/organizationalEntityShareStatistics');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query.get('organizationalEntity')).toBe('urn:li:organization:5515715');
    expect(calls[0]!.query.get('shares')).toBe(`List(${a.id},${b.id})`);
    expect(calls[0]!.query.get('ugcPosts')).toBe('List(urn:li:ugcPost:6999999999999999999)');
    expect(readings.get(a.id)).toEqual({
      metrics: { impressions: 500, reach: 410, clicks: 12, likes: 20, replies: 3, reposts: 1 },
      raw: { impressionCount: 500, uniqueImpressionsCount: 410, clickCount: 12, likeCount: 20, commentCount: 3, shareCount: 1 },
    });
    expect(readings.get(b.id)?.metrics).toEqual({ impressions: 0, reach: 0, clicks: 0, likes: 0, replies: 0, reposts: 0 });
    expect(readings.has('urn:li:ugcPost:6999999999999999999')).toBe(false);
    li.pageFollowers = 1234;
    expect(await metrics.account(ctx)).toEqual({ metrics: { followers: 1234 }, raw: { firstDegreeSize: 1234 } });
    expect(li.calls.at(-1)!.path).toBe('/rest/networkSizes/urn%3Ali%3Aorganization%3A5515715');
  });

  it('a page whose administrator lost the rights is a permission refusal; the collector renews an expiring token before reading', async () => {
    const { ctx } = await connected('linkedin-page');
    li.admins.set(li.signedIn.sub, []);
    try {
      expect(await providerFailure(linkedinPageProvider.metrics!.account(ctx))).toBeInstanceOf(MetricsPermissionError);
    } finally {
      li.admins.set(li.signedIn.sub, ['5515715']);
    }
    const { tenant, channelId } = await connected('linkedin-page', 3600);
    li.pageFollowers = 77;
    const res = await refreshChannelNumbers(t, tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 77 } });
    expect(li.refreshes).toBe(1);
  });
});
