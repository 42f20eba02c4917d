// Lemmy end to end against a local server speaking Lemmy's /api/v3: connecting with an instance,
// a user name and a password (and a two-factor code), a post with an image (by its URL) and two
// comments, the community tool, signing in again when the instance ends the session or the
// session expires (the new session stored for the channel, once across processes), Lemmy's error codes (rate_limit_error, couldnt_find_community), the missing
// check, and the counts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CredentialRenewals } from '../../../src/channels/credential-renewal.ts';
import { lemmyProvider } from '../../../src/providers/lemmy/lemmy.provider.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, getPost, postBody } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { publishThreadToChannel } from '../platforms/platform-e2e.ts';
import { listed, refreshChannelNumbers } from '../oauth/sign-in.ts';
import { FakeLemmy } from './fake-lemmy.ts';

let t: TestApp;
let lemmy: FakeLemmy;
beforeAll(async () => {
  lemmy = await new FakeLemmy().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => lemmy.reset());
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await lemmy.stop();
});

function connect(tenant: Tenant, fields: Record<string, unknown> = {}) {
  return t.request({
    method: 'POST',
    url: '/public/v1/integrations/connect',
    key: tenant.key,
    payload: { provider: 'lemmy', instance: lemmy.url, username: lemmy.username, password: lemmy.password, ...fields },
  });
}

async function connected(fields: Record<string, unknown> = {}): Promise<{ tenant: Tenant; id: string }> {
  const tenant = await createTenant(t);
  const res = await connect(tenant, fields);
  expect(res.statusCode, res.body).toBe(200);
  return { tenant, id: (await listed(t, tenant))[0]!.id };
}

function post(id: string, content: string, settings: Record<string, unknown>, type: 'now' | 'draft' = 'now') {
  return { ...postBody(id, { type }), posts: [{ integration: { id }, value: [{ content }], settings: { __type: 'lemmy', ...settings } }] };
}

