// Facebook page reels and large page videos against the local Graph API server: a reel through
// the API and the engine (the three Reels phases, the bytes on the upload host with the page token
// as `OAuth`, then followed until published), what /missing and the channel's rules say about a
// reel's video, the Reels failures mapped to the engine's kinds, and a video above the chunked
// threshold sent through the resumable upload in several chunks, a failed chunk sent again and
// resumed from the offset Facebook names.
import { beforeAll, describe, expect, it } from 'vitest';
import { facebookProvider } from '../../../src/providers/facebook/facebook.provider.ts';
import { FACEBOOK_RULES } from '../../../src/providers/facebook/facebook.rules.ts';
import { CHUNK_RETRY_DELAYS_MS, VIDEO_POLL_DELAYS_MS } from '../../../src/providers/facebook/facebook.video.ts';
import type { Tenant, TestApp } from '../../helpers/app.ts';
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

const connected = () => connectedPage(t);

const post = facebookPost;

const missing = (tenant: Tenant, body: unknown) => missingOf(t, tenant, body);

/** A context on the channel's stored configuration whose waits are recorded and end at once (the engine's clock stands in). */
async function clockedContext(tenant: Tenant, channelId: string) {
  const config = await t.services.channels.config(tenant.workspaceId, channelId);
  const waits: number[] = [];
  const ctx = {
    ...providerContext(config, { platformApps: t.services.channels.platformApps }),
    wait: async (ms: number) => void waits.push(ms),
  };
  return { ctx, waits };
}

const reelVideo = (name = 'reel.mp4', bytes = mp4(540, 960, { seconds: 10 })) =>
  mediaItem(bytes, { name, mimeType: 'video/mp4', url: `https://media.herald.test/${name}`, width: 540, height: 960, durationMs: 10_000 });

