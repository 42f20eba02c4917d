// Facebook pages through the operator's Meta app, end to end against a local server speaking the
// Graph API: Facebook Login with the long-lived token exchange and the page chosen on Herald's
// page, a post with several photos (uploaded unpublished, then attached to one feed post) and
// comments, a link, a video fetched by URL and followed until Facebook processed it (on the
// engine's clock), what /missing reports, and Graph errors mapped to the engine's kinds (190
// reconnect, throttling with its wait, policy blocks, duplicates, a video Facebook could not process).
import { beforeAll, describe, expect, it } from 'vitest';
import { facebookProvider, VIDEO_POLL_DELAYS_MS } from '../../../src/providers/facebook/facebook.provider.ts';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import { createTenant, TEST_BASE_URL, type Tenant, type TestApp } from '../../helpers/app.ts';
import { jpeg, mp4 } from '../../helpers/media-files.ts';
import { createOk, getPost, missingOf, uploadMedia } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import type { FakeMeta } from '../oauth/fake-meta.ts';
import { useMetaApp } from '../oauth/meta-app.ts';
import { connectedPage, facebookPost } from './helpers.ts';
import { listed } from '../oauth/sign-in.ts';
const app = useMetaApp();
let t: TestApp;
let meta: FakeMeta;
beforeAll(() => {
  ({ t, meta } = app);
});

const upload = (tenant: Tenant, data: Buffer, name: string, type: string) => uploadMedia(t, tenant, data, name, type);

const connected = () => connectedPage(t);

const post = facebookPost;

const missing = (tenant: Tenant, body: unknown) => missingOf(t, tenant, body);

