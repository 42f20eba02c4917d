// YouTube through the operator's Google app, end to end against a local server speaking Google's
// OAuth and the YouTube Data API v3: sign-in with PKCE (and the channel chosen when the account
// has several), a video uploaded resumably with its thumbnail, playlist and a first comment and a
// reply, the processing state waited on through the engine's clock, an upload resumed after a cut
// connection, renewal, a refused grant, the daily quota, the upload limit, and the missing-checks.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.ts';
import { msUntilPacificMidnight } from '../../../src/providers/google/google-oauth.ts';
import { youtubeProvider } from '../../../src/providers/youtube/youtube.provider.ts';
import { tagsLength } from '../../../src/providers/youtube/youtube.rules.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { jpeg, mp4 } from '../../helpers/media-files.ts';
import { createOk, createPosts, getPost, uploadMedia } from '../../helpers/posts.ts';
import { FakeGoogle, googleError } from '../oauth/fake-google.ts';
import { listed, signInThroughApi } from '../oauth/sign-in.ts';
let t: TestApp;
let g: FakeGoogle;
const clock = new ManualClock(new Date());
beforeAll(async () => {
  g = await new FakeGoogle().start();
  t = await createTestApp({
    engine: true,
    clock,
    env: {
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      GOOGLE_CLIENT_ID: g.clientId,
      GOOGLE_CLIENT_SECRET: g.clientSecret,
      GOOGLE_OAUTH_BASE: g.url,
      YOUTUBE_API_BASE: g.url,
    },
  });
});
beforeEach(() => {
  g.reset();
  g.expiresIn = 3599;
  g.refuseRefresh = false;
  g.processingReads = 0;
  g.quotaLimit = 10_000;
  g.channels = [{ id: 'UCherald0000000000000001', title: 'Herald Films', customUrl: '@heraldfilms', subscribers: 1200 }];
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await g.stop();
});

const SETTINGS = { __type: 'youtube', title: 'Launch film', privacy: 'unlisted', madeForKids: false };

async function connect(tenant?: Tenant) {
  const who = tenant ?? (await createTenant(t));
  const { channels, authorize } = await signInThroughApi(t, who, { provider: 'youtube' });
  return { tenant: who, channelId: channels[0]!.id, authorize };
}

const upload = (tenant: Tenant, data: Buffer, name: string, type: string) => uploadMedia(t, tenant, data, name, type);

/** A post with a video (and a thumbnail), a first comment and a reply, published now. */
async function videoPost(tenant: Tenant, channelId: string, settings: Record<string, unknown> = SETTINGS, comments = 2) {
  const video = await upload(tenant, mp4(1080, 1920, { mdatBytes: 4096 }), 'launch.mp4', 'video/mp4');
  const thumbnail = await upload(tenant, jpeg(64, 36), 'thumb.jpg', 'image/jpeg');
  const [created] = await createOk(t, tenant, {
    type: 'now',
    date: clock.now().toISOString(),
    posts: [
      {
        integration: { id: channelId },
        value: [
          { content: '<p>Our launch, in two minutes. <a href="https://example.com">Notes</a></p>', image: [video, thumbnail] },
          ...(comments > 0 ? [{ content: '<p>Questions welcome below</p>' }] : []),
          ...(comments > 1 ? [{ content: '<p>Chapters: 0:00 intro</p>' }] : []),
        ],
        settings,
      },
    ],
  });
  return created!.postId;
}

function ctxFor(config: Record<string, unknown>) {
  return providerContext(config, { platformApps: t.services.channels.platformApps });
}

