// Google Business Profile through the operator's Google app, end to end against the local Google
// server: sign-in with PKCE and the location chosen among those the person manages, local posts
// (what's new with a photo fetched from Herald and a button, an event, an offer), the missing-checks
// (event dates, no comments, photo rules, a BASE_URL Google cannot reach), renewal, a revoked grant,
// a lost location (403), and the locations tool.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleBusinessProvider } from '../../../src/providers/google-business/google-business.provider.ts';
import { mediaItem } from '../bluesky/helpers.ts';
import { closeOutboundClients } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, createPosts, getPost } from '../../helpers/posts.ts';
import { FakeGoogle } from '../oauth/fake-google.ts';
import { listed } from '../oauth/sign-in.ts';

let t: TestApp;
let g: FakeGoogle;
beforeAll(async () => {
  g = await new FakeGoogle().start();
  t = await createTestApp({
    engine: true,
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      GOOGLE_CLIENT_ID: g.clientId,
      GOOGLE_CLIENT_SECRET: g.clientSecret,
      GOOGLE_OAUTH_BASE: g.url,
      GOOGLE_BUSINESS_API_BASE: g.url,
    },
  });
});
beforeEach(() => {
  g.reset();
  g.expiresIn = 3599;
  g.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await g.stop();
});

/** Connects, picking `choice` (a location name) on Herald's choice page. */
async function connect(choice = 'accounts/1001/locations/2002', tenant?: Tenant) {
  const who = tenant ?? (await createTenant(t));
  const started = await t.request({
    method: 'POST',
    url: '/public/v1/integrations/connect',
    key: who.key,
    payload: { provider: 'google-business' },
  });
  expect(started.statusCode, started.body).toBe(200);
  const authorize = new URL(started.json().url);
  const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
  expect(back.origin + back.pathname).toBe(`${TEST_BASE_URL}/integrations/callback/google-business`);
  const ask = await t.request({ method: 'GET', url: back.pathname + back.search });
  expect(ask.statusCode, ask.body).toBe(200);
  const form = /action="([^"]+)"[\s\S]*name="state" value="([^"]+)"/.exec(ask.body)!;
  const chosen = await t.request({
    method: 'POST',
    url: form[1]!,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ state: form[2]!, choice }).toString(),
  });
  expect(chosen.statusCode, chosen.body).toBe(200);
  const channels = await listed(t, who);
  return { tenant: who, channelId: channels.at(-1)!.id, authorize, ask };
}

async function post(tenant: Tenant, channelId: string, settings: Record<string, unknown>, image?: { id: string; path: string }) {
  const [created] = await createOk(t, tenant, {
    type: 'now',
    date: new Date().toISOString(),
    posts: [
      {
        integration: { id: channelId },
        value: [{ content: '<p>Fresh <strong>bread</strong> every morning</p>', ...(image && { image: [image] }) }],
        settings: { __type: 'google-business', ...settings },
      },
    ],
  });
  await t.settle();
  return getPost(t, tenant, created!.postId);
}

