// Pinterest through the operator's app, end to end against a local server speaking API v5: the
// browser sign-in (the app by HTTP Basic at the token endpoint), boards and sections through the
// channel's tools, image pins by Herald's public URL, several images, video pins uploaded and
// followed on the engine's clock, renewal, Pinterest's errors, and its numbers.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/lib/clock.ts';
import { pinterestProvider } from '../../../src/providers/pinterest/pinterest.provider.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp, type Tenant } from '../../helpers/app.ts';
import { jpeg, mp4 } from '../../helpers/media-files.ts';
import { createOk, getPost, postBody, uploadMedia } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, mediaItem, publishInput } from '../bluesky/helpers.ts';
import { FakePinterest } from '../oauth/fake-pinterest.ts';
import { choiceForm, listed, refreshChannelNumbers, signedInWithWaits, signInThroughApi } from '../oauth/sign-in.ts';
let t: TestApp;
let pin: FakePinterest;
const clock = new ManualClock(new Date());
const BOARD = '987000000000000';
const SECTION = '5000000000000001';

beforeAll(async () => {
  pin = await new FakePinterest().start();
  t = await createTestApp({
    engine: true,
    clock,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', PINTEREST_APP_ID: pin.appId, PINTEREST_APP_SECRET: pin.appSecret, PINTEREST_API_BASE: pin.url },
  });
});
beforeEach(() => {
  pin.reset();
  pin.expiresIn = 2_592_000;
  pin.refuseRefresh = false;
  pin.processingPolls = 2;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await pin.stop();
});

const connect = (tenant?: Tenant) => signedInWithWaits(t, 'pinterest', tenant, { choice: BOARD });

const upload = (tenant: Tenant, data: Buffer, name: string, type: string) => uploadMedia(t, tenant, data, name, type);

const trigger = (tenant: Tenant, channelId: string, methodName: string, data: Record<string, unknown>) =>
  t.request({ method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, key: tenant.key, payload: { methodName, data } });

