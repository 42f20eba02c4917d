// X through the operator's app, end to end against a local server speaking X's API: sign-in with
// PKCE, a post with an image and two comments (as a thread of replies), video in chunks, text
// counted as X counts it, duplicate text, rate limits, and access tokens renewed before expiry.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderError } from '../../../src/providers/provider.ts';
import { X_ALT_MAX, xProvider } from '../../../src/providers/x/x.provider.ts';
import { countXText } from '../../../src/providers/x/x.text.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, createPosts, getPost, postBody } from '../../helpers/posts.ts';
import { publishThreadToChannel } from '../platforms/platform-e2e.ts';
import { FakeX } from '../oauth/fake-x.ts';
import { listed, signInThroughApi } from '../oauth/sign-in.ts';

let t: TestApp;
let x: FakeX;
beforeAll(async () => {
  x = await new FakeX().start();
  t = await createTestApp({
    engine: true,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', X_CLIENT_ID: x.clientId, X_CLIENT_SECRET: x.clientSecret, X_API_BASE: x.url },
  });
});
beforeEach(() => {
  x.reset();
  x.expiresIn = 7200;
  x.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await x.stop();
});

describe('X', () => {
  it('connects through the sign-in and publishes a post with an image and two comments as a thread of replies', async () => {
    const tenant = await createTenant(t);
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    expect(authorize.pathname).toBe('/i/oauth2/authorize');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/x`);
    expect(authorize.searchParams.get('scope')).toBe('tweet.read tweet.write users.read media.write offline.access');
    expect(channels).toHaveLength(1);
    expect(channels[0]).toMatchObject({ identifier: 'x', name: 'Herald Test', profile: 'herald_test', disabled: false });
    // With its app configured, X is listed as available.
    const { platforms } = (await t.request({ method: 'GET', url: '/public/v1/status' })).json() as {
      platforms: Array<{ identifier: string; available: boolean }>;
    };
    expect(platforms.find((p) => p.identifier === 'x')).toEqual({ identifier: 'x', name: 'X', available: true });
    const config = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    expect(config).toMatchObject({ userId: '1001', username: 'herald_test' });
    expect(typeof config.refreshToken).toBe('string');

    const { post } = await publishThreadToChannel(t, tenant, channels[0]!.id, 'x', { replySettings: 'following' });
    const [root, first, second] = x.tweets;
    expect(root).toMatchObject({ author_id: '1001', in_reply_to_tweet_id: null, reply_settings: 'following' });
    expect(root!.text).toBe('Launch day: the notes (https://example.com/launch)');
    expect(root!.media_ids).toHaveLength(1);
    expect(x.media.get(root!.media_ids[0]!)).toMatchObject({ type: 'image/png' });
    expect(first).toMatchObject({ text: 'First comment', in_reply_to_tweet_id: root!.id, media_ids: [] });
    expect(second).toMatchObject({ text: 'Second comment', in_reply_to_tweet_id: first!.id });
    expect(post.releaseURL).toBe(`https://x.com/herald_test/status/${root!.id}`);
    expect(x.refreshes).toBe(0);
  });

  it('uploads video in chunks (initialize, append, finalize) and waits on STATUS until X has processed it', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channels[0]!.id), {
      platformApps: t.services.channels.platformApps,
    });
    const bytes = Buffer.alloc(5 * 1024 * 1024, 3);
    const ref = await xProvider.publish(
      ctx,
      publishInput({ text: 'A film', media: [mediaItem(bytes, { mimeType: 'video/mp4', name: 'film.mp4' })] }),
    );
    const tweet = x.tweets.find((tw) => tw.id === ref.id)!;
    expect(x.media.get(tweet.media_ids[0]!)).toMatchObject({ type: 'video/mp4', size: bytes.length, chunks: 2, finalized: true, polls: 2 });
    expect(x.calls.filter((c) => c.path.endsWith('/append'))).toHaveLength(2);
  });

  it("maps X's errors: 429 with its reset time, 5xx, 401, and a lost answer to the post as an unknown outcome", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channels[0]!.id), {
      platformApps: t.services.channels.platformApps,
    });
    const failure = (answer: { status: number; body?: unknown; headers?: Record<string, string> }) => {
      x.reset();
      x.on((req) => (req.path === '/2/tweets' ? answer : undefined));
      return xProvider.publish(ctx, publishInput({ text: `Mapped ${Math.random()}` })).then(
        () => null,
        (e: unknown) => e as ProviderError,
      );
    };
    const reset = Math.floor(Date.now() / 1000) + 900;
    const limited = await failure({
      status: 429,
      body: { title: 'Too Many Requests', detail: 'Too Many Requests' },
      headers: { 'x-rate-limit-reset': String(reset) },
    });
    expect(limited).toMatchObject({ kind: 'rate_limited' });
    expect(limited!.options.retryAfterMs).toBeGreaterThan(800_000);
    expect(await failure({ status: 503, body: { title: 'Service Unavailable' } })).toMatchObject({ kind: 'transient' });
    expect(await failure({ status: 401, body: { title: 'Unauthorized', detail: 'Unauthorized' } })).toMatchObject({ kind: 'auth' });
    expect(await failure({ status: 201, body: {} })).toMatchObject({ kind: 'unknown_outcome' });
    expect(xProvider.idempotentWrites).toBe(false);
  });

  it('gives images their descriptions through the media metadata endpoint before the post names them', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const id = channels[0]!.id;
    const uploaded = (
      await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(png(16, 16), 'kite.png', 'image/png') })
    ).json() as { id: string; path: string };
    const other = (
      await t.request({
        method: 'POST',
        url: '/public/v1/upload',
        key: tenant.key,
        ...fileBody(png(8, 8, [1, 2, 3]), 'plain.png', 'image/png'),
      })
    ).json() as { id: string; path: string };
    const [created] = await createOk(t, tenant, {
      ...postBody(id, { type: 'now' }),
      posts: [
        {
          integration: { id },
          value: [{ content: '<p>A kite</p>', image: [uploaded, other] }],
          settings: { __type: 'x', alt: { [uploaded.id]: 'A red kite over a field' } },
        },
      ],
    });
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).value[0]!.state).toBe('PUBLISHED');
    const [tweet] = x.tweets;
    expect(tweet!.media_ids.map((m) => x.media.get(m)!.alt)).toEqual(['A red kite over a field', undefined]);
    const metadata = x.calls.filter((c) => c.path === '/2/media/metadata');
    expect(metadata).toHaveLength(1);
    expect(metadata[0]!.json).toEqual({ id: tweet!.media_ids[0], metadata: { alt_text: { text: 'A red kite over a field' } } });
    // The description is set before the post names the media.
    expect(x.calls.findIndex((c) => c.path === '/2/media/metadata')).toBeLessThan(x.calls.findIndex((c) => c.path === '/2/tweets'));
  });

  it('refuses a description longer than X takes when the post is written, and one for a video before publishing', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const id = channels[0]!.id;
    const tooLong = await createPosts(t, tenant, {
      ...postBody(id, { type: 'draft' }),
      posts: [
        {
          integration: { id },
          value: [{ content: '<p>Long alt</p>' }],
          settings: { __type: 'x', alt: { any: 'a'.repeat(X_ALT_MAX + 1) } },
        },
      ],
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('X takes descriptions of up to 1,000 characters.');
    const atLimit = await createPosts(t, tenant, {
      ...postBody(id, { type: 'draft' }),
      posts: [
        { integration: { id }, value: [{ content: '<p>Long alt</p>' }], settings: { __type: 'x', alt: { any: 'a'.repeat(X_ALT_MAX) } } },
      ],
    });
    expect(atLimit.statusCode, atLimit.body).toBe(200);

    const video = mediaItem(Buffer.alloc(10), { mimeType: 'video/mp4', name: 'film.mp4' });
    const missing = xProvider.validate({
      text: 'A film',
      media: [video],
      settings: { alt: { [video.id]: 'A film about kites' } },
      part: 0,
      config: {},
      platformApps: t.services.channels.platformApps,
    });
    expect(missing).toEqual([
      { field: 'settings.alt', reason: 'X takes descriptions for images and GIFs only; remove the one for the video (value[0].image[0]).' },
    ]);
    expect(
      xProvider.validate({
        text: 'A film',
        media: [video],
        settings: {},
        part: 0,
        config: {},
        platformApps: t.services.channels.platformApps,
      }),
    ).toEqual([]);
  });

  it('counts text as X does: URLs 23, CJK and emoji 2', () => {
    expect(countXText('hello')).toBe(5);
    expect(countXText(`see https://example.com/${'a'.repeat(100)}`)).toBe(4 + 23);
    expect(countXText('日本語')).toBe(6);
    expect(countXText('👍🏽')).toBe(2);
    expect(countXText('é')).toBe(1);
    expect(countXText('see example.com now')).toBe(4 + 23 + 4);
    expect(countXText('node.js')).toBe(7);
  });

  it('says when a post is too long unless the account may post long ones', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const long = `<p>${'字'.repeat(141)}</p>`;
    const [created] = await createOk(t, tenant, {
      ...postBody(channels[0]!.id, { type: 'draft' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: long }], settings: { __type: 'x' } }],
    });
    const missing = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
    expect(missing.body).toContain('counts 282');
    const [allowed] = await createOk(t, tenant, {
      ...postBody(channels[0]!.id, { type: 'draft' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: long }], settings: { __type: 'x', longPosts: true } }],
    });
    const none = await t.request({ method: 'GET', url: `/public/v1/posts/${allowed!.postId}/missing`, key: tenant.key });
    expect(none.body).not.toContain('counts 282');
  });

  it('maps duplicate text to a clear rejection', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const body = {
      ...postBody(channels[0]!.id, { type: 'now' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: '<p>Same words twice</p>' }], settings: { __type: 'x' } }],
    };
    const [once] = await createOk(t, tenant, body);
    await t.settle();
    expect((await getPost(t, tenant, once!.postId)).value[0]!.state).toBe('PUBLISHED');
    const [twice] = await createOk(t, tenant, body);
    await t.settle();
    const refused = await getPost(t, tenant, twice!.postId);
    expect(refused.value[0]!.state).toBe('ERROR');
    expect(JSON.stringify(refused)).toContain('X refuses a post whose text is the same as a recent one');
    expect(x.tweets).toHaveLength(1);
  });

  it("through the engine: a rate limit waits for X's reset time; a post whose answer is lost ends as ERROR unconfirmed, never sent twice", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const id = channels[0]!.id;
    const body = (text: string) => ({
      ...postBody(id, { type: 'now' }),
      posts: [{ integration: { id }, value: [{ content: `<p>${text}</p>` }], settings: { __type: 'x' } }],
    });
    const reset = Math.floor(Date.now() / 1000) + 900;
    x.on((req) =>
      req.path === '/2/tweets'
        ? {
            status: 429,
            body: { title: 'Too Many Requests', detail: 'Too Many Requests' },
            headers: { 'x-rate-limit-reset': String(reset) },
          }
        : undefined,
    );
    const [limited] = await createOk(t, tenant, body('Later'));
    await t.settle();
    const waiting = await getPost(t, tenant, limited!.postId);
    expect(waiting.value[0]!.state).not.toBe('PUBLISHED');
    expect(waiting.errorKind).toBeNull();
    const { next_run_at: nextRun } = await t.runtime.db
      .selectFrom('posts')
      .select('next_run_at')
      .where('id', '=', limited!.postId)
      .executeTakeFirstOrThrow();
    expect(Date.parse(nextRun!)).toBeGreaterThanOrEqual(reset * 1000 - 1000);
    expect(x.calls.filter((c) => c.path === '/2/tweets')).toHaveLength(1);

    x.reset();
    x.on((req) => (req.path === '/2/tweets' ? { status: 201, body: {} } : undefined));
    const [lost] = await createOk(t, tenant, body('Lost answer'));
    await t.settle();
    const unconfirmed = await getPost(t, tenant, lost!.postId);
    expect(unconfirmed.value[0]!.state).toBe('ERROR');
    expect(unconfirmed.errorKind).toBe('unconfirmed');
    expect(x.calls.filter((c) => c.path === '/2/tweets')).toHaveLength(1);
    await t.request({ method: 'DELETE', url: `/public/v1/posts/${limited!.postId}`, key: tenant.key });
  });

  it('renews an access token that expires soon before publishing, keeping the rotated refresh token', async () => {
    x.expiresIn = 120;
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const before = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    const [created] = await createOk(t, tenant, {
      ...postBody(channels[0]!.id, { type: 'now' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: '<p>After a refresh</p>' }], settings: { __type: 'x' } }],
    });
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(x.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
  });

  it("two publishes of the same channel starting together share one renewal (X's refresh tokens are single-use)", async () => {
    x.expiresIn = 120;
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    const id = channels[0]!.id;
    // Renewed tokens last two hours, so however the two publishes interleave, one renewal is enough.
    x.expiresIn = 7200;
    const body = (text: string) => ({
      ...postBody(id, { type: 'now' }),
      posts: [{ integration: { id }, value: [{ content: `<p>${text}</p>` }], settings: { __type: 'x' } }],
    });
    const [a] = await createOk(t, tenant, body('One'));
    const [b] = await createOk(t, tenant, body('Two'));
    await t.settle();
    expect((await getPost(t, tenant, a!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect((await getPost(t, tenant, b!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(x.refreshes).toBe(1);
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: false });
  });

  it('a refused refresh disables the channel as needing reconnection and notifies', async () => {
    x.expiresIn = 120;
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'x' });
    x.refuseRefresh = true;
    const [created] = await createOk(t, tenant, {
      ...postBody(channels[0]!.id, { type: 'now' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: '<p>Never sent</p>' }], settings: { __type: 'x' } }],
    });
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('X refused to renew the access token');
    expect(x.tweets).toHaveLength(0);

    // Signing in again with the same account reconnects the same channel, enabled, with new tokens.
    x.refuseRefresh = false;
    x.expiresIn = 7200;
    const again = await signInThroughApi(t, tenant, { provider: 'x' });
    expect(again.channels).toHaveLength(1);
    expect(again.channels[0]).toMatchObject({ id: channels[0]!.id, disabled: false });
    const [sent] = await createOk(t, tenant, {
      ...postBody(channels[0]!.id, { type: 'now' }),
      posts: [{ integration: { id: channels[0]!.id }, value: [{ content: '<p>Sent after reconnecting</p>' }], settings: { __type: 'x' } }],
    });
    await t.settle();
    expect((await getPost(t, tenant, sent!.postId)).value[0]!.state).toBe('PUBLISHED');
  });
});
