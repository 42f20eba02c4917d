// TikTok through the operator's app, end to end against a local server speaking TikTok's documented
// API: the browser sign-in, creator info before each post, videos uploaded from the media library in
// ordered chunks, photos fetched by TikTok from Herald's public URL, status polling on the engine's
// clock (a test clock that moves; nothing sleeps), renewal, and TikTok's errors mapped to the
// engine's failure kinds.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.ts';
import { tiktokProvider } from '../../../src/providers/tiktok/tiktok.provider.ts';
import { chunkPlan } from '../../../src/providers/tiktok/tiktok.media.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp, type Tenant } from '../../helpers/app.ts';
import { jpeg, mp4, png } from '../../helpers/media-files.ts';
import { createOk, getPost, postBody, uploadMedia } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, mediaItem, publishInput } from '../bluesky/helpers.ts';
import { FakeTiktok } from '../oauth/fake-tiktok.ts';
import { listed, signedInWithWaits } from '../oauth/sign-in.ts';
const MB = 1024 * 1024;
let t: TestApp;
let tk: FakeTiktok;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  tk = await new FakeTiktok().start();
  t = await createTestApp({
    engine: true,
    clock,
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
  tk.expiresIn = 86_400;
  tk.refuseRefresh = false;
  tk.privacyLevels = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
  tk.verifiedPrefixes = [`${TEST_BASE_URL}/`];
  tk.processingPolls = 2;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await tk.stop();
});

const connect = (tenant?: Tenant) => signedInWithWaits(t, 'tiktok', tenant);

const upload = (tenant: Tenant, data: Buffer, name: string, type: string) => uploadMedia(t, tenant, data, name, type);

const post = (channelId: string, content: string, media: Array<{ id: string; path: string }>, settings: Record<string, unknown>) => ({
  ...postBody(channelId, { type: 'now', date: clock.now().toISOString() }),
  posts: [{ integration: { id: channelId }, value: [{ content, image: media }], settings: { __type: 'tiktok', ...settings } }],
});