describe('Facebook reels', () => {
  it('publishes a vertical video as a reel through the API: start, the bytes to the upload host, finish, followed until published', async () => {
    const { tenant, channelId } = await connected();
    const file = mp4(540, 960, { seconds: 12 });
    const video = await uploadMedia(t, tenant, file, 'reel.mp4', 'video/mp4');
    const [created] = await createOk(t, tenant, post(channelId, [{ content: '<p>Our first reel</p>', image: [video] }], { type: 'reel' }));
    await t.settle();
    const published = await getPost(t, tenant, created!.postId);
    expect(published.value[0]!.state, JSON.stringify(published)).toBe('PUBLISHED');
    const [reel] = meta.fbPosts;
    expect(reel).toMatchObject({ kind: 'reel', message: 'Our first reel', page: '101000000000001' });
    expect(published.releaseId).toBe(reel!.id);
    expect(published.releaseURL).toBe(`https://www.facebook.com/reel/${reel!.id}`);
    // The stored bytes went to the upload host, whole, with the page token as OAuth and the documented headers.
    expect(meta.reels.get(reel!.id)!.bytes!.equals(file)).toBe(true);
    const config = await t.services.channels.config(tenant.workspaceId, channelId);
    const upload = meta.calls.find((c) => c.path.startsWith('/video-upload/'))!;
    expect(upload.path).toBe(`/video-upload/v25.0/${reel!.id}`);
    expect(upload.headers).toMatchObject({
      authorization: `OAuth ${String(config.accessToken)}`,
      offset: '0',
      file_size: String(file.length),
    });
    const phases = meta.calls.filter((c) => c.path.endsWith('/video_reels')).map((c) => Object.fromEntries(c.form));
    expect(phases).toEqual([
      { upload_phase: 'start' },
      { upload_phase: 'finish', video_id: reel!.id, video_state: 'PUBLISHED', description: 'Our first reel' },
    ]);
    // Followed until processed (waiting while it processes is the provider tests' matter, on a clock).
    expect(meta.videos.get(reel!.id)).toEqual({ polls: 1, state: 'ready' });
    // No /videos call: a reel is not a page video.
    expect(meta.calls.some((c) => c.path.endsWith('/videos'))).toBe(false);
  });

  it("reports in /missing what Facebook's Reels rules refuse, read from the rules the channel's settings describe", async () => {
    const { tenant, channelId } = await connected();
    const up = (data: Buffer, name: string, type = 'video/mp4') => uploadMedia(t, tenant, data, name, type);
    const wide = await up(mp4(640, 360, { seconds: 10 }), 'wide.mp4');
    const short = await up(mp4(540, 960, { seconds: 2 }), 'short.mp4');
    const long = await up(mp4(540, 960, { seconds: 91 }), 'long.mp4');
    const small = await up(mp4(270, 480, { seconds: 10 }), 'small.mp4');
    const good = await up(mp4(1080, 1920, { seconds: 90 }), 'good.mp4');
    const photo = await up(jpeg(40, 40), 'p.jpg', 'image/jpeg');
    const reel = (image: unknown[], settings: Record<string, unknown> = {}) =>
      missing(tenant, post(channelId, [{ content: '<p>r</p>', image }], { type: 'reel', ...settings }));
    expect(await reel([wide])).toEqual([
      { field: 'value[0].image[0]', reason: 'wide.mp4 is 640×360; Facebook reels are vertical 9:16 videos.' },
    ]);
    expect(await reel([short])).toEqual([
      { field: 'value[0].image[0]', reason: 'short.mp4 lasts 2 s; Facebook takes reels of 3 s to 1 min 30 s.' },
    ]);
    expect(await reel([long])).toEqual([
      { field: 'value[0].image[0]', reason: 'long.mp4 lasts 1 min 31 s; Facebook takes reels of 3 s to 1 min 30 s.' },
    ]);
    expect(await reel([small])).toEqual([
      { field: 'value[0].image[0]', reason: 'small.mp4 is 270×480; Facebook reels are at least 540×960 pixels.' },
    ]);
    expect(await reel([photo])).toEqual([{ field: 'value[0].image', reason: 'A Facebook reel is one video, alone.' }]);
    expect(await reel([good, photo])).toEqual([{ field: 'value[0].image', reason: 'A Facebook reel is one video, alone.' }]);
    expect(await reel([good], { link: 'https://example.com' })).toEqual([
      { field: 'settings.link', reason: 'A Facebook reel takes no link; remove it.' },
    ]);
    expect(await reel([good])).toEqual([]);
    // An unknown type is the settings' error, before anything is created.
    const refused = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: { ...post(channelId, [{ content: '<p>x</p>', image: [good] }], { type: 'story' }), type: 'draft' },
    });
    expect(refused.statusCode, refused.body).toBe(400);

    // The channel's rules name the Reels limits, from the same data.
    const rules = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channelId}`, key: tenant.key });
    expect(rules.statusCode, rules.body).toBe(200);
    const type = (rules.json() as { settings: { properties: Record<string, { enum: string[]; description: string }> } }).settings.properties
      .type!;
    expect(type.enum).toEqual(['post', 'reel']);
    expect(type.description).toContain('MP4, 9:16, at least 540×960 pixels, 3 to 90 seconds');
    expect(FACEBOOK_RULES.reel.seconds).toEqual([3, 90]);
  });

  it('maps the Reels failures: processing errors are refusals, a lost finish is unconfirmed, throttling waits, a refused token is auth', async () => {
    const { tenant, channelId } = await connected();
    const { ctx, waits } = await clockedContext(tenant, channelId);
    const reel = (text: string) => facebookProvider.publish(ctx, publishInput({ text, media: [reelVideo()], settings: { type: 'reel' } }));

    meta.failingVideo = { match: 'rupload', message: 'The video could not be processed as a reel.' };
    expect(await providerFailure(reel('Broken'))).toMatchObject({
      kind: 'rejected',
      message: 'Facebook did not publish the reel: The video could not be processed as a reel.',
    });

    // Still processing when Herald stops waiting: Facebook has it, so it is not sent again.
    meta.reset();
    waits.length = 0;
    meta.videoProcessingPolls = 1000;
    expect(await providerFailure(reel('Slow'))).toMatchObject({
      kind: 'unknown_outcome',
      message: expect.stringContaining('still processing it'),
    });
    expect(waits).toEqual(VIDEO_POLL_DELAYS_MS.slice(1));

    // The finish answered without success may have published: never retried.
    meta.reset();
    meta.on((req) => (req.form.get('upload_phase') === 'finish' ? { status: 200, body: {} } : undefined));
    expect(await providerFailure(reel('Unsure'))).toMatchObject({ kind: 'unknown_outcome' });

    // The Reels limit (30 a day) and other throttling: rate_limited with the wait Facebook gives.
    meta.reset();
    meta.on((req) =>
      req.form.get('upload_phase') === 'finish'
        ? {
            status: 400,
            body: { error: { message: '(#32) Page request limit reached', type: 'OAuthException', code: 32 } },
            headers: {
              'x-business-use-case-usage': JSON.stringify({ '101000000000001': [{ type: 'pages', estimated_time_to_regain_access: 45 }] }),
            },
          }
        : undefined,
    );
    expect(await providerFailure(reel('Throttled'))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 45 * 60_000 } });
    expect(meta.fbPosts).toEqual([]);

    // The upload host refuses the token: the credentials, not the reel.
    meta.reset();
    meta.on((req) =>
      req.path.startsWith('/video-upload/')
        ? { status: 401, body: { debug_info: { retriable: false, type: 'AuthError', message: 'Invalid OAuth access token.' } } }
        : undefined,
    );
    expect(await providerFailure(reel('Refused'))).toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('Invalid OAuth access token'),
    });

    // A retriable upload-host refusal is transient (nothing was published; the engine starts again).
    meta.reset();
    meta.on((req) =>
      req.path.startsWith('/video-upload/')
        ? { status: 503, body: { debug_info: { retriable: true, type: 'ServiceUnavailable', message: 'Try again.' } } }
        : undefined,
    );
    expect(await providerFailure(reel('Later'))).toMatchObject({ kind: 'transient' });
    expect(meta.calls.some((c) => c.form.get('upload_phase') === 'finish')).toBe(false);

    // An upload address that is not the upload host never gets the token.
    meta.reset();
    meta.on((req) =>
      req.form.get('upload_phase') === 'start'
        ? { status: 200, body: { video_id: '555', upload_url: 'https://upload.example.com/video-upload/555' } }
        : undefined,
    );
    expect(await providerFailure(reel('Elsewhere'))).toMatchObject({ kind: 'rejected', message: expect.stringContaining('not Facebook') });
  });

  it('disables the channel when Facebook refuses the token at the start of a reel, through the engine', async () => {
    const { tenant, channelId } = await connected();
    const video = await uploadMedia(t, tenant, mp4(540, 960, { seconds: 5 }), 'r.mp4', 'video/mp4');
    meta.on((req) =>
      req.path.endsWith('/video_reels')
        ? { status: 400, body: { error: { message: 'Error validating access token: The session has been invalidated.', code: 190 } } }
        : undefined,
    );
    const [created] = await createOk(t, tenant, post(channelId, [{ content: '<p>Never sent</p>', image: [video] }], { type: 'reel' }));
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
  });
});

describe('Facebook page videos above the chunked threshold', () => {
  const MiB = 1024 * 1024;
  /** A video just above the threshold, with bytes that differ along the file (so a misplaced chunk shows). */
  const large = () => {
    const bytes = Buffer.alloc(FACEBOOK_RULES.video.chunkedAbove + 1000);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32BE(i, i);
    return mediaItem(bytes, { name: 'big.mp4', mimeType: 'video/mp4', url: 'https://media.herald.test/big.mp4' });
  };
  const transfers = () =>
    meta.calls.filter((c) => c.path.endsWith('/videos') && String(c.headers['content-type']).startsWith('multipart/'));
  const offsetOf = (raw: Buffer) => Number(/name="start_offset"\r\n\r\n(\d+)/.exec(raw.toString('latin1'))![1]);

  it('sends a large video from the media library in the chunks Facebook asks for, through the API and the engine', async () => {
    const { tenant, channelId } = await connected();
    const file = mp4(640, 360, { mdatBytes: FACEBOOK_RULES.video.chunkedAbove + 4096, seconds: 30 });
    const video = await uploadMedia(t, tenant, file, 'big.mp4', 'video/mp4');
    meta.chunkSize = 4 * MiB;
    const [created] = await createOk(t, tenant, post(channelId, [{ content: '<p>The long cut</p>', image: [video] }]));
    await t.settle();
    const read = await getPost(t, tenant, created!.postId);
    expect(read.value[0]!.state, JSON.stringify(read)).toBe('PUBLISHED');
    expect(transfers().map((c) => offsetOf(c.raw))).toEqual([0, 4, 8].map((m) => m * MiB));
    expect(meta.uploadedVideos.get(read.releaseId!)!.equals(file)).toBe(true);
    expect(meta.fbPosts).toEqual([expect.objectContaining({ id: read.releaseId, kind: 'video', message: 'The long cut' })]);
  });

  it('goes through the resumable upload in several chunks, then is followed until published', async () => {
    const { tenant, channelId } = await connected();
    const { ctx } = await clockedContext(tenant, channelId);
    meta.chunkSize = 2 * MiB;
    const item = large();
    const ref = await facebookProvider.publish(ctx, publishInput({ text: 'A long film', media: [item] }));
    expect(ref.url).toBe(`https://www.facebook.com/101000000000001/videos/${ref.id}`);
    expect(transfers().map((c) => offsetOf(c.raw))).toEqual([0, 2, 4, 6, 8].map((m) => m * MiB));
    expect(meta.uploadedVideos.get(ref.id)!.equals(await item.read())).toBe(true);
    const phases = meta.calls
      .filter((c) => c.path.endsWith('/videos') && c.form.get('upload_phase'))
      .map((c) => c.form.get('upload_phase'));
    expect(phases).toEqual(['start', 'finish']);
    expect(meta.fbPosts).toEqual([expect.objectContaining({ id: ref.id, kind: 'video', message: 'A long film' })]);
    expect(meta.videos.get(ref.id)!.state).toBe('ready');
    // Never fetched by URL: no file_url went to Facebook.
    expect(meta.calls.some((c) => c.form.get('file_url'))).toBe(false);
  });

  it('sends a failed chunk again after a wait and goes on from the offset Facebook names', async () => {
    const { tenant, channelId } = await connected();
    const { ctx, waits } = await clockedContext(tenant, channelId);
    meta.chunkSize = 2 * MiB;
    // The chunk at 2 MiB is taken but its answer is lost: sent again, Facebook answers 1363037 naming 4 MiB.
    meta.cutChunk = { at: 2 * MiB, when: 'after' };
    let item = large();
    let ref = await facebookProvider.publish(ctx, publishInput({ text: 'Cut after', media: [item] }));
    expect(transfers().map((c) => offsetOf(c.raw))).toEqual([0, 2, 2, 4, 6, 8].map((m) => m * MiB));
    expect(waits[0]).toBe(CHUNK_RETRY_DELAYS_MS[0]);
    expect(meta.uploadedVideos.get(ref.id)!.equals(await item.read())).toBe(true);

    // Lost before Facebook took it, then a 5xx: the same chunk again each time.
    meta.reset();
    waits.length = 0;
    meta.chunkSize = 2 * MiB;
    meta.cutChunk = { at: 4 * MiB, when: 'before' };
    let failed = false;
    meta.on((req) => {
      if (failed || !String(req.headers['content-type']).startsWith('multipart/') || offsetOf(req.raw) !== 6 * MiB) return undefined;
      failed = true;
      return { status: 500, body: { error: { message: 'There was a problem uploading your video.', code: 6000, error_subcode: 1363019 } } };
    });
    item = large();
    ref = await facebookProvider.publish(ctx, publishInput({ text: 'Cut before', media: [item] }));
    expect(transfers().map((c) => offsetOf(c.raw))).toEqual([0, 2, 4, 4, 6, 6, 8].map((m) => m * MiB));
    expect(meta.uploadedVideos.get(ref.id)!.equals(await item.read())).toBe(true);
    expect(waits.slice(0, 2)).toEqual([CHUNK_RETRY_DELAYS_MS[0], CHUNK_RETRY_DELAYS_MS[0]]);

    // A chunk that keeps failing gives up as transient: nothing was finished, so nothing was published.
    meta.reset();
    waits.length = 0;
    meta.chunkSize = 4 * MiB;
    meta.on((req) =>
      String(req.headers['content-type']).startsWith('multipart/') && offsetOf(req.raw) === 4 * MiB
        ? { status: 503, body: { error: { message: 'Service temporarily unavailable', code: 2, is_transient: true } } }
        : undefined,
    );
    expect(await providerFailure(facebookProvider.publish(ctx, publishInput({ text: 'Never', media: [large()] })))).toMatchObject({
      kind: 'transient',
      message: expect.stringContaining(`kept failing at byte ${4 * MiB}`),
    });
    expect(waits).toEqual(CHUNK_RETRY_DELAYS_MS);
    expect(meta.calls.some((c) => c.form.get('upload_phase') === 'finish')).toBe(false);
    expect(meta.fbPosts).toEqual([]);

    // A finish answered without success may have published: unknown, never sent again.
    meta.reset();
    meta.chunkSize = 8 * MiB;
    meta.on((req) => (req.form.get('upload_phase') === 'finish' ? { status: 200, body: {} } : undefined));
    expect(await providerFailure(facebookProvider.publish(ctx, publishInput({ text: 'Unsure', media: [large()] })))).toMatchObject({
      kind: 'unknown_outcome',
    });
  });

  it('keeps a video at the threshold on the file URL way', async () => {
    const { tenant, channelId } = await connected();
    const { ctx } = await clockedContext(tenant, channelId);
    const item = mediaItem(Buffer.alloc(16), {
      name: 'edge.mp4',
      mimeType: 'video/mp4',
      url: 'https://media.herald.test/edge.mp4',
      size: FACEBOOK_RULES.video.chunkedAbove,
    });
    await facebookProvider.publish(ctx, publishInput({ text: 'By URL', media: [item] }));
    expect(meta.fbPosts).toEqual([expect.objectContaining({ kind: 'video', video: expect.stringContaining('/edge.mp4') })]);
    expect(transfers()).toEqual([]);
  });
});