describe('Google Business Profile', () => {
  it('connects with the location chosen at sign-in and publishes a post with a photo (fetched from Herald) and a button', async () => {
    const { tenant, channelId, authorize, ask } = await connect();
    expect(authorize.pathname).toBe('/o/oauth2/v2/auth');
    expect(authorize.searchParams.get('scope')).toBe('https://www.googleapis.com/auth/business.manage');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(ask.body).toContain('Herald Café Lyon');
    expect(ask.body).toContain('name="choice" value="accounts/1001/locations/2002"');
    expect((await listed(t, tenant))[0]).toMatchObject({ identifier: 'google-business', name: 'Herald Café Paris' });
    expect(await t.services.channels.config(tenant.workspaceId, channelId)).toMatchObject({
      account: 'accounts/1001',
      location: 'locations/2002',
      locationTitle: 'Herald Café Paris',
    });

    const photo = (
      await t.request({
        method: 'POST',
        url: '/public/v1/upload',
        key: tenant.key,
        ...fileBody(png(300, 300, [200, 120, 40], 12_000), 'bread.png', 'image/png'),
      })
    ).json() as { id: string; path: string };
    const published = await post(
      tenant,
      channelId,
      { callToAction: { actionType: 'ORDER', url: 'https://example.com/order' }, languageCode: 'fr' },
      photo,
    );
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const [local] = g.localPosts;
    expect(local).toMatchObject({
      topicType: 'STANDARD',
      summary: 'Fresh bread every morning',
      languageCode: 'fr',
      callToAction: { actionType: 'ORDER', url: 'https://example.com/order' },
    });
    const media = local!.media as Array<{ mediaFormat: string; sourceUrl: string }>;
    expect(media).toHaveLength(1);
    expect(media[0]!.mediaFormat).toBe('PHOTO');
    expect(media[0]!.sourceUrl.startsWith(`${TEST_BASE_URL}/`)).toBe(true);
    expect(published.releaseId).toBe(local!.name);
    expect(local!.name).toMatch(/^accounts\/1001\/locations\/2002\/localPosts\//);
    expect(published.releaseURL).toBe(local!.searchUrl);
  });

  it('publishes an event and an offer with their dates, coupon and terms', async () => {
    const { tenant, channelId } = await connect('accounts/1001/locations/2001');
    const event = await post(tenant, channelId, {
      topicType: 'EVENT',
      event: { title: 'Tasting night', start: '2026-12-18T18:30', end: '2026-12-18T22:00' },
      callToAction: { actionType: 'BOOK', url: 'https://example.com/book' },
    });
    expect(event.value[0]!.state, JSON.stringify(event)).toBe('PUBLISHED');
    const offer = await post(tenant, channelId, {
      topicType: 'OFFER',
      event: { title: 'Two for one', start: '2026-12-01', end: '2026-12-24' },
      offer: { couponCode: 'BREAD2', redeemOnlineUrl: 'https://example.com/redeem', termsConditions: 'One per customer.' },
    });
    expect(offer.value[0]!.state, JSON.stringify(offer)).toBe('PUBLISHED');
    const [a, b] = g.localPosts.slice(-2);
    expect(a).toMatchObject({
      topicType: 'EVENT',
      event: {
        title: 'Tasting night',
        schedule: {
          startDate: { year: 2026, month: 12, day: 18 },
          endDate: { year: 2026, month: 12, day: 18 },
          startTime: { hours: 18, minutes: 30, seconds: 0, nanos: 0 },
          endTime: { hours: 22, minutes: 0, seconds: 0, nanos: 0 },
        },
      },
    });
    expect(b).toMatchObject({
      topicType: 'OFFER',
      event: {
        title: 'Two for one',
        schedule: { startDate: { year: 2026, month: 12, day: 1 }, endDate: { year: 2026, month: 12, day: 24 } },
      },
      offer: { couponCode: 'BREAD2', redeemOnlineUrl: 'https://example.com/redeem', termsConditions: 'One per customer.' },
    });
    expect((b!.event as { schedule: Record<string, unknown> }).schedule.startTime).toBeUndefined();
  });

  it('reports what a post lacks: an event for an event post, no comments, a button without its URL, photo rules, a BASE_URL Google cannot reach', async () => {
    const { tenant, channelId } = await connect();
    const [created] = await createOk(t, tenant, {
      type: 'draft',
      date: new Date().toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: '<p>Soon</p>' }, { content: '<p>A comment</p>' }],
          settings: { __type: 'google-business', topicType: 'EVENT' },
        },
      ],
    });
    const missing = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key })).json() as {
      missing: Array<{ field: string; reason: string }>;
    };
    expect(missing.missing).toEqual(
      expect.arrayContaining([
        { field: 'settings.event', reason: 'An event post needs `event`: a title, a start and an end.' },
        { field: 'value[1].content', reason: 'Google Business Profile posts have no comments; remove the parts after the first.' },
      ]),
    );
    const noUrl = await createPosts(t, tenant, {
      type: 'draft',
      date: new Date().toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: '<p>x</p>' }],
          settings: { __type: 'google-business', callToAction: { actionType: 'SHOP' } },
        },
      ],
    });
    expect(noUrl.statusCode).toBe(400);
    expect(noUrl.body).toContain('A call-to-action button needs a `url`, except `CALL`');

    const privateApps = { ...t.services.channels.platformApps, baseUrl: 'http://localhost:3000' };
    const photo = mediaItem(Buffer.alloc(20_000), { mimeType: 'image/jpeg', name: 'a.jpg', width: 100, height: 400 });
    const check = (apps: typeof privateApps, media = [photo]) =>
      googleBusinessProvider.validate({ text: 'x', media, settings: {}, part: 0, config: {}, platformApps: apps }).map((m) => m.reason);
    expect(check(t.services.channels.platformApps)).toEqual(['Google takes photos of at least 250×250 pixels; a.jpg is 100×400.']);
    expect(check(privateApps, [{ ...photo, width: 300, height: 300 }])).toEqual([
      expect.stringContaining('BASE_URL (http://localhost:3000) is not a public address'),
    ]);
    expect(check(t.services.channels.platformApps, [{ ...photo, size: 2000 }])).toEqual([
      'Google takes photos of 10 KB to 5 MB; a.jpg is 2000 bytes.',
    ]);
  });

  it('renews the access token before publishing; a revoked grant disables the channel; a location no longer managed (403) needs reconnecting', async () => {
    g.expiresIn = 120;
    const { tenant, channelId } = await connect();
    g.expiresIn = 3599;
    expect((await post(tenant, channelId, {})).value[0]!.state).toBe('PUBLISHED');
    expect(g.refreshes).toBe(1);

    g.expiresIn = 120;
    const second = await connect();
    g.refuseRefresh = true;
    const refused = await post(second.tenant, second.channelId, {});
    expect(refused.errorKind).toBe('auth');
    expect((await listed(t, second.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });

    g.refuseRefresh = false;
    g.expiresIn = 3599;
    const third = await connect();
    g.on((req) =>
      req.path.endsWith('/localPosts')
        ? { status: 403, body: { error: { code: 403, message: 'The caller does not have permission', status: 'PERMISSION_DENIED' } } }
        : undefined,
    );
    const lost = await post(third.tenant, third.channelId, {});
    expect(lost.errorKind).toBe('auth');
    expect(lost.error).toContain('The caller does not have permission');
  });

  it("maps a 429 to a wait and a refused post to a rejection with Google's words", async () => {
    const { tenant, channelId } = await connect();
    g.on((req) =>
      req.path.endsWith('/localPosts')
        ? { status: 400, body: { error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } } }
        : undefined,
    );
    const rejected = await post(tenant, channelId, {});
    expect(rejected.errorKind).toBe('rejected');
    expect(rejected.error).toContain('Google Business Profile answered 400: Request contains an invalid argument.');
    g.reset();
    g.on((req) =>
      req.path.endsWith('/localPosts')
        ? {
            status: 429,
            body: { error: { code: 429, message: 'Quota exceeded.', status: 'RESOURCE_EXHAUSTED' } },
            headers: { 'retry-after': '120' },
          }
        : undefined,
    );
    const waiting = await post(tenant, channelId, {});
    expect(waiting.value[0]!.state).toBe('PENDING');
    expect(waiting.errorKind).toBeNull();
    await t.request({ method: 'DELETE', url: `/public/v1/posts/${waiting.id}`, key: tenant.key });
  });

  it('lists the locations through the integration tool, and has no metrics capability', async () => {
    const { tenant, channelId } = await connect();
    const res = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${channelId}`,
      key: tenant.key,
      payload: { methodName: 'listLocations', data: {} },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual([
      { account: 'accounts/1001', location: 'locations/2001', title: 'Herald Café Lyon' },
      { account: 'accounts/1001', location: 'locations/2002', title: 'Herald Café Paris' },
    ]);
    expect(googleBusinessProvider.metrics).toBeUndefined();
  });
});