describe('TikTok', () => {
  it('connects through the sign-in and publishes a video: creator info, ordered chunk upload, status polled on the engine clock', async () => {
    const { tenant, authorize, channels, config } = await connect();
    expect(authorize.pathname).toBe('/v2/auth/authorize/');
    expect(authorize.searchParams.get('client_key')).toBe(tk.clientKey);
    expect(authorize.searchParams.get('scope')).toBe('user.info.basic,user.info.stats,video.publish,video.list');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/tiktok`);
    expect(channels[0]).toMatchObject({ identifier: 'tiktok', name: 'Herald on TikTok', profile: 'herald.tok', disabled: false });
    expect(config).toMatchObject({
      openId: tk.signedIn.openId,
      username: 'herald.tok',
      privacyLevels: tk.privacyLevels,
      maxVideoSeconds: 300,
    });
    // Both lifetimes come from TikTok's answer.
    expect(Date.parse(String(config.expiresAt)) - Date.now()).toBeGreaterThan(86_000_000);
    expect(Date.parse(String(config.refreshExpiresAt)) - Date.now()).toBeGreaterThan(31_000_000_000);

    const video = mp4(720, 1280, { mdatBytes: 4096 });
    const file = await upload(tenant, video, 'launch.mp4', 'video/mp4');
    const before = clock.now().getTime();
    const [created] = await createOk(
      t,
      tenant,
      post(channels[0]!.id, '<p>Launch day #herald</p>', [file], { privacyLevel: 'PUBLIC_TO_EVERYONE', disableComment: true }),
    );
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const [sent] = tk.posts;
    expect(sent).toMatchObject({
      kind: 'video',
      postInfo: {
        title: 'Launch day #herald',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: true,
        disable_duet: false,
        disable_stitch: true, // the account has stitches off: TikTok requires the switch on
      },
      sourceInfo: { source: 'FILE_UPLOAD', video_size: video.length, chunk_size: video.length, total_chunk_count: 1 },
    });
    expect(Buffer.concat(sent!.received).equals(video)).toBe(true);
    // The 64-bit public id, exact (JSON numbers would round it).
    expect(sent!.postId).toMatch(/^73110000000000000\d\d$/);
    expect(published.releaseId).toBe(sent!.postId);
    expect(published.releaseURL).toBe(`https://www.tiktok.com/@herald.tok/video/${sent!.postId}`);
    // Creator info was asked before the post; two PROCESSING answers were waited out on the clock.
    const paths = tk.calls.map((c) => c.path);
    expect(paths.indexOf('/v2/post/publish/creator_info/query/')).toBeLessThan(paths.indexOf('/v2/post/publish/video/init/'));
    expect(paths.filter((p) => p === '/v2/post/publish/status/fetch/')).toHaveLength(3);
    expect(clock.now().getTime() - before).toBeGreaterThanOrEqual(5000);
  });

  it('uploads a large video in ordered chunks (5–64 MB, the remainder on the last) and records a private post by its publish id', async () => {
    const { ctx, waits } = await connect();
    const bytes = Buffer.alloc(25 * MB, 7);
    const ref = await tiktokProvider.publish(
      ctx,
      publishInput({
        text: 'Big',
        media: [mediaItem(bytes, { mimeType: 'video/mp4', name: 'big.mp4' })],
        settings: { privacyLevel: 'SELF_ONLY' },
      }),
    );
    const [sent] = tk.posts;
    expect(sent!.sourceInfo).toMatchObject({ video_size: 25 * MB, chunk_size: 10 * MB, total_chunk_count: 2 });
    expect(sent!.chunkRanges).toEqual([`0-${10 * MB - 1}/${25 * MB}`, `${10 * MB}-${25 * MB - 1}/${25 * MB}`]);
    expect(Buffer.concat(sent!.received).equals(bytes)).toBe(true);
    // Private posts have no public id: the publish id is the release id, the profile its address.
    expect(ref).toMatchObject({ id: sent!.publishId, url: 'https://www.tiktok.com/@herald.tok', meta: { publishId: sent!.publishId } });
    expect(waits).toEqual([2000, 3000]);
    expect(chunkPlan(3 * MB)).toMatchObject({ chunkSize: 3 * MB, count: 1 });
    expect(chunkPlan(70 * MB)).toMatchObject({ chunkSize: 10 * MB, count: 7, ranges: expect.arrayContaining([[60 * MB, 70 * MB - 1]]) });
  });

  it("publishes photos through the API by Herald's public URL (PULL_FROM_URL) with title and description", async () => {
    const { tenant, channelId } = await connect();
    const one = await upload(tenant, jpeg(64, 48), 'one.jpg', 'image/jpeg');
    const two = await upload(tenant, jpeg(48, 64, 90), 'two.jpg', 'image/jpeg');
    const [created] = await createOk(
      t,
      tenant,
      post(channelId, '<p>Two photos of the launch</p>', [one, two], {
        privacyLevel: 'MUTUAL_FOLLOW_FRIENDS',
        title: 'Launch',
        coverIndex: 1,
      }),
    );
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const [sent] = tk.posts;
    expect(sent).toMatchObject({
      kind: 'photo',
      postInfo: { title: 'Launch', description: 'Two photos of the launch', privacy_level: 'MUTUAL_FOLLOW_FRIENDS' },
      sourceInfo: { source: 'PULL_FROM_URL', photo_cover_index: 1 },
    });
    const urls = sent!.sourceInfo.photo_images as string[];
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      expect(new URL(url).origin).toBe(TEST_BASE_URL);
      const served = await t.request({ method: 'GET', url: new URL(url).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/jpeg');
    }
    expect(published.releaseURL).toBe(`https://www.tiktok.com/@herald.tok/photo/${sent!.postId}`);
  });

  it('reports what is missing before publishing: privacy level, levels not offered, comments, mixed media, PNGs, captions', async () => {
    const { tenant, channelId } = await connect();
    const video = await upload(tenant, mp4(720, 1280), 'clip.mp4', 'video/mp4');
    const image = await upload(tenant, png(10, 10), 'still.png', 'image/png');
    const missing = async (
      values: Array<{ content: string; image?: Array<{ id: string; path: string }> }>,
      settings: Record<string, unknown>,
    ) => {
      const [created] = await createOk(t, tenant, {
        type: 'draft',
        date: '2026-06-01T10:00:00.000Z',
        posts: [{ integration: { id: channelId }, value: values, settings: { __type: 'tiktok', ...settings } }],
      });
      const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    };
    expect(await missing([{ content: '<p>Clip</p>', image: [video] }], {})).toEqual([
      { field: 'settings.privacyLevel', reason: 'Choose who may see the post: one of the privacy levels TikTok offers the account.' },
    ]);
    expect(await missing([{ content: '<p>Clip</p>', image: [video] }], { privacyLevel: 'FOLLOWER_OF_CREATOR' })).toEqual([
      {
        field: 'settings.privacyLevel',
        reason: 'TikTok offers this account PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, SELF_ONLY; FOLLOWER_OF_CREATOR is not one of them.',
      },
    ]);
    const many = await missing([{ content: `<p>${'é'.repeat(2201)}</p>`, image: [video, image] }, { content: '<p>A comment</p>' }], {
      privacyLevel: 'SELF_ONLY',
      brandContent: true,
    });
    expect(many.map((m) => m.field).sort()).toEqual(
      ['settings.brandContent', 'value[0].content', 'value[0].image', 'value[0].image[1]', 'value[1].content'].sort(),
    );
    expect(many.find((m) => m.field === 'value[1].content')!.reason).toContain("TikTok's API has no way to post comments");
    expect(many.find((m) => m.field === 'value[0].image[1]')!.reason).toBe('TikTok does not take image/png files.');
    expect(many.find((m) => m.field === 'value[0].content')!.reason).toContain('takes captions of up to 2200 on videos');
    expect(await missing([{ content: '<p>No media</p>' }], { privacyLevel: 'SELF_ONLY' })).toEqual([
      { field: 'value[0].image', reason: 'TikTok needs at least one image or video.' },
    ]);
    const schema = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    expect(schema.statusCode, schema.body).toBe(200);
    expect(JSON.stringify(schema.json())).toContain('privacyLevel');
  });

  it("reports a video outside TikTok's 360–4096 pixels a side before publishing, from the size the media library read", async () => {
    const { tenant, channelId, ctx } = await connect();
    const small = await upload(tenant, mp4(320, 240), 'small.mp4', 'video/mp4');
    const large = await upload(tenant, mp4(4100, 2160), 'large.mp4', 'video/mp4');
    const fine = await upload(tenant, mp4(360, 4096), 'edge.mp4', 'video/mp4');
    const missing = async (file: { id: string; path: string }) => {
      const [created] = await createOk(t, tenant, {
        type: 'draft',
        date: '2026-06-01T10:00:00.000Z',
        posts: [
          {
            integration: { id: channelId },
            value: [{ content: '<p>Clip</p>', image: [file] }],
            settings: { __type: 'tiktok', privacyLevel: 'SELF_ONLY' },
          },
        ],
      });
      const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    };
    expect(await missing(small)).toEqual([
      { field: 'value[0].image[0]', reason: 'small.mp4 is 320×240 pixels; TikTok takes videos of 360 to 4096 pixels on each side.' },
    ]);
    expect(await missing(large)).toEqual([
      { field: 'value[0].image[0]', reason: 'large.mp4 is 4100×2160 pixels; TikTok takes videos of 360 to 4096 pixels on each side.' },
    ]);
    expect(await missing(fine)).toEqual([]);

    // The rules are shown before writing a post.
    const rules = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    expect(rules.statusCode, rules.body).toBe(200);
    expect((rules.json() as { media: { video?: unknown } }).media.video).toEqual({ sidePixels: [360, 4096], seconds: [0, 600] });

    // Scheduled anyway, the engine's last check refuses it without calling TikTok's init.
    const [scheduled] = await createOk(t, tenant, post(channelId, '<p>Too small</p>', [small], { privacyLevel: 'SELF_ONLY' }));
    await t.settle();
    const failed = await getPost(t, tenant, scheduled!.postId);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toContain('360 to 4096 pixels on each side');
    expect(tk.calls.some((c) => c.path.endsWith('/init/'))).toBe(false);

    // The provider refuses it too when called alone.
    const direct = mediaItem(mp4(320, 240), { name: 'small.mp4', mimeType: 'video/mp4', width: 320, height: 240 });
    const refused = await providerFailure(
      tiktokProvider.publish(ctx, publishInput({ media: [direct], settings: { privacyLevel: 'SELF_ONLY' } })),
    );
    expect(refused).toMatchObject({ kind: 'rejected', message: expect.stringContaining('small.mp4 is 320×240 pixels') });
  });

  it('asks creator info before each post and refuses a privacy level the account no longer offers, without posting', async () => {
    const { ctx } = await connect();
    tk.privacyLevels = ['SELF_ONLY'];
    const video = mediaItem(mp4(720, 1280), { mimeType: 'video/mp4' });
    const error = await providerFailure(
      tiktokProvider.publish(ctx, publishInput({ media: [video], settings: { privacyLevel: 'PUBLIC_TO_EVERYONE' } })),
    );
    expect(error).toMatchObject({ kind: 'rejected' });
    expect(error.message).toBe('TikTok offers this account SELF_ONLY; PUBLIC_TO_EVERYONE is not one of them. Choose one it offers.');
    expect(tk.calls.some((c) => c.path.endsWith('/init/'))).toBe(false);
    // A video longer than the account may post (creator info: 300 s), by the length the library read, is refused before uploading.
    tk.privacyLevels = ['SELF_ONLY'];
    tk.maxVideoSeconds = 300;
    const long = mediaItem(mp4(720, 1280, { seconds: 400 }), { name: 'long.mp4', mimeType: 'video/mp4', durationMs: 400_000 });
    const tooLong = await providerFailure(
      tiktokProvider.publish(ctx, publishInput({ media: [long], settings: { privacyLevel: 'SELF_ONLY' } })),
    );
    expect(tooLong.message).toBe('value[0].image[0]: long.mp4 lasts 6 min 40 s; TikTok lets this account post videos up to 5 min.');
    expect(tk.calls.some((c) => c.path.endsWith('/init/'))).toBe(false);
  });

  it("maps TikTok's errors: invalid token auth, rate limit, refusals in words, a FAILED publish, a lost status an unknown outcome", async () => {
    const { ctx } = await connect();
    const video = () => mediaItem(mp4(720, 1280), { mimeType: 'video/mp4' });
    const attempt = (settings: Record<string, unknown> = { privacyLevel: 'SELF_ONLY' }) =>
      providerFailure(tiktokProvider.publish(ctx, publishInput({ media: [video()], settings })));
    const scripted = (path: string, status: number, code: string, message = 'm') => {
      tk.reset();
      tk.on((req) => (req.path === path ? { status, body: { data: {}, error: { code, message, log_id: 'L' } } } : undefined));
    };
    scripted('/v2/post/publish/creator_info/query/', 401, 'access_token_invalid');
    expect(await attempt()).toMatchObject({
      kind: 'auth',
      message: 'TikTok answered 401: TikTok no longer accepts the access token; connect the channel again.',
    });
    scripted('/v2/post/publish/video/init/', 403, 'spam_risk_too_many_posts');
    expect((await attempt()).message).toContain('daily post limit is reached');
    scripted('/v2/post/publish/video/init/', 403, 'privacy_level_option_mismatch');
    expect(await attempt()).toMatchObject({ kind: 'rejected', message: expect.stringContaining('not one this account offers now') });
    scripted('/v2/post/publish/video/init/', 400, 'invalid_params', 'The chunk size is invalid.');
    expect(await attempt()).toMatchObject({ kind: 'rejected', message: 'TikTok answered 400: invalid_params: The chunk size is invalid.' });

    // The fake's own limit: six inits a minute per token.
    tk.reset();
    for (let i = 0; i < 6; i++)
      await tiktokProvider.publish(ctx, publishInput({ media: [video()], settings: { privacyLevel: 'SELF_ONLY' } }));
    expect(await attempt()).toMatchObject({ kind: 'rate_limited', message: expect.stringContaining('rate limit') });

    tk.reset();
    tk.failNext = 'frame_rate_check_failed';
    expect(await attempt()).toMatchObject({
      kind: 'rejected',
      message: 'TikTok did not publish the post: the frame rate is outside 23–60 frames a second.',
    });
    // Once the video is uploaded, a failure to follow it may hide a published post: never retried.
    tk.reset();
    tk.on((req) => (req.path === '/v2/post/publish/status/fetch/' ? { status: 503, body: 'unavailable' } : undefined));
    expect(await attempt()).toMatchObject({ kind: 'unknown_outcome', message: expect.stringContaining('check the account on TikTok') });
    expect(tiktokProvider.idempotentWrites).toBe(false);

    // Photos: TikTok fetches only from verified URL prefixes.
    tk.reset();
    tk.verifiedPrefixes = ['https://cdn.example.com/'];
    const photo = mediaItem(jpeg(10, 10), { mimeType: 'image/jpeg', url: '/uploads/ws/a.jpg' });
    const unverified = await providerFailure(
      tiktokProvider.publish(ctx, publishInput({ media: [photo], settings: { privacyLevel: 'SELF_ONLY' } })),
    );
    expect(unverified).toMatchObject({ kind: 'rejected', message: expect.stringContaining("verify BASE_URL's domain") });

    // TikTok has no comment API.
    expect(await providerFailure(tiktokProvider.comment(ctx, publishInput({ part: 1 })))).toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('no way to post comments'),
    });
  });

  it('renews an expiring token before publishing; a refused renewal or a refused token disables the channel for reconnecting', async () => {
    tk.expiresIn = 600; // under the half-hour margin: due at once
    const { tenant, channelId, config: before } = await connect();
    tk.expiresIn = 86_400;
    const clip = await upload(tenant, mp4(720, 1280), 'clip.mp4', 'video/mp4');
    const [renewed] = await createOk(t, tenant, post(channelId, '<p>After a renewal</p>', [clip], { privacyLevel: 'SELF_ONLY' }));
    await t.settle();
    expect((await getPost(t, tenant, renewed!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(tk.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(Date.parse(String(after.expiresAt))).toBeGreaterThan(Date.parse(String(before.expiresAt)));

    tk.expiresIn = 600;
    const other = await connect();
    tk.refuseRefresh = true;
    const otherClip = await upload(other.tenant, mp4(720, 1280), 'clip.mp4', 'video/mp4');
    const [refused] = await createOk(
      t,
      other.tenant,
      post(other.channelId, '<p>Never sent</p>', [otherClip], { privacyLevel: 'SELF_ONLY' }),
    );
    await t.settle();
    expect((await getPost(t, other.tenant, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(t, other.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: other.tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('TikTok refused to renew the access token');

    tk.expiresIn = 86_400;
    tk.refuseRefresh = false;
    const third = await connect();
    tk.on((req) =>
      req.path === '/v2/post/publish/creator_info/query/' && req.headers.authorization === `Bearer ${String(third.config.accessToken)}`
        ? { status: 401, body: { data: {}, error: { code: 'access_token_invalid', message: 'revoked', log_id: 'L' } } }
        : undefined,
    );
    const thirdClip = await upload(third.tenant, mp4(720, 1280), 'clip.mp4', 'video/mp4');
    const [revoked] = await createOk(t, third.tenant, post(third.channelId, '<p>Revoked</p>', [thirdClip], { privacyLevel: 'SELF_ONLY' }));
    await t.settle();
    expect((await getPost(t, third.tenant, revoked!.postId)).errorKind).toBe('auth');
    expect((await listed(t, third.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    expect(tk.posts.map((p) => p.postInfo.title)).toEqual(['After a renewal']);
  });

  it("through the engine: a rate limit is retried after TikTok's wait and then published; a refusal ends in ERROR with TikTok's words", async () => {
    const { tenant, channelId } = await connect();
    const clip = await upload(tenant, mp4(720, 1280), 'clip.mp4', 'video/mp4');
    let limited = 0;
    tk.on((req) => {
      if (req.path !== '/v2/post/publish/video/init/' || limited > 0) return undefined;
      limited++;
      return {
        status: 429,
        headers: { 'retry-after': '60' },
        body: { data: {}, error: { code: 'rate_limit_exceeded', message: 'API rate limit exceeded', log_id: 'L' } },
      };
    });
    const [created] = await createOk(t, tenant, post(channelId, '<p>Later</p>', [clip], { privacyLevel: 'SELF_ONLY' }));
    await t.settle();
    let state = await getPost(t, tenant, created!.postId);
    expect(state.state).toBe('QUEUE');
    expect(state.value[0]!.error).toContain('TikTok asks to slow down');
    expect(tk.posts).toHaveLength(0);
    clock.advance(60_000);
    await t.settle();
    state = await getPost(t, tenant, created!.postId);
    expect(state.state).toBe('PUBLISHED');
    expect(tk.posts).toHaveLength(1);

    tk.reset();
    tk.on((req) =>
      req.path === '/v2/post/publish/video/init/'
        ? { status: 403, body: { data: {}, error: { code: 'spam_risk_too_many_posts', message: 'cap', log_id: 'L' } } }
        : undefined,
    );
    const [refused] = await createOk(t, tenant, post(channelId, '<p>One too many</p>', [clip], { privacyLevel: 'SELF_ONLY' }));
    await t.settle();
    const failed = await getPost(t, tenant, refused!.postId);
    expect(failed).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(failed.error).toContain('its daily post limit is reached');
  });

  it('answers provider_unavailable naming the variables when the operator has no TikTok app', async () => {
    const bare = await createTestApp({ env: {} });
    try {
      const tenant = await createTenant(bare);
      const res = await bare.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'tiktok' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'provider_unavailable' });
      expect(res.body).toContain('TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET');
    } finally {
      await bare.close();
    }
  });
});
