// Instagram professional accounts, end to end against a local server speaking the Graph API:
// through Facebook Login (the account linked to a page, chosen on Herald's page when there are
// several) and through Instagram Login (long-lived token, renewed before it expires); media
// containers for an image, a carousel, a reel and a story, fetched from Herald's media URLs and
// polled on the engine's clock; a first comment and a reply under it; the publishing limit; a
// lost answer to media_publish checked on the container; what /missing reports; errors.
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, waitOn } from '../../../src/lib/clock.ts';
import { instagramProvider, instagramStandaloneProvider, POLL_DELAYS_MS } from '../../../src/providers/instagram/instagram.provider.ts';
import type { ProviderContext } from '../../../src/providers/provider.ts';
import { createTenant, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { jpeg, mp4, png } from '../../helpers/media-files.ts';
import { createOk, getPost, uploadMedia } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import type { FakeMeta } from '../oauth/fake-meta.ts';
import { useMetaApp } from '../oauth/meta-app.ts';
import { listed, refreshChannelNumbers, signInThroughApi } from '../oauth/sign-in.ts';
const app = useMetaApp({ instagramLogin: true });
let t: TestApp;
let meta: FakeMeta;
beforeAll(() => {
  ({ t, meta } = app);
});

const upload = (tenant: Tenant, data: Buffer, name: string, type: string) => uploadMedia(t, tenant, data, name, type);

const post = (provider: string, channelId: string, value: Array<Record<string, unknown>>, settings: Record<string, unknown> = {}) => ({
  type: 'now',
  date: new Date().toISOString(),
  posts: [{ integration: { id: channelId }, value, settings: { __type: provider, ...settings } }],
});

async function contextOf(tenant: Tenant, channelId: string, sleeps?: number[]): Promise<ProviderContext> {
  const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channelId), {
    platformApps: t.services.channels.platformApps,
  });
  // The engine's clock stands in: each wait is recorded and ends at once.
  return sleeps ? { ...ctx, wait: async (ms) => void sleeps.push(ms) } : ctx;
}

async function connectedThroughFacebook(): Promise<{ tenant: Tenant; channelId: string }> {
  const tenant = await createTenant(t);
  const { channels } = await signInThroughApi(t, tenant, { provider: 'instagram' });
  return { tenant, channelId: channels[0]!.id };
}

async function missing(tenant: Tenant, body: unknown) {
  const [created] = await createOk(t, tenant, { ...(body as object), type: 'draft' });
  const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
}

