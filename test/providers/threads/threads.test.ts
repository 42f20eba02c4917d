// Threads through the operator's app, end to end against a local server speaking the Threads API:
// sign-in with the long-lived token exchange, containers then publish with Herald's own media URL,
// replies for comments, the publishing quota, and long-lived token refresh.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countThreadsText, threadsProvider } from '../../../src/providers/threads/threads.provider.ts';
import type { ProviderError } from '../../../src/providers/provider.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp } from '../../helpers/app.ts';
import { createOk, getPost, postBody } from '../../helpers/posts.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { FakeThreads } from '../oauth/fake-threads.ts';
import { listed, signInThroughApi } from '../oauth/sign-in.ts';
import { publishThreadToChannel } from '../platforms/platform-e2e.ts';

let t: TestApp;
let th: FakeThreads;
beforeAll(async () => {
  th = await new FakeThreads().start();
  t = await createTestApp({
    engine: true,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', THREADS_APP_ID: th.appId, THREADS_APP_SECRET: th.appSecret, THREADS_API_BASE: th.url },
  });
});
beforeEach(() => {
  th.reset();
  th.expiresIn = 5_183_944;
  th.refuseRefresh = false;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await th.stop();
});

const textPost = (channelId: string, content: string) => ({
  ...postBody(channelId, { type: 'now' }),
  posts: [{ integration: { id: channelId }, value: [{ content }], settings: { __type: 'threads' } }],
});