describe('Facebook pages', () => {
  it('connects through Facebook Login, the person picking one of their pages; posts several photos and two comments', async () => {
    meta.pages.push({ id: '101000000000002', name: 'Side <Project>', tasks: ['CREATE_CONTENT', 'MODERATE'] });
    // A page the person may only analyse is not offered.
    meta.pages.push({ id: '101000000000003', name: 'Read only', tasks: ['ANALYZE'] });
    const tenant = await createTenant(t);
    const started = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: 'facebook' },
    });
    expect(started.statusCode, started.body).toBe(200);
    const authorize = new URL(started.json().url);
    expect(authorize.pathname).toBe('/v25.0/dialog/oauth');
    expect(authorize.searchParams.get('scope')).toBe(
      'pages_show_list,pages_read_engagement,pages_manage_posts,pages_manage_engagement,read_insights',
    );
    const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    const ask = await t.request({ method: 'GET', url: back.pathname + back.search });
    expect(ask.statusCode, ask.body).toBe(200);
    expect(ask.body).toContain('Side &#60;Project&#62;');
    expect(ask.body).not.toContain('Read only');
    const form = /action="([^"]+)"[\s\S]*name="state" value="([^"]+)"/.exec(ask.body)!;
    expect(form[1]).toBe('/integrations/callback/facebook/choose');
    const chosen = await t.request({
      method: 'POST',
      url: form[1]!,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ state: form[2]!, choice: '101000000000002' }).toString(),
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const [channel] = await listed(t, tenant);
    expect(channel).toMatchObject({ identifier: 'facebook', name: 'Side <Project>', disabled: false });
    const config = await t.services.channels.config(tenant.workspaceId, channel!.id);
    expect(config).toMatchObject({ pageId: '101000000000002', accessToken: expect.stringMatching(/^EAAP/) });
    // The long-lived user token was exchanged for, then the page token read with it.
    expect(meta.calls.map((c) => c.query.get('grant_type')).filter(Boolean)).toEqual(['fb_exchange_token']);

    const a = await upload(tenant, jpeg(40, 30), 'a.jpg', 'image/jpeg');
    const b = await upload(tenant, jpeg(30, 40), 'b.jpg', 'image/jpeg');
    const [created] = await createOk(
      t,
      tenant,
      post(channel!.id, [
        { content: '<p>Fresh <strong>bread</strong> today</p>', image: [a, b] },
        { content: '<p>First comment</p>' },
        { content: '<p>Second comment</p>' },
      ]),
    );
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(
      published.value.map((v) => v.state),
      JSON.stringify(published),
    ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    const [feed] = meta.fbPosts;
    expect(feed).toMatchObject({ page: '101000000000002', kind: 'feed', message: 'Fresh bread today' });
    expect(feed!.photos.map((u) => new URL(u).origin)).toEqual([TEST_BASE_URL, TEST_BASE_URL]);
    expect(feed!.photos.map((u) => new URL(u).pathname)).toEqual([a.path, b.path].map((p) => new URL(p, TEST_BASE_URL).pathname));
    expect(published.releaseId).toBe(feed!.id);
    expect(published.releaseURL).toBe(`https://www.facebook.com/101000000000002/posts/${feed!.id.split('_')[1]}`);
    const [first, second] = meta.comments;
    expect(first).toMatchObject({ on: feed!.id, message: 'First comment', reply: false });
    // Facebook nests one level: the second comment replies under the first.
    expect(second).toMatchObject({ on: first!.id, message: 'Second comment', reply: true });
  });

  it('takes the only page without asking; a single photo, a link and a video by URL go out the Graph API way', async () => {
    const { tenant, channelId } = await connected();
    const [withLink] = await createOk(t, tenant, post(channelId, [{ content: '<p>Read this</p>' }], { link: 'https://example.com/news' }));
    const photo = await upload(tenant, jpeg(40, 40), 'p.jpg', 'image/jpeg');
    const [withPhoto] = await createOk(t, tenant, post(channelId, [{ content: '<p>One photo</p>', image: [photo] }]));
    const video = await upload(tenant, mp4(64, 36), 'v.mp4', 'video/mp4');
    const [withVideo] = await createOk(t, tenant, post(channelId, [{ content: '<p>A video</p>', image: [video] }]));
    await t.settle();
    for (const p of [withLink, withPhoto, withVideo]) expect((await getPost(t, tenant, p!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(meta.fbPosts.map((p) => [p.kind, p.message, p.link])).toEqual([
      ['feed', 'Read this', 'https://example.com/news'],
      ['photo', 'One photo', null],
      ['video', 'A video', null],
    ]);
    expect(new URL(meta.fbPosts[2]!.video!).pathname).toBe(new URL(video.path, TEST_BASE_URL).pathname);
    // A photo's feed post id (post_id) is recorded, not the photo's own id; a video's address is the page's video URL.
    expect((await getPost(t, tenant, withPhoto!.postId)).releaseId).toBe(meta.fbPosts[1]!.id);
    expect((await getPost(t, tenant, withVideo!.postId)).releaseURL).toBe(
      `https://www.facebook.com/101000000000001/videos/${meta.fbPosts[2]!.id}`,
    );
  });

  it("follows a video until Facebook processed it, on the engine's clock; a processing error is a refusal in Facebook's words; one never done is unconfirmed", async () => {
    const { tenant, channelId } = await connected();
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    const waits: number[] = [];
    // The engine's clock stands in: each wait is recorded and ends at once.
    const ctx = {
      ...providerContext(config, { platformApps: t.services.channels.platformApps }),
      wait: async (ms: number) => void waits.push(ms),
    };
    const video = (name: string) =>
      mediaItem(mp4(64, 36), { name, mimeType: 'video/mp4', url: `https://media.herald.test/${name}`, durationMs: 4000 });
    meta.videoProcessingPolls = 2;
    const ref = await facebookProvider.publish(ctx, publishInput({ text: 'Processed', media: [video('ok.mp4')] }));
    expect(ref.id).toBe(meta.fbPosts[0]!.id);
    // Read three times (twice still processing): the waits came from the clock, none slept here.
    expect(meta.videos.get(ref.id)).toEqual({ polls: 3, state: 'ready' });
    expect(waits).toEqual(VIDEO_POLL_DELAYS_MS.slice(1, 3));

    meta.reset();
    meta.failingVideo = { match: 'broken', message: "The video file you selected is in a format that we don't support." };
    const refused = await providerFailure(facebookProvider.publish(ctx, publishInput({ text: 'Broken', media: [video('broken.mp4')] })));
    expect(refused).toMatchObject({
      kind: 'rejected',
      message: "Facebook did not publish the video: The video file you selected is in a format that we don't support.",
    });

    // Still processing when Herald stops waiting (about five minutes): Facebook has the video, so it is not sent again.
    meta.reset();
    waits.length = 0;
    meta.videoProcessingPolls = 1000;
    const slow = await providerFailure(facebookProvider.publish(ctx, publishInput({ text: 'Slow', media: [video('slow.mp4')] })));
    expect(slow).toMatchObject({ kind: 'unknown_outcome', message: expect.stringContaining('still processing it') });
    expect(waits).toEqual(VIDEO_POLL_DELAYS_MS.slice(1));
    expect(waits.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5 * 60_000);

    // The status cannot be read after the upload: unknown too, never a second upload.
    meta.reset();
    meta.on((req) =>
      req.method === 'GET' && req.query.get('fields') === 'status'
        ? { status: 500, body: { error: { message: 'An unknown error has occurred.', code: 1, is_transient: true } } }
        : undefined,
    );
    expect(
      await providerFailure(facebookProvider.publish(ctx, publishInput({ text: 'Unread', media: [video('unread.mp4')] }))),
    ).toMatchObject({
      kind: 'unknown_outcome',
    });
    expect(meta.fbPosts).toHaveLength(1);

    // Through the engine: the refusal is the post's ERROR, in Facebook's words.
    meta.reset();
    meta.failingVideo = { match: '/', message: 'The video could not be processed.' };
    const uploaded = await upload(tenant, mp4(64, 36), 'v.mp4', 'video/mp4');
    const [created] = await createOk(t, tenant, post(channelId, [{ content: '<p>A broken video</p>', image: [uploaded] }]));
    await t.settle();
    const failed = await getPost(t, tenant, created!.postId);
    expect(failed).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(failed.error).toContain('Facebook did not publish the video: The video could not be processed.');
  });

  it('reports in /missing what Facebook would refuse: a link with photos, a video with photos, a video in a comment', async () => {
    const { tenant, channelId } = await connected();
    const photo = await upload(tenant, jpeg(40, 40), 'p.jpg', 'image/jpeg');
    const video = await upload(tenant, mp4(64, 36), 'v.mp4', 'video/mp4');
    expect(await missing(tenant, post(channelId, [{ content: '<p>x</p>', image: [photo] }], { link: 'https://example.com' }))).toEqual([
      { field: 'settings.link', reason: expect.stringContaining('link preview only on a post without photos or video') },
    ]);
    expect(await missing(tenant, post(channelId, [{ content: '<p>x</p>', image: [photo, video] }]))).toEqual([
      { field: 'value[0].image', reason: 'Facebook posts one video alone, or up to 10 photos.' },
    ]);
    expect(await missing(tenant, post(channelId, [{ content: '<p>x</p>' }, { content: '<p>y</p>', image: [video] }]))).toEqual([
      { field: 'value[1].image', reason: 'A Facebook comment takes one image at most, and no video.' },
    ]);
    expect(
      await missing(
        tenant,
        post(channelId, [
          { content: '<p>x</p>', image: [photo] },
          { content: '<p>y</p>', image: [photo] },
        ]),
      ),
    ).toEqual([]);
  });

  it('maps Graph errors: 190 disables the channel for reconnecting; throttling waits as told; 368 and 506 are refusals in words', async () => {
    const { tenant, channelId } = await connected();
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    const ctx = providerContext(config, { platformApps: t.services.channels.platformApps });
    const failure = (answer: { status: number; body?: unknown; headers?: Record<string, string> }) => {
      meta.reset();
      meta.on((req) => (req.path.endsWith('/feed') ? answer : undefined));
      return providerFailure(facebookProvider.publish(ctx, publishInput({ text: `Mapped ${Math.random()}` })));
    };
    expect(
      await failure({
        status: 400,
        body: { error: { message: '(#32) Page request limit reached', type: 'OAuthException', code: 32 } },
        headers: {
          'x-business-use-case-usage': JSON.stringify({
            '101000000000001': [{ type: 'pages', call_count: 100, total_cputime: 20, total_time: 30, estimated_time_to_regain_access: 7 }],
          }),
        },
      }),
    ).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 7 * 60_000 } });
    expect(await failure({ status: 400, body: { error: { message: 'Application request limit reached', code: 4 } } })).toMatchObject({
      kind: 'rate_limited',
    });
    expect(
      await failure({
        status: 400,
        body: { error: { message: 'It looks like you were misusing this feature', code: 368, error_subcode: 1390008 } },
      }),
    ).toMatchObject({ kind: 'rejected', message: expect.stringContaining('Facebook blocked this as against its policies or as spam') });
    expect(
      await failure({ status: 500, body: { error: { message: 'An unknown error has occurred.', code: 1, is_transient: true } } }),
    ).toMatchObject({
      kind: 'transient',
    });
    expect(
      await failure({ status: 403, body: { error: { message: '(#200) Requires pages_manage_posts permission', code: 200 } } }),
    ).toMatchObject({ kind: 'auth', message: expect.stringContaining('connected again to grant it') });
    // A publish answered without an id may have published: not retried (Facebook has no idempotency key).
    expect(await failure({ status: 200, body: {} })).toMatchObject({ kind: 'unknown_outcome' });
    meta.reset();

    // Through the engine: a duplicate is an ERROR with Facebook's reason; a dead token disables the channel and notifies.
    const [one] = await createOk(t, tenant, post(channelId, [{ content: '<p>Same words</p>' }]));
    await t.settle();
    const [two] = await createOk(t, tenant, post(channelId, [{ content: '<p>Same words</p>' }]));
    await t.settle();
    expect((await getPost(t, tenant, one!.postId)).value[0]!.state).toBe('PUBLISHED');
    const duplicate = await getPost(t, tenant, two!.postId);
    expect(duplicate).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(duplicate.error).toContain('Facebook refused a duplicate of a post the page published recently');

    meta.on((req) =>
      req.path.endsWith('/feed')
        ? {
            status: 400,
            body: { error: { message: 'Error validating access token: The session has been invalidated.', code: 190, error_subcode: 460 } },
          }
        : undefined,
    );
    const [dead] = await createOk(t, tenant, post(channelId, [{ content: '<p>Never sent</p>' }]));
    await t.settle();
    expect((await getPost(t, tenant, dead!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('The session has been invalidated');
  });

  it("reads a post's reactions, comments and shares, and the page's followers; a deleted post is absent; a missing permission is not the credentials'", async () => {
    const { tenant, channelId } = await connected();
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channelId), {
      platformApps: t.services.channels.platformApps,
    });
    const ref = await facebookProvider.publish(ctx, publishInput({ text: 'Counted' }));
    meta.insights.set(ref.id, { reactions: 14, comments: 3, shares: 2 });
    meta.followers.set('101000000000001', 1200);
    const metrics = facebookProvider.metrics!;
    const readings = await metrics.posts(ctx, [ref, { id: '101000000000001_999' }]);
    expect(readings.get(ref.id)).toEqual({
      metrics: { likes: 14, replies: 3, shares: 2 },
      raw: { reactions: 14, comments: 3, shares: 2 },
    });
    expect(readings.has('101000000000001_999')).toBe(false);
    expect(await metrics.account(ctx)).toEqual({ metrics: { followers: 1200 }, raw: { followers_count: 1200 } });
    meta.on(() => ({ status: 403, body: { error: { message: '(#10) Requires pages_read_engagement permission', code: 10 } } }));
    expect(await providerFailure(metrics.account(ctx))).toBeInstanceOf(MetricsPermissionError);
  });
});