describe('Instagram through Facebook Login', () => {
  it('connects the account linked to the page the person picks, and publishes an image with a first comment and a reply', async () => {
    meta.pages.push(
      { id: '101000000000002', name: 'No Instagram here', tasks: ['CREATE_CONTENT'] },
      {
        id: '101000000000003',
        name: 'Herald Coffee',
        tasks: ['CREATE_CONTENT', 'MODERATE'],
        instagram: { id: '17841400000000103', username: 'herald.coffee', name: 'Herald Coffee' },
      },
    );
    const tenant = await createTenant(t);
    const started = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'instagram' },
    });
    expect(started.statusCode, started.body).toBe(200);
    const authorize = new URL(started.json().url);
    expect(authorize.searchParams.get('scope')).toContain('instagram_content_publish');
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    const ask = await t.request({ method: 'GET', url: back.pathname + back.search });
    expect(ask.statusCode, ask.body).toBe(200);
    expect(ask.body).toContain('@herald.bakery (Herald Bakery)');
    expect(ask.body).toContain('@herald.coffee (Herald Coffee)');
    expect(ask.body).not.toContain('No Instagram here');
    const state = /name="state" value="([^"]+)"/.exec(ask.body)![1]!;
    const chosen = await t.request({
      method: 'POST',
      url: '/integrations/callback/instagram/choose',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ state, choice: '17841400000000103' }).toString(),
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const [channel] = await listed(t, tenant);
    expect(channel).toMatchObject({ identifier: 'instagram', name: 'Herald Coffee', profile: 'herald.coffee' });
    expect(await t.services.channels.config(tenant.workspaceId, channel!.id)).toMatchObject({
      userId: '17841400000000103',
      pageId: '101000000000003',
      accessToken: expect.stringMatching(/^EAAP/),
    });

    const image = await upload(tenant, jpeg(50, 40), 'cake.jpg', 'image/jpeg');
    const [created] = await createOk(
      t,
      tenant,
      post(
        'instagram',
        channel!.id,
        [{ content: '<p>New cake #baking</p>', image: [image] }, { content: '<p>Recipe in bio</p>' }, { content: '<p>And a reply</p>' }],
        { collaborators: ['herald.bakery'], location: '110843418940484' },
      ),
    );
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(
      published.value.map((v) => v.state),
      JSON.stringify(published),
    ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    const [media] = meta.igMedia;
    expect(media).toMatchObject({ owner: '17841400000000103', type: 'IMAGE', caption: 'New cake #baking' });
    expect(media!.params).toMatchObject({ collaborators: '["herald.bakery"]', location_id: '110843418940484' });
    // Instagram fetches the image from Herald's public media URL.
    expect(new URL(media!.urls[0]!).origin).toBe(TEST_BASE_URL);
    const served = await t.request({ method: 'GET', url: new URL(media!.urls[0]!).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(published.releaseId).toBe(media!.id);
    expect(published.releaseURL).toBe(`https://www.instagram.com/p/${media!.id.slice(-11)}/`);
    const [first, reply] = meta.comments;
    expect(first).toMatchObject({ on: media!.id, message: 'Recipe in bio', reply: false });
    expect(reply).toMatchObject({ on: first!.id, message: 'And a reply', reply: true });
  });

  it('a carousel: items as carousel containers, each polled until FINISHED on the engine clock, then the parent', async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    meta.processingPolls = 2;
    const sleeps: number[] = [];
    const ctx = await contextOf(tenant, channelId, sleeps);
    const media = [
      mediaItem(Buffer.from('a'), { url: '/uploads/ws/one.jpg', mimeType: 'image/jpeg', width: 1080, height: 1350 }),
      mediaItem(Buffer.from('b'), { url: '/uploads/ws/two.mp4', mimeType: 'video/mp4', width: 1080, height: 1920 }),
    ];
    const ref = await instagramProvider.publish(
      ctx,
      publishInput({ text: 'Two things', media, settings: { alt: { [media[0]!.id]: 'A croissant' } } }),
    );
    const published = meta.igMedia.find((m) => m.id === ref.id)!;
    expect(published).toMatchObject({
      type: 'CAROUSEL',
      caption: 'Two things',
      urls: [`${TEST_BASE_URL}/uploads/ws/one.jpg`, `${TEST_BASE_URL}/uploads/ws/two.mp4`],
    });
    const children = [...meta.containers.values()].filter((c) => c.params.is_carousel_item === 'true');
    expect(children.map((c) => c.params.media_type ?? 'IMAGE')).toEqual(['IMAGE', 'VIDEO']);
    expect(children[0]!.params.alt_text).toBe('A croissant');
    // Three containers, each checked three times (twice IN_PROGRESS): waits come from the clock, none slept here.
    expect(sleeps).toEqual([...POLL_DELAYS_MS.slice(1, 3), ...POLL_DELAYS_MS.slice(1, 3), ...POLL_DELAYS_MS.slice(1, 3)]);
  });

  it('a wait on the engine clock moves a test clock instead of sleeping', async () => {
    const clock = new ManualClock('2026-11-27T10:00:00Z');
    await waitOn(clock, 60_000);
    expect(clock.now().toISOString()).toBe('2026-11-27T10:01:00.000Z');
  });

  it('a reel (share_to_feed) and a story (no caption) are the right containers; a failed container is refused in words', async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const ctx = await contextOf(tenant, channelId, []);
    const video = mediaItem(Buffer.from('v'), { url: '/uploads/ws/reel.mp4', mimeType: 'video/mp4', width: 1080, height: 1920 });
    const reel = await instagramProvider.publish(
      ctx,
      publishInput({ text: 'Behind the scenes', media: [video], settings: { shareToFeed: false } }),
    );
    expect(meta.igMedia.find((m) => m.id === reel.id)!.params).toMatchObject({
      media_type: 'REELS',
      share_to_feed: 'false',
      caption: 'Behind the scenes',
      video_url: `${TEST_BASE_URL}/uploads/ws/reel.mp4`,
    });
    const still = mediaItem(Buffer.from('s'), { url: '/uploads/ws/story.jpg', mimeType: 'image/jpeg', width: 1080, height: 1080 });
    const story = await instagramProvider.publish(ctx, publishInput({ text: '', media: [still], settings: { postType: 'story' } }));
    expect(meta.igMedia.find((m) => m.id === story.id)!.params).toEqual({
      media_type: 'STORIES',
      image_url: `${TEST_BASE_URL}/uploads/ws/story.jpg`,
    });

    meta.failingMedia = { match: 'broken', subcode: 2207052 };
    const broken = mediaItem(Buffer.from('x'), { url: '/uploads/ws/broken.jpg', mimeType: 'image/jpeg', width: 100, height: 100 });
    const failure = await providerFailure(instagramProvider.publish(ctx, publishInput({ text: 'Broken', media: [broken] })));
    expect(failure).toMatchObject({
      kind: 'rejected',
      message: 'Instagram could not prepare the media: Media download has failed. (2207052).',
    });
    expect(meta.calls.filter((c) => c.path.endsWith('/media_publish'))).toHaveLength(2);
  });

  it("the day's publishing limit delays the post; Graph errors map to reconnect, wait and refusals in words", async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const ctx = await contextOf(tenant, channelId, []);
    const image = () => [mediaItem(Buffer.from('i'), { url: '/uploads/ws/i.jpg', mimeType: 'image/jpeg', width: 100, height: 100 })];
    meta.quotaUsage = 100;
    const limited = await providerFailure(instagramProvider.publish(ctx, publishInput({ text: 'One too many', media: image() })));
    expect(limited).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 3_600_000 } });
    expect(limited.message).toContain('published its 100 posts of the last 24 hours');
    expect(meta.calls.some((c) => c.path.endsWith('/media'))).toBe(false);

    const failure = (answer: { status: number; body?: unknown }) => {
      meta.reset();
      meta.on((req) => (req.path.endsWith('/media') ? answer : undefined));
      return providerFailure(instagramProvider.publish(ctx, publishInput({ text: 'Mapped', media: image() })));
    };
    expect(
      await failure({ status: 400, body: { error: { message: 'Error validating access token', code: 190, error_subcode: 460 } } }),
    ).toMatchObject({
      kind: 'auth',
    });
    expect(await failure({ status: 400, body: { error: { message: 'Application request limit reached', code: 4 } } })).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 60_000 },
    });
    expect(
      await failure({
        status: 400,
        body: {
          error: { message: 'Invalid parameter', code: 100, error_subcode: 2207009, error_user_msg: 'The aspect ratio is not supported.' },
        },
      }),
    ).toMatchObject({
      kind: 'rejected',
      message:
        "Instagram answered 400: the image's aspect ratio is outside what Instagram accepts (from 4:5 portrait to 1.91:1 landscape) (The aspect ratio is not supported.)",
    });
    expect(
      await failure({ status: 400, body: { error: { message: 'Application request limit reached', code: 9, error_subcode: 2207042 } } }),
    ).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 3_600_000 } });
  });

  it('through the engine: a used-up day is retried an hour later, never sent; media Instagram cannot fetch ends as ERROR in words', async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const image = await upload(tenant, jpeg(40, 40), 'a.jpg', 'image/jpeg');
    meta.quotaUsage = 100;
    const before = Date.now();
    const [waiting] = await createOk(t, tenant, post('instagram', channelId, [{ content: '<p>Tomorrow maybe</p>', image: [image] }]));
    await t.settle();
    const delayed = await getPost(t, tenant, waiting!.postId);
    expect([delayed.state, delayed.value[0]!.state]).toEqual(['QUEUE', 'PENDING']);
    const row = await t.runtime.db.selectFrom('posts').select(['next_run_at']).where('id', '=', waiting!.postId).executeTakeFirstOrThrow();
    expect(new Date(row.next_run_at as string | Date).getTime() - before).toBeGreaterThanOrEqual(3_600_000);
    expect(meta.calls.some((c) => c.path.endsWith('/media_publish'))).toBe(false);

    meta.reset();
    meta.failingMedia = { match: '/', subcode: 2207052 };
    const [broken] = await createOk(t, tenant, post('instagram', channelId, [{ content: '<p>Broken</p>', image: [image] }]));
    await t.settle();
    const refused = await getPost(t, tenant, broken!.postId);
    expect(refused).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(refused.error).toContain('Instagram could not prepare the media: Media download has failed.');
  });

  it('a lost answer to media_publish: published (the container says PUBLISHED) is unconfirmed; not published is sent once more', async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const ctx = await contextOf(tenant, channelId, []);
    const image = () => [mediaItem(Buffer.from('i'), { url: '/uploads/ws/i.jpg', mimeType: 'image/jpeg', width: 100, height: 100 })];
    meta.cutPublish = 'before';
    const ref = await instagramProvider.publish(ctx, publishInput({ text: 'Sent again', media: image() }));
    expect(meta.igMedia.map((m) => m.id)).toEqual([ref.id]);

    meta.cutPublish = 'after';
    const lost = await providerFailure(instagramProvider.publish(ctx, publishInput({ text: 'Maybe out', media: image() })));
    expect(lost.kind).toBe('unknown_outcome');
    expect(meta.igMedia.map((m) => m.caption)).toEqual(['Sent again', 'Maybe out']);
    expect(instagramProvider.idempotentWrites).toBe(false);
  });

  it("reports in /missing what Instagram would refuse: no media, PNG, the aspect ratio, a story's caption, a reel's image and length, a comment's media, hashtags", async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const wide = await upload(tenant, jpeg(300, 100), 'wide.jpg', 'image/jpeg');
    const square = await upload(tenant, jpeg(40, 40), 'square.jpg', 'image/jpeg');
    const drawing = await upload(tenant, png(40, 40), 'drawing.png', 'image/png');
    const clip = await upload(tenant, mp4(72, 128, { seconds: 10 }), 'clip.mp4', 'video/mp4');
    const short = await upload(tenant, mp4(72, 128, { seconds: 1.5, fill: 1 }), 'short.mp4', 'video/mp4');
    const long = await upload(tenant, mp4(72, 128, { seconds: 90, fill: 2 }), 'long.mp4', 'video/mp4');
    const check = (value: Array<Record<string, unknown>>, settings: Record<string, unknown> = {}) =>
      missing(tenant, post('instagram', channelId, value, settings));
    expect(await check([{ content: '<p>Words only</p>' }])).toEqual([
      { field: 'value[0].image', reason: 'Instagram needs at least one image or video.' },
    ]);
    expect(await check([{ content: '<p>x</p>', image: [drawing] }])).toEqual([
      { field: 'value[0].image[0]', reason: 'Instagram does not take image/png files.' },
    ]);
    expect(await check([{ content: '<p>x</p>', image: [wide] }])).toEqual([
      { field: 'value[0].image[0]', reason: expect.stringContaining('is 300×100; Instagram takes images from 4:5 (portrait) to 1.91:1') },
    ]);
    expect(await check([{ content: '<p>x</p>', image: [square] }], { postType: 'story' })).toEqual([
      { field: 'value[0].content', reason: 'Instagram stories show no caption; remove the text or post it as a post.' },
    ]);
    expect(await check([{ content: '<p>x</p>', image: [square] }], { postType: 'reel' })).toEqual([
      { field: 'value[0].image', reason: 'A reel is one video (MP4 or MOV), alone.' },
    ]);
    // Lengths the media library read from the videos' movie headers when they were stored.
    expect(await check([{ content: '<p>x</p>', image: [short] }], { postType: 'reel' })).toEqual([
      { field: 'value[0].image[0]', reason: 'short.mp4 lasts 1.5 s; Instagram takes reels of 3 s to 15 min.' },
    ]);
    expect(await check([{ content: '', image: [long] }], { postType: 'story' })).toEqual([
      { field: 'value[0].image[0]', reason: 'long.mp4 lasts 1 min 30 s; Instagram takes story videos of 3 s to 1 min.' },
    ]);
    expect(await check([{ content: '', image: [clip] }], { postType: 'story' })).toEqual([]);
    expect(
      await check([
        { content: '<p>x</p>', image: [clip] },
        { content: '<p>y</p>', image: [square] },
      ]),
    ).toEqual([{ field: 'value[1].image', reason: 'Instagram comments are text only.' }]);
    const tags = Array.from({ length: 31 }, (_, i) => `#tag${i}`).join(' ');
    expect(await check([{ content: `<p>${tags}</p>`, image: [square, clip] }])).toEqual([
      { field: 'value[0].content', reason: 'The text has 31 hashtags; Instagram allows 30.' },
    ]);
    expect(await check([{ content: '<p>A carousel</p>', image: [square, clip] }, { content: '<p>A comment</p>' }])).toEqual([]);
    // A carousel's videos: the reference's video limits (3 s to 60 s), not the reels' 15 minutes; each named by its place.
    expect(await check([{ content: '<p>A carousel</p>', image: [square, long, clip, short] }])).toEqual([
      { field: 'value[0].image[1]', reason: 'long.mp4 lasts 1 min 30 s; Instagram takes carousel videos of 3 s to 1 min.' },
      { field: 'value[0].image[3]', reason: 'short.mp4 lasts 1.5 s; Instagram takes carousel videos of 3 s to 1 min.' },
    ]);
    // The same long video alone is a reel, which may last 15 minutes.
    expect(await check([{ content: '<p>A reel</p>', image: [long] }])).toEqual([]);
  });

  it('finds places to tag and checks collaborators with the tools (Facebook Login); Instagram Login reaches neither API', async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const trigger = (methodName: string, data: Record<string, unknown>, id = channelId, key = tenant.key) =>
      t.request({ method: 'POST', url: `/public/v1/integration-trigger/${id}`, key, payload: { methodName, data } });
    const places = await trigger('locations', { query: 'herald bakery' });
    expect(places.statusCode, places.body).toBe(200);
    // Only pages with a location: Instagram refuses the others as locations.
    expect(places.json()).toEqual([
      {
        id: '110843418940484',
        name: 'Herald Bakery Berlin',
        street: 'Torstraße 1',
        city: 'Berlin',
        country: 'Germany',
        latitude: 52.529,
        longitude: 13.401,
      },
      {
        id: '110843418940486',
        name: 'Herald Bakery Paris',
        street: null,
        city: 'Paris',
        country: 'France',
        latitude: 48.86,
        longitude: 2.35,
      },
    ]);
    const search = meta.calls.find((c) => c.path.endsWith('/pages/search'))!;
    expect(search.query.get('q')).toBe('herald bakery');
    expect(search.headers.authorization).toMatch(/^Bearer EAAP/);
    expect((await trigger('locations', { query: 'x' })).json()).toMatchObject({ code: 'invalid_tool_input' });
    // Without the app feature the search needs, the operator is told which (the channel's credentials are fine).
    meta.pagesSearchFeature = false;
    const refused = await trigger('locations', { query: 'herald' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'platform_rejected', msg: expect.stringContaining('Page Public Metadata Access') });
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: false });

    const friend = await trigger('collaborator', { username: '@herald.friends' });
    expect(friend.statusCode, friend.body).toBe(200);
    expect(friend.json()).toEqual({
      username: 'herald.friends',
      found: true,
      professional: true,
      id: '17841400000000555',
      name: 'Friends of Herald',
      picture: 'https://scontent.cdninstagram.com/17841400000000555.jpg',
      followers: 3400,
      posts: 120,
    });
    const unknown = await trigger('collaborator', { username: 'nobody.here' });
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect(unknown.json()).toMatchObject({
      username: 'nobody.here',
      found: false,
      professional: null,
      reason: expect.stringContaining('The user with username: nobody.here cannot be found.'),
    });
    expect((await trigger('collaborator', { username: 'not a name' })).json()).toMatchObject({ code: 'invalid_tool_input' });

    const other = await createTenant(t);
    const { channels } = await signInThroughApi(t, other, { provider: 'instagram-standalone' });
    const none = await trigger('locations', { query: 'herald' }, channels[0]!.id, other.key);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'unknown_tool' });
  });

  it("reads a post's insights by its type (reels' watch time, likes and comments) and the account's counts; a deleted post is absent", async () => {
    const { tenant, channelId } = await connectedThroughFacebook();
    const ctx = await contextOf(tenant, channelId, []);
    const image = mediaItem(Buffer.from('i'), { url: '/uploads/ws/i.jpg', mimeType: 'image/jpeg', width: 100, height: 100 });
    const video = mediaItem(Buffer.from('v'), { url: '/uploads/ws/v.mp4', mimeType: 'video/mp4', width: 1080, height: 1920 });
    const feed = await instagramProvider.publish(ctx, publishInput({ text: 'feed', media: [image] }));
    const reel = await instagramProvider.publish(ctx, publishInput({ text: 'reel', media: [video] }));
    meta.insights.set(feed.id, { views: 300, reach: 120, likes: 30, comments: 4, shares: 2, saved: 5, profile_visits: 7 });
    meta.insights.set(reel.id, {
      views: 900,
      reach: 500,
      likes: 80,
      comments: 9,
      shares: 11,
      saved: 3,
      ig_reels_video_view_total_time: 45_000,
    });
    meta.followers.set('17841400000000101', 2048);
    const metrics = instagramProvider.metrics!;
    const readings = await metrics.posts(ctx, [feed, reel, { id: '17999999999999999' }]);
    expect(readings.get(feed.id)?.metrics).toEqual({
      views: 300,
      reach: 120,
      likes: 30,
      replies: 4,
      shares: 2,
      saves: 5,
      profile_visits: 7,
    });
    expect(readings.get(reel.id)?.metrics).toEqual({
      views: 900,
      reach: 500,
      likes: 80,
      replies: 9,
      shares: 11,
      saves: 3,
      watch_time: 45_000,
    });
    expect(readings.has('17999999999999999')).toBe(false);
    expect((await metrics.account(ctx)).metrics).toEqual({ followers: 2048, following: 12, posts: 2 });
  });
});