describe('Lemmy', () => {
  it('connects with a password and publishes a post with an image by its URL and two comments, the second answering the first', async () => {
    const { tenant, id } = await connected();
    expect((await listed(t, tenant))[0]).toMatchObject({
      identifier: 'lemmy',
      name: 'Herald Tester',
      profile: `herald_tester@${lemmy.host}`,
    });
    const config = await t.services.channels.config(tenant.workspaceId, id);
    expect(config).toMatchObject({
      instance: lemmy.url,
      username: 'herald_tester',
      password: lemmy.password,
      personId: 42,
      twoFactor: false,
    });
    expect(typeof config.jwt).toBe('string');
    expect(lemmy.logins).toBe(1);

    const { post, image } = await publishThreadToChannel(t, tenant, id, 'lemmy', {
      community: 'technology',
      title: 'Launch day',
      nsfw: false,
    });
    const [root] = lemmy.posts;
    expect(root).toMatchObject({
      name: 'Launch day',
      community_id: 7,
      url: image.path,
      body: 'Launch **day**: [the notes](https://example.com/launch)',
      nsfw: false,
    });
    const [first, second] = lemmy.comments;
    expect(first).toMatchObject({ post_id: root!.id, parent_id: null, content: 'First comment' });
    expect(second).toMatchObject({ post_id: root!.id, parent_id: first!.id, content: 'Second comment' });
    expect(post.releaseId).toBe(String(root!.id));
    expect(post.releaseURL).toBe(`https://lemmy.test/post/${root!.id}`);
    // The session from connecting was used: no second sign-in.
    expect(lemmy.logins).toBe(1);
    expect(
      lemmy.calls.filter((c) => c.path === '/api/v3/post').every((c) => c.headers.authorization === `Bearer ${String(config.jwt)}`),
    ).toBe(true);
  });

  it('asks for the two-factor code of an account that has one, and never stores it', async () => {
    lemmy.totpCode = '123456';
    const tenant = await createTenant(t);
    const without = await connect(tenant);
    expect(without.statusCode).toBe(400);
    expect(without.body).toContain('the account uses two-factor codes');
    const wrong = await connect(tenant, { totp: '654321' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('the two-factor code is wrong or expired');
    const badPassword = await connect(tenant, { password: 'nope' });
    expect(badPassword.statusCode).toBe(400);
    expect(badPassword.json()).toMatchObject({ code: 'platform_refused' });
    expect(badPassword.body).toContain('the user name or password is wrong');
    const ok = await connect(tenant, { totp: '123456' });
    expect(ok.statusCode, ok.body).toBe(200);
    const id = (await listed(t, tenant))[0]!.id;
    const config = await t.services.channels.config(tenant.workspaceId, id);
    expect(config.twoFactor).toBe(true);
    expect(config).not.toHaveProperty('totp');

    // The instance ends the session: an account with a second factor cannot be signed in again by Herald.
    lemmy.endSessions();
    const [created] = await createOk(t, tenant, post(id, '<p>Ended</p>', { community: 'technology', title: 'Ended session' }));
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).errorKind).toBe('auth');
    expect((await listed(t, tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    expect(lemmy.posts).toHaveLength(0);
  });

  it('signs in again with the stored password when the instance ended the session, and before a session with an expiry runs out', async () => {
    const { tenant, id } = await connected();
    lemmy.endSessions();
    const [one] = await createOk(
      t,
      tenant,
      post(id, '<p>After the session ended</p>', { community: 'technology', title: 'Signed in again' }),
    );
    await t.settle();
    expect((await getPost(t, tenant, one!.postId)).state).toBe('PUBLISHED');
    expect(lemmy.logins).toBe(2);

    // Sessions that say when they expire are renewed (and stored) before use.
    lemmy.sessionLifetime = 300;
    const second = await connected();
    lemmy.sessionLifetime = 86_400;
    const before = await t.services.channels.config(second.tenant.workspaceId, second.id);
    const [two] = await createOk(
      t,
      second.tenant,
      post(second.id, '<p>Renewed</p>', { community: 'technology', title: 'Renewed session' }),
    );
    await t.settle();
    expect((await getPost(t, second.tenant, two!.postId)).state).toBe('PUBLISHED');
    const after = await t.services.channels.config(second.tenant.workspaceId, second.id);
    expect(after.jwt).not.toBe(before.jwt);
    expect(lemmy.logins).toBe(4);

    // A password changed on the instance: signing in again is refused, so the channel needs reconnecting.
    const third = await connected();
    lemmy.endSessions();
    lemmy.password = 'a new password';
    try {
      const [three] = await createOk(t, third.tenant, post(third.id, '<p>Refused</p>', { community: 'technology', title: 'Refused' }));
      await t.settle();
      expect((await getPost(t, third.tenant, three!.postId)).errorKind).toBe('auth');
      expect((await listed(t, third.tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    } finally {
      lemmy.password = 'correct horse battery staple';
    }
  });

  it('stores the session it signed in again for, so the next publish does not sign in again; two processes sign in once', async () => {
    const { tenant, id } = await connected();
    const before = await t.services.channels.config(tenant.workspaceId, id);
    lemmy.endSessions();
    const [one] = await createOk(t, tenant, post(id, '<p>Session ended</p>', { community: 'technology', title: 'Signed in again' }));
    await t.settle();
    expect((await getPost(t, tenant, one!.postId)).state).toBe('PUBLISHED');
    expect(lemmy.logins).toBe(2);
    const after = await t.services.channels.config(tenant.workspaceId, id);
    expect(after.jwt).not.toBe(before.jwt);
    expect(after).toEqual({ ...before, jwt: after.jwt });

    // The next publish and the community tool use the stored session: no sign-in.
    const [two] = await createOk(t, tenant, post(id, '<p>Stored session</p>', { community: 'technology', title: 'No sign-in' }));
    await t.settle();
    expect((await getPost(t, tenant, two!.postId)).state).toBe('PUBLISHED');
    const tool = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${id}`,
      key: tenant.key,
      payload: { methodName: 'communities', data: {} },
    });
    expect(tool.statusCode, tool.body).toBe(200);
    expect(lemmy.logins).toBe(2);
    // The ended session was refused on the community's lookup; both posts went with the new one.
    expect(lemmy.calls.filter((c) => c.path === '/api/v3/post').map((c) => c.headers.authorization)).toEqual([
      `Bearer ${String(after.jwt)}`,
      `Bearer ${String(after.jwt)}`,
    ]);

    // Two processes whose publishes both find the session ended: one signs in again and stores it, the other uses it.
    lemmy.endSessions();
    const { db, clock, secretBox } = t.runtime;
    const elsewhere = new CredentialRenewals({ db, clock, secretBox }, { pollMs: 5 });
    const opened = (config: Record<string, unknown>) =>
      providerContext(config, { channelId: id, platformApps: t.services.channels.platformApps });
    const [here, there] = await Promise.all([
      t.services.channels.renewals.live(lemmyProvider, opened(after)),
      elsewhere.live(lemmyProvider, opened(after)),
    ]);
    const input = (title: string) => publishInput({ text: title, settings: { community: 'technology', title } });
    const refs = await Promise.all([lemmyProvider.publish(here, input('From here')), lemmyProvider.publish(there, input('From there'))]);
    expect(refs.map((r) => r.id)).toHaveLength(2);
    expect(lemmy.logins).toBe(3);
    const stored = await t.services.channels.config(tenant.workspaceId, id);
    expect(stored.jwt).not.toBe(after.jwt);
    expect([here.config.jwt, there.config.jwt]).toEqual([stored.jwt, stored.jwt]);
  });

  it('finds communities with the tool: those followed, by name@instance, and by words', async () => {
    const { tenant, id } = await connected();
    const trigger = (data: Record<string, unknown>) =>
      t.request({
        method: 'POST',
        url: `/public/v1/integration-trigger/${id}`,
        key: tenant.key,
        payload: { methodName: 'communities', data },
      });
    const followed = await trigger({});
    expect(followed.statusCode, followed.body).toBe(200);
    expect(followed.json()).toEqual([
      { id: 7, name: 'technology@lemmy.test', title: 'Technology', nsfw: false, postingRestrictedToMods: false, subscribers: 1200 },
    ]);
    expect(((await trigger({ query: 'launches@other.example' })).json() as Array<{ id: number }>)[0]).toMatchObject({
      id: 9,
      name: 'launches@other.example',
    });
    expect(((await trigger({ query: 'everywhere' })).json() as Array<{ name: string }>).map((c) => c.name)).toEqual([
      'launches@other.example',
    ]);
    const unknown = await trigger({ query: 'nothing@nowhere.example' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('the instance does not know that community');
  });

  it("maps Lemmy's errors: rate_limit_error, 429 with Retry-After, couldnt_find_community in words, and a lost answer", async () => {
    const { tenant, id } = await connected();
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, id), {
      platformApps: t.services.channels.platformApps,
    });
    const input = (community = 'technology') => publishInput({ text: 'Body', settings: { community, title: 'A title' } });
    lemmy.postLimit = 0;
    const limited = await providerFailure(lemmyProvider.publish(ctx, input()));
    expect(limited).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 300_000 } });
    expect(limited.message).toContain('the instance asks to slow down');
    lemmy.postLimit = 6;
    lemmy.on((req) =>
      req.path === '/api/v3/post' ? { status: 429, body: { error: 'rate_limit_error' }, headers: { 'retry-after': '30' } } : undefined,
    );
    expect(await providerFailure(lemmyProvider.publish(ctx, input()))).toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 30_000 },
    });
    lemmy.reset();
    const unknown = await providerFailure(lemmyProvider.publish(ctx, input('nowhere@far.example')));
    expect(unknown).toMatchObject({ kind: 'rejected' });
    expect(unknown.message).toContain('the instance does not know that community (couldnt_find_community)');
    lemmy.on((req) => (req.path === '/api/v3/post' ? { status: 200, body: {} } : undefined));
    expect(await providerFailure(lemmyProvider.publish(ctx, input()))).toMatchObject({ kind: 'unknown_outcome' });
    lemmy.reset();
    lemmy.on((req) => (req.path === '/api/v3/post' ? { status: 502, body: 'Bad Gateway' } : undefined));
    expect(await providerFailure(lemmyProvider.publish(ctx, input()))).toMatchObject({ kind: 'transient' });
    expect(lemmyProvider.idempotentWrites).toBe(false);

    // Through the engine: the refusal is the post's error, in words.
    lemmy.reset();
    const [created] = await createOk(t, tenant, post(id, '<p>Nowhere</p>', { community: 'nowhere@far.example', title: 'Nowhere' }));
    await t.settle();
    const refused = await getPost(t, tenant, created!.postId);
    expect(refused).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(refused.error).toContain('does not know the community nowhere@far.example');
  });

  it('reports what a post lacks in /missing', async () => {
    const { tenant, id } = await connected();
    const missing = async (content: string, settings: Record<string, unknown>) => {
      const [draft] = await createOk(t, tenant, post(id, content, settings, 'draft'));
      return (await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}/missing`, key: tenant.key })).json() as {
        missing: Array<{ field: string; reason: string }>;
      };
    };
    expect((await missing('<p>Hi</p>', {})).missing.map((m) => m.field)).toEqual(['settings.community', 'settings.title']);
    // A title Lemmy would refuse is refused when the post is written.
    const short = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: post(id, '<p>Hi</p>', { community: 'technology', title: 'ok' }, 'draft'),
    });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('Lemmy takes titles of 3 to 200 characters.');
    expect((await missing('<p>Hi</p>', { community: 'technology', title: 'Fine title', url: 'https://example.com/a' })).missing).toEqual(
      [],
    );
    expect((await missing('<p>Hi</p>', { community: 'technology', title: 'Fine title' })).missing).toEqual([]);
    // An image is the post's link: with `url` too, or on a comment, it has no place.
    const uploaded = (
      await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(png(8, 8), 'a.png', 'image/png') })
    ).json() as { id: string; path: string };
    const [both] = await createOk(t, tenant, {
      ...postBody(id, { type: 'draft' }),
      posts: [
        {
          integration: { id },
          value: [
            { content: '<p>Hi</p>', image: [uploaded] },
            { content: '<p>Reply</p>', image: [uploaded] },
          ],
          settings: { __type: 'lemmy', community: 'technology', title: 'Both', url: 'https://example.com/a' },
        },
      ],
    });
    const report = (await t.request({ method: 'GET', url: `/public/v1/posts/${both!.postId}/missing`, key: tenant.key })).json() as {
      missing: Array<{ field: string; reason: string }>;
    };
    expect(report.missing).toEqual([
      { field: 'value[0].image', reason: 'A Lemmy post has one link: an attached image or `url`, not both.' },
      { field: 'value[1].image', reason: 'Lemmy comments take no attachments.' },
    ]);
  });

  it('reads the account through the analytics route', async () => {
    const { tenant, id } = await connected();
    const res = await refreshChannelNumbers(t, tenant, id);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ refreshed: true, account: { posts: 0 } });
  });

  it("reads the counts of posts and comments, and the account's posts", async () => {
    const { tenant, id } = await connected();
    const ctx = providerContext(await t.services.channels.config(tenant.workspaceId, id), {
      platformApps: t.services.channels.platformApps,
    });
    const ref = await lemmyProvider.publish(
      ctx,
      publishInput({ text: 'Numbers', settings: { community: 'technology', title: 'Numbers' } }),
    );
    const reply = await lemmyProvider.comment(ctx, publishInput({ part: 1, text: 'A comment', parent: ref, root: ref }));
    lemmy.posts[0]!.score = 15;
    lemmy.posts[0]!.upvotes = 17;
    const readings = await lemmyProvider.metrics!.posts(ctx, [ref, reply, { id: '99999', meta: { kind: 'post' } }]);
    expect(readings.get(ref.id)).toEqual({ metrics: { score: 15, likes: 17, replies: 1 }, raw: { score: 15, upvotes: 17, comments: 1 } });
    expect(readings.get(reply.id)).toEqual({ metrics: { score: 1, likes: 1, replies: 0 }, raw: { score: 1, upvotes: 1, child_count: 0 } });
    expect(readings.has('99999')).toBe(false);
    expect(await lemmyProvider.metrics!.account(ctx)).toEqual({ metrics: { posts: 1 }, raw: { post_count: 1 } });
  });
});