describe('Threads', () => {
  it("connects through the sign-in and publishes a post with an image (by Herald's URL) and two comments as replies", async () => {
    const tenant = await createTenant(t);
    const { authorize, channels } = await signInThroughApi(t, tenant, { provider: 'threads' });
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/threads`);
    expect(channels[0]).toMatchObject({ identifier: 'threads', name: 'Herald on Threads', profile: 'herald.threads', disabled: false });
    const config = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    expect(config.accessToken).toMatch(/^THAA/); // the long-lived token, not the one-hour one

    const { post, image } = await publishThreadToChannel(t, tenant, channels[0]!.id, 'threads', { replyControl: 'accounts_you_follow' });
    const [root, first, second] = th.threads;
    expect(root).toMatchObject({
      media_type: 'IMAGE',
      text: 'Launch day: the notes (https://example.com/launch)',
      reply_to_id: null,
      reply_control: 'accounts_you_follow',
    });
    // Threads fetches the image from Herald's public media URL.
    const fetched = new URL(root!.image_urls[0]!);
    expect(fetched.origin).toBe(TEST_BASE_URL);
    const served = await t.request({ method: 'GET', url: fetched.pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(image.path).toContain(fetched.pathname);
    expect(first).toMatchObject({ media_type: 'TEXT', text: 'First comment', reply_to_id: root!.id });
    expect(second).toMatchObject({ text: 'Second comment', reply_to_id: first!.id });
    expect(post.releaseURL).toBe(root!.permalink);
  });

  it("publishes several media as a carousel of containers, each by Herald's absolute media URL", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'threads' });
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channels[0]!.id), {
      platformApps: t.services.channels.platformApps,
    });
    const media = [
      mediaItem(Buffer.from('a'), { url: '/uploads/ws/one.png', mimeType: 'image/png' }),
      mediaItem(Buffer.from('b'), { url: `${TEST_BASE_URL}/uploads/ws/two.mp4`, mimeType: 'video/mp4' }),
    ];
    const ref = await threadsProvider.publish(
      ctx,
      publishInput({ text: 'Two things', media, settings: { alt: { [media[0]!.id]: 'A green square' } } }),
    );
    const published = th.threads.find((x) => x.id === ref.id)!;
    expect(published).toMatchObject({
      media_type: 'CAROUSEL',
      text: 'Two things',
      image_urls: [`${TEST_BASE_URL}/uploads/ws/one.png`, `${TEST_BASE_URL}/uploads/ws/two.mp4`],
    });
    const children = [...th.containers.values()].filter((c) => c.params.is_carousel_item === 'true');
    expect(children.map((c) => c.params.media_type)).toEqual(['IMAGE', 'VIDEO']);
    expect(children[0]!.params.alt_text).toBe('A green square');
  });

  it('reports videos longer than five minutes, alone or in a carousel, by their place', () => {
    const item = (name: string, mimeType: string, seconds: number | null) => ({
      id: name,
      url: `/uploads/ws/${name}`,
      name,
      mimeType,
      size: 1000,
      width: 72,
      height: 128,
      durationMs: seconds === null ? null : seconds * 1000,
    });
    const check = (media: Array<ReturnType<typeof item>>) =>
      threadsProvider.validate({ text: 'x', media, settings: {}, part: 0, config: {}, platformApps: t.services.channels.platformApps });
    expect(
      check([
        item('long.mp4', 'video/mp4', 301),
        item('a.png', 'image/png', null),
        item('ok.mp4', 'video/mp4', 300),
        item('unknown.mov', 'video/quicktime', null),
      ]),
    ).toEqual([{ field: 'value[0].image[0]', reason: 'long.mp4 lasts 5 min 1 s; Threads takes videos up to 5 min.' }]);
    expect(check([item('ok.mp4', 'video/mp4', 12)])).toEqual([]);
  });

  it('counts text as Threads does (an emoji counts its UTF-8 bytes)', () => {
    expect(countThreadsText('hello')).toBe(5);
    expect(countThreadsText('日本')).toBe(2);
    expect(countThreadsText('👍')).toBe(4);
    expect(countThreadsText('👍🏽')).toBe(8);
  });

  it('respects the publishing quota: a used-up day is a delay (rate limited, retried in an hour), never a failed publish call', async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'threads' });
    const config = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    th.quotaUsage = 250;
    const error = await threadsProvider
      .publish(providerContext(config, { platformApps: t.services.channels.platformApps }), publishInput({ text: 'One too many' }))
      .then(
        () => null,
        (e: unknown) => e as ProviderError,
      );
    expect(error).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 3_600_000 } });
    expect(error!.message).toContain('used its 250 posts of the last 24 hours');
    expect(th.calls.some((c) => c.path.endsWith('/threads_publish'))).toBe(false);
  });

  it("maps Graph API errors: 190 auth, 4 rate limited, transient, a refusal with Threads' reason", async () => {
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'threads' });
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, channels[0]!.id), {
      platformApps: t.services.channels.platformApps,
    });
    const failure = (answer: { status: number; body?: unknown }) => {
      th.reset();
      th.on((req) => (req.path.endsWith('/threads_publish') ? answer : undefined));
      return threadsProvider.publish(ctx, publishInput({ text: `Mapped ${Math.random()}` })).then(
        () => null,
        (e: unknown) => e as ProviderError,
      );
    };
    expect(await failure({ status: 400, body: { error: { message: 'Session has expired', code: 190 } } })).toMatchObject({ kind: 'auth' });
    expect(await failure({ status: 400, body: { error: { message: 'Application request limit reached', code: 4 } } })).toMatchObject({
      kind: 'rate_limited',
    });
    expect(
      await failure({ status: 500, body: { error: { message: 'An unknown error occurred', code: 1, is_transient: true } } }),
    ).toMatchObject({ kind: 'transient' });
    expect(
      await failure({
        status: 400,
        body: { error: { message: 'Invalid parameter', code: 100, error_user_msg: 'The link could not be fetched.' } },
      }),
    ).toMatchObject({ kind: 'rejected', message: 'Threads answered 400: The link could not be fetched.' });
    // A publish call that answers without the post's id may have published: not retried (Threads has no idempotency key).
    expect(await failure({ status: 200, body: {} })).toMatchObject({ kind: 'unknown_outcome' });
    expect(threadsProvider.idempotentWrites).toBe(false);
  });

  it('refreshes the long-lived token when a week is left; a refused refresh disables the channel and notifies', async () => {
    th.expiresIn = 3 * 24 * 3600;
    const tenant = await createTenant(t);
    const { channels } = await signInThroughApi(t, tenant, { provider: 'threads' });
    const before = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    th.expiresIn = 5_183_944;
    const [renewed] = await createOk(t, tenant, textPost(channels[0]!.id, '<p>After a refresh</p>'));
    await t.settle();
    expect((await getPost(t, tenant, renewed!.postId)).value[0]!.state).toBe('PUBLISHED');
    expect(th.refreshes).toBe(1);
    const after = await t.services.channels.config(tenant.workspaceId, channels[0]!.id);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(Date.parse(String(after.expiresAt))).toBeGreaterThan(Date.parse(String(before.expiresAt)));

    const other = await createTenant(t);
    th.expiresIn = 3 * 24 * 3600;
    const { channels: expiring } = await signInThroughApi(t, other, { provider: 'threads' });
    th.refuseRefresh = true;
    const [refused] = await createOk(t, other, textPost(expiring[0]!.id, '<p>Never sent</p>'));
    await t.settle();
    expect((await getPost(t, other, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(t, other))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: other.key })).json();
    expect(JSON.stringify(notes)).toContain('Threads refused to renew the access token');
    expect(th.threads.map((x) => x.text)).toEqual(['After a refresh']);
  });
});