describe('YouTube', () => {
  it('connects through Google sign-in (PKCE, offline access) and publishes a video with its thumbnail, playlist, a first comment and a reply', async () => {
    const { tenant, channelId, authorize } = await connect();
    expect(authorize.pathname).toBe('/o/oauth2/v2/auth');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/youtube`);
    expect(authorize.searchParams.get('access_type')).toBe('offline');
    expect(authorize.searchParams.get('prompt')).toBe('consent');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/youtube.upload');
    expect((await listed(t, tenant))[0]).toMatchObject({
      identifier: 'youtube',
      name: 'Herald Films',
      profile: 'heraldfilms',
      disabled: false,
    });
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(config).toMatchObject({ channelId: 'UCherald0000000000000001', channelTitle: 'Herald Films' });
    expect(typeof config.refreshToken).toBe('string');
    const { platforms } = (await t.request({ method: 'GET', url: '/public/v1/status' })).json() as {
      platforms: Array<{ identifier: string; available: boolean }>;
    };
    expect(platforms.find((p) => p.identifier === 'youtube')).toMatchObject({ available: true });

    const postId = await videoPost(tenant, channelId, {
      ...SETTINGS,
      tags: ['launch', 'how to'],
      categoryId: '22',
      playlistId: 'PLherald0001',
    });
    await t.settle();
    const post = await getPost(t, tenant, postId);
    expect(
      post.value.map((v) => v.state),
      JSON.stringify(post),
    ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    const [video] = [...g.videos.values()];
    expect(post.releaseId).toBe(video!.id);
    expect(post.releaseURL).toBe(`https://www.youtube.com/watch?v=${video!.id}`);
    expect(video!.snippet).toMatchObject({
      title: 'Launch film',
      description: 'Our launch, in two minutes. Notes (https://example.com)',
      tags: ['launch', 'how to'],
      categoryId: '22',
    });
    expect(video!.status).toMatchObject({ privacyStatus: 'unlisted', selfDeclaredMadeForKids: false });
    expect(g.uploaded(video!.id).equals(mp4(1080, 1920, { mdatBytes: 4096 }))).toBe(true);
    expect(video!.thumbnail).toMatchObject({ type: 'image/jpeg' });
    expect(g.playlistItems).toEqual([{ playlistId: 'PLherald0001', videoId: video!.id }]);
    const [first, reply] = g.comments;
    expect(first).toMatchObject({
      videoId: video!.id,
      parentId: null,
      text: 'Questions welcome below',
      channelId: 'UCherald0000000000000001',
    });
    expect(reply).toMatchObject({ parentId: first!.id, text: 'Chapters: 0:00 intro' });
    expect(g.refreshes).toBe(0);
  });

  it('asks which channel when the Google account has several, on a single-use choice page', async () => {
    g.channels = [
      { id: 'UCherald0000000000000001', title: 'Herald Films', customUrl: '@heraldfilms', subscribers: 1 },
      { id: 'UCherald0000000000000002', title: 'Herald <Shorts>', customUrl: '@heraldshorts', subscribers: 2 },
    ];
    const tenant = await createTenant(t);
    const started = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'youtube' },
    });
    const back = new URL((await fetch(started.json().url, { redirect: 'manual' })).headers.get('location')!);
    const ask = await t.request({ method: 'GET', url: back.pathname + back.search });
    expect(ask.statusCode, ask.body).toBe(200);
    expect(ask.body).toContain('Herald &#60;Shorts&#62; (@heraldshorts)');
    const form = /action="([^"]+)"[\s\S]*name="state" value="([^"]+)"/.exec(ask.body)!;
    expect(form[1]).toBe('/integrations/callback/youtube/choose');
    const chosen = await t.request({
      method: 'POST',
      url: form[1]!,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ state: form[2]!, choice: 'UCherald0000000000000002' }).toString(),
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const [channel] = await listed(t, tenant);
    expect(channel).toMatchObject({ name: 'Herald <Shorts>', profile: 'heraldshorts' });
    expect((await t.services.channels.config(tenant.workspaceId, channel!.id)).channelId).toBe('UCherald0000000000000002');

    g.channels = [];
    const none = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'youtube' },
    });
    const back2 = new URL((await fetch(none.json().url, { redirect: 'manual' })).headers.get('location')!);
    const refused = await t.request({ method: 'GET', url: back2.pathname + back2.search });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('This Google account has no YouTube channel');
  });

  it('reports a video over 15 minutes on a channel YouTube does not allow long uploads, read at sign-in and again at renewal', async () => {
    const long = (tenant: Tenant) => upload(tenant, mp4(1920, 1080, { seconds: 20 * 60 }), 'talk.mp4', 'video/mp4');
    const missing = async (tenant: Tenant, channelId: string, file: { id: string; path: string }) => {
      const [created] = await createOk(t, tenant, {
        type: 'draft',
        date: '2026-06-01T10:00:00.000Z',
        posts: [{ integration: { id: channelId }, value: [{ content: '<p>The talk</p>', image: [file] }], settings: SETTINGS }],
      });
      const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    };

    // An unverified channel: eligible, not yet allowed. Its token is issued near its end, so the next tool run renews it.
    g.channels = [
      { id: 'UCherald0000000000000001', title: 'Herald Films', customUrl: '@heraldfilms', subscribers: 1, longUploadsStatus: 'eligible' },
    ];
    g.expiresIn = 120;
    const { tenant, channelId } = await connect();
    g.expiresIn = 3599;
    expect(g.calls.find((c) => c.path === '/youtube/v3/channels')!.query.get('part')).toBe('snippet,status');
    expect((await t.services.channels.config(tenant.workspaceId, channelId)).longUploadsStatus).toBe('eligible');
    const talk = await long(tenant);
    const short = await upload(tenant, mp4(1920, 1080, { seconds: 15 * 60 }), 'fifteen.mp4', 'video/mp4');
    expect(await missing(tenant, channelId, talk)).toEqual([
      {
        field: 'value[0].image[0]',
        reason:
          "talk.mp4 lasts 20 min; this channel may upload videos of up to 15 minutes until it is verified. Verify it at https://www.youtube.com/verify, then publish again (Herald reads the channel's status again when it renews its access, within the hour, or when the channel is connected again).",
      },
    ]);
    expect(await missing(tenant, channelId, short)).toEqual([]);

    // The person verifies the channel; the next renewal reads the status again and the long video is ready.
    g.channels[0]!.longUploadsStatus = 'allowed';
    const tool = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${channelId}`,
      key: tenant.key,
      payload: { methodName: 'listPlaylists', data: {} },
    });
    expect(tool.statusCode, tool.body).toBe(200);
    expect(g.calls.some((c) => c.path === '/youtube/v3/channels' && c.query.get('id') === 'UCherald0000000000000001')).toBe(true);
    expect((await t.services.channels.config(tenant.workspaceId, channelId)).longUploadsStatus).toBe('allowed');
    expect(await missing(tenant, channelId, talk)).toEqual([]);

    // A channel whose long uploads YouTube withdrew: verifying does not help, and the reason says so.
    g.channels = [
      { id: 'UCherald0000000000000003', title: 'Struck', customUrl: '@struck', subscribers: 1, longUploadsStatus: 'disallowed' },
    ];
    const struck = await connect();
    const reason = (await missing(struck.tenant, struck.channelId, await long(struck.tenant)))[0]!.reason;
    expect(reason).toContain('YouTube does not allow this channel videos longer than 15 minutes');
    expect(reason).toContain('verifying does not change');

    // Scheduled anyway, the engine's last check refuses it: nothing is uploaded.
    const sessions = g.sessions.size;
    const [scheduled] = await createOk(t, struck.tenant, {
      type: 'now',
      date: clock.now().toISOString(),
      posts: [
        {
          integration: { id: struck.channelId },
          value: [{ content: '<p>The talk</p>', image: [await long(struck.tenant)] }],
          settings: SETTINGS,
        },
      ],
    });
    await t.settle();
    const failed = await getPost(t, struck.tenant, scheduled!.postId);
    expect(failed.state).toBe('ERROR');
    expect(failed.error).toContain('videos longer than 15 minutes');
    expect(g.sessions.size).toBe(sessions);
  });

  it("waits for YouTube's processing before the first comment, on the engine's clock (a retry, no sleep)", async () => {
    const { tenant, channelId } = await connect();
    g.processingReads = 2;
    const comments = g.comments.length;
    const postId = await videoPost(tenant, channelId, SETTINGS, 1);
    await t.settle();
    let post = await getPost(t, tenant, postId);
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PENDING']);
    expect(post.errorKind).toBeNull();
    expect(g.comments).toHaveLength(comments);
    const statusReads = () => g.calls.filter((c) => c.path === '/youtube/v3/videos' && c.query.get('part') === 'status,processingDetails');
    expect(statusReads()).toHaveLength(1);
    // YouTube says two minutes are left: nothing happens until the clock gets there.
    clock.advance(60_000);
    await t.settle();
    expect(statusReads()).toHaveLength(1);
    clock.advance(60_000);
    await t.settle();
    expect(statusReads()).toHaveLength(2);
    clock.advance(120_000);
    await t.settle();
    post = await getPost(t, tenant, postId);
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(g.comments).toHaveLength(comments + 1);
  });

  it('a video YouTube rejects after the upload fails the comment with its reason', async () => {
    const { tenant, channelId } = await connect();
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    const ctx = ctxFor(config);
    const ref = await youtubeProvider.publish(
      ctx,
      publishInput({ text: 'x', settings: SETTINGS, media: [mediaItem(Buffer.alloc(100, 1), { mimeType: 'video/mp4', name: 'a.mp4' })] }),
    );
    g.videos.get(ref.id)!.status = { ...g.videos.get(ref.id)!.status, uploadStatus: 'rejected', rejectionReason: 'duplicate' };
    const failure = await providerFailure(youtubeProvider.comment(ctx, publishInput({ part: 1, text: 'hi', root: ref, parent: ref })));
    expect(failure).toMatchObject({ kind: 'rejected', message: 'YouTube rejected the video (duplicate).' });
    // Settings YouTube needs, missing when the provider is called: a rejection naming them, nothing uploaded.
    const sessions = g.sessions.size;
    const unset = await providerFailure(
      youtubeProvider.publish(
        ctx,
        publishInput({
          text: 'x',
          settings: { privacy: 'public', madeForKids: false },
          media: [mediaItem(Buffer.alloc(10), { mimeType: 'video/mp4' })],
        }),
      ),
    );
    expect(unset.kind).toBe('rejected');
    expect(unset.message).toMatch(/^settings\.title: /);
    expect(g.sessions.size).toBe(sessions);
  });

  it('uploads in chunks and resumes where YouTube stands after a cut connection; a lost answer to the last bytes finds the video, never uploads twice', async () => {
    const { tenant, channelId } = await connect();
    const ctx = ctxFor(await t.services.channels.config(tenant.workspaceId, channelId));
    const bytes = Buffer.alloc(9 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) % 251;
    const film = () => mediaItem(bytes, { mimeType: 'video/mp4', name: 'film.mp4' });
    g.cutNextChunkAfter = 3 * 1024 * 1024;
    let seen = g.received.length;
    const puts = () => g.received.slice(seen).filter((c) => c.method === 'PUT');
    const ref = await youtubeProvider.publish(ctx, publishInput({ text: 'A film', settings: SETTINGS, media: [film()] }));
    expect(g.uploaded(ref.id).equals(bytes)).toBe(true);
    expect(puts().map((c) => String(c.headers['content-range']))).toEqual([
      `bytes 0-8388607/${bytes.length}`,
      `bytes */${bytes.length}`,
      `bytes 3145728-${bytes.length - 1}/${bytes.length}`,
    ]);

    // YouTube keeps only part of each chunk: Herald follows its Range.
    g.reset();
    g.keepAtMost = 4 * 1024 * 1024;
    seen = g.received.length;
    const kept = await youtubeProvider.publish(ctx, publishInput({ text: 'A film', settings: SETTINGS, media: [film()] }));
    expect(g.uploaded(kept.id).equals(bytes)).toBe(true);
    expect(puts()).toHaveLength(3);

    // The answer to the last bytes is lost: asking the session finds the video created.
    g.reset();
    const small = mediaItem(Buffer.alloc(1000, 7), { mimeType: 'video/mp4', name: 'short.mp4' });
    g.cutNextChunkAfter = 1000;
    const before = g.videos.size;
    seen = g.received.length;
    const found = await youtubeProvider.publish(ctx, publishInput({ text: 'Short', settings: SETTINGS, media: [small] }));
    expect(g.videos.size).toBe(before + 1);
    expect(g.videos.has(found.id)).toBe(true);
    expect(g.received.slice(seen).filter((c) => c.method === 'POST' && c.path === '/upload/youtube/v3/videos')).toHaveLength(1);
    expect(puts().map((c) => String(c.headers['content-range']))).toEqual(['bytes 0-999/1000', 'bytes */1000']);
  });

  it('renews the hour-long access token before publishing; a refused grant disables the channel and notifies', async () => {
    g.expiresIn = 120;
    const { tenant, channelId } = await connect();
    g.expiresIn = 3599;
    const before = await t.services.channels.config(tenant.workspaceId, channelId);
    const renewed = await videoPost(tenant, channelId, SETTINGS, 0);
    await t.settle();
    expect((await getPost(t, tenant, renewed)).value[0]!.state).toBe('PUBLISHED');
    expect(g.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(after.accessToken).not.toBe(before.accessToken);
    // Google keeps the refresh token; the stored one stays.
    expect(after.refreshToken).toBe(before.refreshToken);

    g.expiresIn = 120;
    const second = await connect();
    g.refuseRefresh = true;
    const refused = await videoPost(second.tenant, second.channelId, SETTINGS, 0);
    await t.settle();
    const post = await getPost(t, second.tenant, refused);
    expect(post.errorKind).toBe('auth');
    expect(post.error).toContain('invalid_grant');
    expect((await listed(t, second.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = await t.request({ method: 'GET', url: '/public/v1/notifications', key: second.tenant.key });
    expect(notes.body).toContain('The channel needs reconnecting');
  });

  it('a revoked access token (401 authError) ends the publish as auth and the channel needs reconnecting', async () => {
    const { tenant, channelId } = await connect();
    g.revokeAccessTokens();
    const postId = await videoPost(tenant, channelId, SETTINGS, 0);
    await t.settle();
    const post = await getPost(t, tenant, postId);
    expect(post.errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
  });

  it('maps the daily quota to a wait until midnight Pacific, and the upload limit to a rejection in words', async () => {
    const { tenant, channelId } = await connect();
    g.quotaLimit = g.quotaUsed;
    const videos = g.videos.size;
    const limited = await videoPost(tenant, channelId, SETTINGS, 0);
    await t.settle();
    const waiting = await getPost(t, tenant, limited);
    expect(waiting.value[0]!.state).toBe('PENDING');
    expect(waiting.errorKind).toBeNull();
    const { next_run_at: nextRun } = await t.runtime.db
      .selectFrom('posts')
      .select('next_run_at')
      .where('id', '=', limited)
      .executeTakeFirstOrThrow();
    // The wait is YouTube's reset (midnight Pacific) from now, added to the engine's clock.
    const expected = clock.now().getTime() + msUntilPacificMidnight(new Date());
    expect(Math.abs(Date.parse(nextRun!) - expected)).toBeLessThan(60_000);
    expect(g.videos.size).toBe(videos);
    await t.request({ method: 'DELETE', url: `/public/v1/posts/${limited}`, key: tenant.key });

    g.quotaLimit = 10_000;
    g.on((req) =>
      req.method === 'POST' && req.path === '/upload/youtube/v3/videos'
        ? googleError(400, 'uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.', 'youtube.video')
        : undefined,
    );
    const refused = await videoPost(tenant, channelId, SETTINGS, 0);
    await t.settle();
    const post = await getPost(t, tenant, refused);
    expect(post.value[0]!.state).toBe('ERROR');
    expect(post.errorKind).toBe('rejected');
    expect(post.error).toContain('this YouTube channel has reached its limit of uploads for now');
  });

  it('reports what a post lacks before publishing: a video, the title, privacy and made-for-kids, the description rules, tags, comment rules', async () => {
    const { tenant, channelId } = await connect();
    const image = await upload(tenant, jpeg(32, 32), 'still.jpg', 'image/jpeg');
    // Tags over YouTube's total are refused when the post is written.
    const tooMany = await createPosts(t, tenant, {
      type: 'draft',
      date: clock.now().toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: '<p>x</p>' }],
          settings: { __type: 'youtube', tags: ['x'.repeat(300), 'two words'.repeat(25)] },
        },
      ],
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.body).toContain('YouTube takes tags of up to 500 characters in all');
    const [created] = await createOk(t, tenant, {
      type: 'draft',
      date: clock.now().toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [
            { content: '<p>a &lt;b&gt; c</p>', image: [image] },
            { content: '<p>ok</p>', image: [image] },
          ],
          settings: { __type: 'youtube', tags: ['launch'] },
        },
      ],
    });
    const missing = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
    expect(missing.statusCode, missing.body).toBe(200);
    const fields = (missing.json() as { ready: boolean; missing: Array<{ field: string; reason: string }> }).missing.map(
      (m) => `${m.field}: ${m.reason}`,
    );
    expect(fields).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^settings\.title: /),
        expect.stringMatching(/^settings\.privacy: /),
        expect.stringMatching(/^settings\.madeForKids: /),
        'value[0].content: YouTube does not allow < or > in a description; write them another way.',
        'value[0].image: YouTube needs a video (MP4, MOV or WebM).',
        'value[1].image: YouTube comments are text only; remove the files.',
      ]),
    );
    const described = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    expect(described.statusCode, described.body).toBe(200);
    const schema = described.json() as {
      settings: { required?: string[] };
      textLimit: unknown;
      tools: Array<{ name: string }>;
    };
    expect(schema.settings.required).toEqual(expect.arrayContaining(['title', 'privacy', 'madeForKids']));
    expect(schema.textLimit).toEqual({ max: 5000, unit: 'bytes' });
    expect(schema.tools.map((x) => x.name)).toEqual(['listPlaylists', 'listCategories']);
    expect(tagsLength(['a b', 'cd'])).toBe(3 + 2 + 1 + 2);
    // 5,000 bytes, not characters.
    const validate = (text: string) => youtubeProvider.countText(text) > youtubeProvider.textLimit.max;
    expect(validate('é'.repeat(2500))).toBe(false);
    expect(validate('é'.repeat(2501))).toBe(true);
  });

  it('checks that a video meant as a Short is one YouTube makes a Short of: square or vertical, up to 3 minutes', () => {
    const video = (name: string, width: number, height: number, seconds: number | null) => ({
      id: name,
      url: `/uploads/ws/${name}`,
      name,
      mimeType: 'video/mp4',
      size: 4096,
      width,
      height,
      durationMs: seconds === null ? null : seconds * 1000,
    });
    const thumbnail = { id: 't', url: '/uploads/ws/t.jpg', name: 't.jpg', mimeType: 'image/jpeg', size: 100, width: 32, height: 32 };
    const check = (media: Array<Record<string, unknown>>, short = true) =>
      youtubeProvider.validate({
        text: 'A description',
        media: media as never,
        settings: { title: 'T', privacy: 'public', madeForKids: false, short },
        part: 0,
        config: {},
        platformApps: t.services.channels.platformApps,
      });
    expect(check([thumbnail, video('wide.mp4', 1920, 1080, 240)])).toEqual([
      { field: 'value[0].image[1]', reason: 'wide.mp4 is 1920×1080; a Short is a square or vertical video.' },
      { field: 'value[0].image[1]', reason: 'wide.mp4 lasts 4 min; YouTube makes Shorts of videos up to 3 min.' },
    ]);
    expect(check([video('tall.mp4', 1080, 1920, 59)])).toEqual([]);
    expect(check([video('square.mp4', 1080, 1080, null)])).toEqual([]);
    // Not meant as a Short: a long landscape video is an ordinary one.
    expect(check([video('wide.mp4', 1920, 1080, 240)], false)).toEqual([]);
  });

  it('lists playlists and assignable categories through the integration tools, renewing an expiring token first', async () => {
    const { tenant, channelId } = await connect();
    const run = (methodName: string, data: Record<string, unknown>) =>
      t.request({ method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, key: tenant.key, payload: { methodName, data } });
    const playlists = await run('listPlaylists', {});
    expect(playlists.statusCode, playlists.body).toBe(200);
    expect(playlists.json()).toEqual([
      { id: 'PLherald0001', title: 'Launches', privacy: 'public' },
      { id: 'PLherald0002', title: 'Behind the scenes', privacy: 'unlisted' },
    ]);
    const categories = await run('listCategories', { regionCode: 'fr' });
    expect(categories.json()).toEqual([
      { id: '1', title: 'Film & Animation' },
      { id: '22', title: 'People & Blogs' },
    ]);
    expect(g.calls.find((c) => c.path === '/youtube/v3/videoCategories')!.query.get('regionCode')).toBe('FR');
    const bad = await run('listCategories', { regionCode: 'France' });
    expect(bad.statusCode).toBe(400);

    // A token about to expire is renewed before the tool calls YouTube.
    g.expiresIn = 120;
    const expiring = await connect();
    g.expiresIn = 3599;
    const refreshes = g.refreshes;
    const renewed = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${expiring.channelId}`,
      key: expiring.tenant.key,
      payload: { methodName: 'listPlaylists', data: {} },
    });
    expect(renewed.statusCode, renewed.body).toBe(200);
    expect(g.refreshes).toBe(refreshes + 1);
  });

  it('reads video statistics and the channel subscribers as metrics', async () => {
    const { tenant, channelId } = await connect();
    const ctx = ctxFor(await t.services.channels.config(tenant.workspaceId, channelId));
    const ref = await youtubeProvider.publish(
      ctx,
      publishInput({ text: 'x', settings: SETTINGS, media: [mediaItem(Buffer.alloc(64, 2), { mimeType: 'video/mp4', name: 'a.mp4' })] }),
    );
    g.videos.get(ref.id)!.statistics = { viewCount: '1234', likeCount: '56', favoriteCount: '0', commentCount: '7' };
    const readings = await youtubeProvider.metrics!.posts(ctx, [ref, { id: 'gone0000000' }]);
    expect([...readings.keys()]).toEqual([ref.id]);
    expect(readings.get(ref.id)).toEqual({
      metrics: { views: 1234, likes: 56, replies: 7 },
      raw: { viewCount: 1234, likeCount: 56, commentCount: 7 },
    });
    const statsCall = g.calls.filter((c) => c.query.get('part') === 'statistics' && c.path === '/youtube/v3/videos').pop()!;
    expect(statsCall.query.get('id')).toBe(`${ref.id},gone0000000`);
    const videos = [...g.videos.values()].filter((v) => v.channelId === 'UCherald0000000000000001').length;
    expect(await youtubeProvider.metrics!.account(ctx)).toEqual({
      metrics: { followers: 1200, posts: videos },
      raw: { subscriberCount: 1200, videoCount: videos },
    });
    g.channels[0]!.hidden = true;
    expect((await youtubeProvider.metrics!.account(ctx)).metrics).toEqual({ posts: videos });
  });

  it("finds YouTube's quota reset, midnight Pacific, across the days the clocks change", () => {
    const hours = (iso: string) => msUntilPacificMidnight(new Date(iso)) / 3600_000;
    expect(hours('2026-06-01T07:00:00Z')).toBe(24); // 00:00 PDT
    expect(hours('2026-06-01T19:30:00Z')).toBe(11.5); // 12:30 PDT
    expect(hours('2026-03-08T08:00:00Z')).toBe(23); // 00:00 PST; the clocks go forward at 02:00
    expect(hours('2026-11-01T07:00:00Z')).toBe(25); // 00:00 PDT; the clocks go back at 02:00
    expect(hours('2026-01-15T07:59:59Z')).toBeCloseTo(1 / 3600, 6); // 23:59:59 PST
  });

  it('is unavailable, naming the variables, without the Google app', async () => {
    const other = {
      ...t.services.channels.platformApps,
      apps: { ...t.services.channels.platformApps.apps, google: { clientId: null, clientSecret: null, apiBase: null } },
    };
    expect(youtubeProvider.unavailable!(other)).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET');
    expect(youtubeProvider.unavailable!(t.services.channels.platformApps)).toBeNull();
  });
});