describe('Instagram through Instagram Login', () => {
  async function connectedStandalone(expiresIn: number): Promise<{ tenant: Tenant; channelId: string }> {
    meta.expiresIn = expiresIn;
    const tenant = await createTenant(t);
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'instagram-standalone' });
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(authorize.searchParams.get('scope')).toBe(
      'instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments,instagram_business_manage_insights',
    );
    meta.expiresIn = 5_184_000;
    return { tenant, channelId: channels[0]!.id };
  }

  it('connects with the long-lived token and publishes an image and a first comment through graph.instagram.com', async () => {
    const { tenant, channelId } = await connectedStandalone(5_184_000);
    expect((await listed(t, tenant))[0]).toMatchObject({
      identifier: 'instagram-standalone',
      name: 'Herald on Instagram',
      profile: 'herald.ig',
    });
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(config).toMatchObject({ userId: '17841400000000777', accessToken: expect.stringMatching(/^IGQL/) });
    expect(Date.parse(String(config.expiresAt)) - Date.now()).toBeGreaterThan(59 * 24 * 3600_000);
    const image = await upload(tenant, jpeg(40, 40), 'a.jpg', 'image/jpeg');
    const [created] = await createOk(
      t,
      tenant,
      post('instagram-standalone', channelId, [{ content: '<p>Hello</p>', image: [image] }, { content: '<p>First!</p>' }]),
    );
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(meta.igMedia[0]).toMatchObject({ owner: '17841400000000777', caption: 'Hello' });
    expect(meta.comments[0]).toMatchObject({ on: meta.igMedia[0]!.id, message: 'First!' });
  });

  it('renews a token with a week left before publishing; a refused renewal disables the channel and notifies', async () => {
    const { tenant, channelId } = await connectedStandalone(3 * 24 * 3600);
    const before = await t.services.channels.config(tenant.workspaceId, channelId);
    const image = await upload(tenant, jpeg(40, 40), 'a.jpg', 'image/jpeg');
    const [renewed] = await createOk(
      t,
      tenant,
      post('instagram-standalone', channelId, [{ content: '<p>After a refresh</p>', image: [image] }]),
    );
    await t.settle();
    expect((await getPost(t, tenant, renewed!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(meta.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(Date.parse(String(after.expiresAt))).toBeGreaterThan(Date.parse(String(before.expiresAt)));

    const other = await connectedStandalone(3 * 24 * 3600);
    meta.refuseRefresh = true;
    const otherImage = await upload(other.tenant, jpeg(40, 40), 'a.jpg', 'image/jpeg');
    const [refused] = await createOk(
      t,
      other.tenant,
      post('instagram-standalone', other.channelId, [{ content: '<p>Never sent</p>', image: [otherImage] }]),
    );
    await t.settle();
    expect((await getPost(t, other.tenant, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(t, other.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: other.tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('Instagram refused to renew the access token');
    expect(meta.igMedia.map((m) => m.caption)).toEqual(['After a refresh']);
  });

  it("through the analytics collector: an expiring token is renewed once, then the account's numbers are read with it", async () => {
    const { tenant, channelId } = await connectedStandalone(3 * 24 * 3600);
    meta.followers.set('17841400000000777', 321);
    const res = await refreshChannelNumbers(t, tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 321, following: 12 } });
    expect(meta.refreshes).toBe(1);
    expect((await refreshChannelNumbers(t, tenant, channelId)).statusCode).toBe(200);
    expect(meta.refreshes).toBe(1);
  });

  it('refuses a personal account at sign-in, saying how to make it professional', async () => {
    meta.igLogin = { ...meta.igLogin, accountType: 'PERSONAL' };
    try {
      const tenant = await createTenant(t);
      const started = await t.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'instagram-standalone' },
      });
      const back = new URL((await fetch(started.json().url, { redirect: 'manual' })).headers.get('location')!);
      const page = await t.request({ method: 'GET', url: back.pathname + back.search });
      expect(page.statusCode).toBe(400);
      expect(page.body).toContain('is a personal Instagram account');
      expect(await listed(t, tenant)).toEqual([]);
    } finally {
      meta.igLogin = { ...meta.igLogin, accountType: 'BUSINESS' };
    }
  });

  it('declares the renewal only for Instagram Login (page tokens through Facebook Login do not expire)', () => {
    expect(instagramStandaloneProvider.renewal).toBeDefined();
    expect(instagramProvider.renewal).toBeUndefined();
  });
});