describe('Pinterest', () => {
  it('connects through the sign-in, lists boards and sections through the tools, and pins an image by its public URL', async () => {
    const { tenant, authorize, channels, channelId, config } = await connect();
    expect(authorize.pathname).toBe('/oauth/');
    expect(authorize.searchParams.get('scope')).toBe('boards:read,pins:read,pins:write,user_accounts:read');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/pinterest`);
    expect(channels[0]).toMatchObject({ identifier: 'pinterest', name: 'Herald Pins', profile: 'heraldpins', disabled: false });
    expect(config).toMatchObject({ username: 'heraldpins' });
    expect(Date.parse(String(config.refreshExpiresAt)) - Date.now()).toBeGreaterThan(5_000_000_000);
    // The app's credentials went by HTTP Basic, never in the form.
    const token = pin.calls.find((c) => c.path === '/v5/oauth/token')!;
    expect(token.headers.authorization).toMatch(/^Basic /);
    expect(token.form.has('client_secret')).toBe(false);

    const first = await trigger(tenant, channelId, 'boards', {});
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json() as { boards: Array<{ id: string; name: string }>; bookmark: string | null };
    expect(page1.boards).toHaveLength(100);
    expect(page1.boards[0]).toEqual({ id: BOARD, name: 'Launches', privacy: 'PUBLIC' });
    const page2 = (await trigger(tenant, channelId, 'boards', { bookmark: page1.bookmark })).json() as {
      boards: unknown[];
      bookmark: null;
    };
    expect(page2).toMatchObject({ bookmark: null });
    expect(page2.boards).toHaveLength(20);
    expect((await trigger(tenant, channelId, 'sections', { board: BOARD })).json()).toEqual({
      sections: [{ id: SECTION, name: 'Spring' }],
      bookmark: null,
    });
    expect((await trigger(tenant, channelId, 'sections', { board: 'not-a-board' })).statusCode).toBe(400);

    const image = await upload(tenant, jpeg(60, 90), 'launch.jpg', 'image/jpeg');
    const [created] = await createOk(t, tenant, {
      ...postBody(channelId, { type: 'now', date: clock.now().toISOString() }),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: '<p>Launch <strong>day</strong></p>', image: [image] }],
          settings: {
            __type: 'pinterest',
            board: BOARD,
            section: SECTION,
            title: 'Launch',
            link: 'https://example.com/launch',
            alt: 'A rocket',
          },
        },
      ],
    });
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post.value[0]!.state, JSON.stringify(post)).toBe('PUBLISHED');
    const [pinned] = pin.pins;
    expect(pinned!.body).toMatchObject({
      board_id: BOARD,
      board_section_id: SECTION,
      title: 'Launch',
      description: 'Launch day',
      link: 'https://example.com/launch',
      alt_text: 'A rocket',
      media_source: { source_type: 'image_url' },
    });
    const url = new URL((pinned!.body.media_source as { url: string }).url);
    expect(url.origin).toBe(TEST_BASE_URL);
    const served = await t.request({ method: 'GET', url: url.pathname });
    expect(served.statusCode).toBe(200);
    expect(post.releaseURL).toBe(`https://www.pinterest.com/pin/${pinned!.id}/`);
  });

  it('asks for the default board at sign-in, from every page of the boards, and keeps it as the preferred board a post may override', async () => {
    const tenant = await createTenant(t);
    const { page, channels } = await signInThroughApi(t, tenant, { provider: 'pinterest' });
    // No channel until the person chooses.
    expect(channels).toEqual([]);
    expect(page.body).toContain('Which board should this channel pin to by default?');
    const listings = pin.calls.filter((c) => c.path === '/v5/boards');
    expect(listings.map((c) => c.query.get('bookmark'))).toEqual([null, '100']);
    const form = choiceForm(page.body)!;
    expect(form.action).toBe('/integrations/callback/pinterest/choose');
    expect(form.options).toHaveLength(120);
    expect(form.options[0]).toEqual({ id: BOARD, label: 'Launches' });
    // A board from the second page.
    const later = '987000000000110';
    expect(form.options.find((o) => o.id === later)).toEqual({ id: later, label: 'Board 110' });
    const chosen = await form.pick(t, later);
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.body).toContain('is connected');
    expect((await form.pick(t, BOARD)).body).toContain('already used');
    const [channel] = await listed(t, tenant);
    expect(channel).toMatchObject({ identifier: 'pinterest', name: 'Herald Pins' });
    const settings = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channel!.id}`, key: tenant.key });
    expect(settings.json()).toMatchObject({ preferredSettings: { board: later } });

    // A post without a board goes to the default one; a post naming a board goes there.
    const image = await upload(tenant, jpeg(60, 90), 'launch.jpg', 'image/jpeg');
    const pinPost = (settings: Record<string, unknown>) => ({
      ...postBody(channel!.id, { type: 'now', date: clock.now().toISOString() }),
      posts: [
        {
          integration: { id: channel!.id },
          value: [{ content: '<p>Pinned</p>', image: [image] }],
          settings: { __type: 'pinterest', ...settings },
        },
      ],
    });
    const [byDefault] = await createOk(t, tenant, pinPost({}));
    const missing = await t.request({ method: 'GET', url: `/public/v1/posts/${byDefault!.postId}/missing`, key: tenant.key });
    expect(missing.json()).toMatchObject({ missing: [] });
    await createOk(t, tenant, pinPost({ board: BOARD }));
    await t.settle();
    expect(pin.pins.map((p) => p.body.board_id).sort()).toEqual([later, BOARD].sort());

    // A choice that was not offered connects nothing.
    const again = await signInThroughApi(t, tenant, { provider: 'pinterest' });
    const tampered = await choiceForm(again.page.body)!.pick(t, '123456');
    expect(tampered.statusCode).toBe(400);
    expect(tampered.body).toContain('That board was not one of the choices');
  });

  it('takes the only board at once, and connects an account without boards with no default', async () => {
    const before = pin.signedIn;
    try {
      pin.signedIn = { id: '549755885199', username: 'oneboard', businessName: 'One Board' };
      pin.boards.push({ id: '987000000009999', name: 'Only', owner: pin.signedIn.id, sections: [] });
      const one = await createTenant(t);
      const { channels } = await signInThroughApi(t, one, { provider: 'pinterest' });
      expect(channels).toHaveLength(1);
      const settings = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channels[0]!.id}`, key: one.key });
      expect(settings.json()).toMatchObject({ preferredSettings: { board: '987000000009999' } });

      pin.signedIn = { id: '549755885200', username: 'noboards', businessName: 'No Boards' };
      const none = await createTenant(t);
      const empty = await signInThroughApi(t, none, { provider: 'pinterest' });
      expect(empty.channels).toHaveLength(1);
      const bare = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${empty.channels[0]!.id}`, key: none.key });
      expect(bare.json()).toMatchObject({ preferredSettings: null });
    } finally {
      pin.signedIn = before;
    }
  });

  it('pins several images as one pin, and a video after uploading it and waiting for Pinterest on the clock', async () => {
    const { ctx, waits } = await connect();
    const images = [1, 2, 3].map((i) => mediaItem(jpeg(10, 10), { mimeType: 'image/jpeg', url: `/uploads/ws/${i}.jpg` }));
    await pinterestProvider.publish(ctx, publishInput({ text: 'Three', media: images, settings: { board: BOARD } }));
    expect(pin.pins[0]!.body.media_source).toEqual({
      source_type: 'multiple_image_urls',
      items: [1, 2, 3].map((i) => ({ url: `${TEST_BASE_URL}/uploads/ws/${i}.jpg` })),
    });

    const clip = mp4(320, 240, { mdatBytes: 2048 });
    const ref = await pinterestProvider.publish(
      ctx,
      publishInput({
        text: 'Clip',
        media: [mediaItem(clip, { mimeType: 'video/mp4', name: 'clip.mp4' })],
        settings: { board: BOARD, coverFrameSeconds: 1.5 },
      }),
    );
    const [media] = [...pin.media.values()];
    expect(media!.file).toEqual({ name: 'clip.mp4', type: 'video/mp4', size: clip.length });
    expect(pin.pins[1]!.body.media_source).toEqual({ source_type: 'video_id', media_id: media!.id, cover_image_key_frame_time: 1.5 });
    expect(ref).toEqual({ id: pin.pins[1]!.id, url: `https://www.pinterest.com/pin/${pin.pins[1]!.id}/` });
    expect(waits).toEqual([1000, 2000]);

    pin.failNextMedia = true;
    const failed = await providerFailure(
      pinterestProvider.publish(
        ctx,
        publishInput({ media: [mediaItem(clip, { mimeType: 'video/mp4', name: 'bad.mp4' })], settings: { board: BOARD } }),
      ),
    );
    expect(failed).toMatchObject({ kind: 'rejected', message: 'Pinterest could not process the video bad.mp4.' });
    expect(pin.pins).toHaveLength(2);
  });

  it('reports what is missing: the board, long title and link, too many images, comments, alt on a video', async () => {
    const { tenant, channelId } = await connect();
    const image = await upload(tenant, jpeg(20, 20), 'a.jpg', 'image/jpeg');
    const clip = await upload(tenant, mp4(320, 240), 'c.mp4', 'video/mp4');
    const missing = async (
      values: Array<{ content: string; image?: Array<{ id: string; path: string }> }>,
      settings: Record<string, unknown>,
    ) => {
      const [created] = await createOk(t, tenant, {
        type: 'draft',
        date: '2026-06-01T10:00:00.000Z',
        posts: [{ integration: { id: channelId }, value: values, settings: { __type: 'pinterest', ...settings } }],
      });
      const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
    };
    // The default board chosen at sign-in fills a post's board; without one, the board is missing.
    expect(await missing([{ content: '<p>Pin</p>', image: [image] }], {})).toEqual([]);
    const cleared = await t.request({
      method: 'PATCH',
      url: `/public/v1/integrations/${channelId}`,
      key: tenant.key,
      payload: { preferredSettings: null },
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(await missing([{ content: '<p>Pin</p>', image: [image] }], {})).toEqual([
      { field: 'settings.board', reason: 'Choose the board to pin to (the `boards` tool lists them).' },
    ]);
    // Settings of the wrong shape are refused when the post is written.
    const wrong = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: {
        type: 'draft',
        date: '2026-06-01T10:00:00.000Z',
        posts: [
          {
            integration: { id: channelId },
            value: [{ content: '<p>Pin</p>', image: [image] }],
            settings: { __type: 'pinterest', board: BOARD, title: 't'.repeat(101), link: `https://example.com/${'a'.repeat(2048)}` },
          },
        ],
      },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({
      msg: 'posts[0].settings.title: Pinterest takes titles of up to 100 characters.; posts[0].settings.link: Pinterest takes links of up to 2048 characters.',
    });
    const many = await missing(
      [{ content: `<p>${'x'.repeat(801)}</p>`, image: [image, image, image, image, image, image] }, { content: '<p>A comment</p>' }],
      { board: BOARD },
    );
    expect(many).toEqual([
      { field: 'value[0].content', reason: 'The text is 801 characters long; Pinterest allows 800.' },
      { field: 'value[0].image', reason: 'Pinterest takes at most 5 files per post; there are 6.' },
      { field: 'value[1].content', reason: "Pinterest's API has no way to post comments; remove the comments." },
    ]);
    // A video pin's length, as the media library read it: 4 s to 15 min.
    const short = await upload(tenant, mp4(320, 240, { seconds: 2, fill: 3 }), 'short.mp4', 'video/mp4');
    const long = await upload(tenant, mp4(320, 240, { seconds: 5 }), 'long.mp4', 'video/mp4');
    expect(await missing([{ content: '<p>Clip</p>', image: [short] }], { board: BOARD })).toEqual([
      { field: 'value[0].image[0]', reason: 'short.mp4 lasts 2 s; Pinterest takes video pins of 4 s to 15 min.' },
    ]);
    expect(await missing([{ content: '<p>Clip</p>', image: [long] }], { board: BOARD })).toEqual([]);
    expect(await missing([{ content: '<p>Clip</p>', image: [clip, image] }], { board: BOARD, alt: 'x' })).toEqual([
      { field: 'value[0].image', reason: 'A pin is one image, 2 to 5 images, or one video.' },
      { field: 'settings.alt', reason: 'Pinterest takes alt text for image pins only; remove it for a video.' },
    ]);
  });

  it("maps Pinterest's errors: 401 auth, 429 rate limited with the wait, a board not found refused in words", async () => {
    const { ctx } = await connect();
    const image = () => mediaItem(jpeg(10, 10), { mimeType: 'image/jpeg', url: '/uploads/ws/p.jpg' });
    const attempt = (settings: Record<string, unknown> = { board: BOARD }) =>
      providerFailure(pinterestProvider.publish(ctx, publishInput({ media: [image()], settings })));
    pin.requestsLeft = 0;
    expect(await attempt()).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 60_000 } });
    pin.reset();
    expect(await attempt({ board: '123' })).toMatchObject({
      kind: 'rejected',
      message: "Pinterest answered 404: Board not found. Choose one of the account's boards (the `boards` tool).",
    });
    pin.on((req) => (req.path === '/v5/pins' ? { status: 401, body: { code: 2, message: 'Authentication failed.' } } : undefined));
    expect(await attempt()).toMatchObject({ kind: 'auth' });
    pin.reset();
    pin.on((req) => (req.path === '/v5/pins' ? { status: 500, body: { code: 0, message: 'Internal error' } } : undefined));
    expect(await attempt()).toMatchObject({ kind: 'transient' });
    expect(await providerFailure(pinterestProvider.comment(ctx, publishInput({ part: 1 })))).toMatchObject({ kind: 'rejected' });
  });

  it('renews an expiring token before publishing; a refused renewal disables the channel and notifies', async () => {
    pin.expiresIn = 3600;
    const { tenant, channelId, config: before } = await connect();
    pin.expiresIn = 2_592_000;
    const image = await upload(tenant, jpeg(20, 20), 'a.jpg', 'image/jpeg');
    const body = (id: string, media: { id: string; path: string }, content: string) => ({
      ...postBody(id, { type: 'now', date: clock.now().toISOString() }),
      posts: [{ integration: { id }, value: [{ content, image: [media] }], settings: { __type: 'pinterest', board: BOARD } }],
    });
    const [renewed] = await createOk(t, tenant, body(channelId, image, '<p>After a renewal</p>'));
    await t.settle();
    expect((await getPost(t, tenant, renewed!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(pin.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channelId);
    expect(after.accessToken).not.toBe(before.accessToken);

    pin.expiresIn = 3600;
    const other = await connect();
    pin.refuseRefresh = true;
    const otherImage = await upload(other.tenant, jpeg(20, 20), 'a.jpg', 'image/jpeg');
    const [refused] = await createOk(t, other.tenant, body(other.channelId, otherImage, '<p>Never sent</p>'));
    await t.settle();
    expect((await getPost(t, other.tenant, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(t, other.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: other.tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('Pinterest refused to renew the access token');
    expect(pin.pins.map((p) => p.body.description)).toEqual(['After a renewal']);
  });

  it('the collector renews an expiring token once before reading the account', async () => {
    pin.expiresIn = 3600;
    const { tenant, channelId } = await connect();
    pin.expiresIn = 2_592_000;
    pin.followers = 21;
    const res = await refreshChannelNumbers(t, tenant, channelId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { followers: 21 } });
    expect(pin.refreshes).toBe(1);
  });

  it('answers provider_unavailable naming the variables when the operator has no Pinterest app', async () => {
    const bare = await createTestApp({ env: {} });
    try {
      const tenant = await createTenant(bare);
      const res = await bare.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'pinterest' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'provider_unavailable' });
      expect(res.body).toContain('PINTEREST_APP_ID and PINTEREST_APP_SECRET');
    } finally {
      await bare.close();
    }
  });

  it("reads a pin's analytics over Pinterest's 90-day window and the account's counts; a deleted pin is absent", async () => {
    const { ctx } = await connect();
    const ref = await pinterestProvider.publish(
      ctx,
      publishInput({ media: [mediaItem(jpeg(10, 10), { mimeType: 'image/jpeg', url: '/uploads/ws/m.jpg' })], settings: { board: BOARD } }),
    );
    pin.analytics.set(ref.id, { IMPRESSION: 340, SAVE: 12, PIN_CLICK: 9 });
    const metrics = pinterestProvider.metrics!;
    const readings = await metrics.posts(ctx, [ref, { id: '1039999999999999' }]);
    expect(readings.get(ref.id)).toEqual({
      metrics: { impressions: 340, saves: 12, clicks: 9 },
      raw: { IMPRESSION: 340, SAVE: 12, PIN_CLICK: 9 },
    });
    expect(readings.has('1039999999999999')).toBe(false);
    const call = pin.calls.find((c) => c.path.endsWith('/analytics'))!;
    const days = (Date.parse(call.query.get('end_date')!) - Date.parse(call.query.get('start_date')!)) / 86_400_000;
    expect(days).toBe(89);
    pin.followers = 55;
    expect(await metrics.account(ctx)).toEqual({
      metrics: { followers: 55, following: 4, posts: 1 },
      raw: { follower_count: 55, following_count: 4, pin_count: 1 },
    });
  });
});
