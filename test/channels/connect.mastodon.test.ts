// Connecting a Mastodon account through the browser sign-in (or a token), and publishing to it,
// end to end against a local server speaking the Mastodon API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clearMastodonInstances } from '../../src/providers/mastodon/mastodon.provider.ts';
import { createTenant, createTestApp, TEST_BASE_URL, type TestApp, type Tenant } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { issueOAuthToken, TEST_REDIRECT_URI } from '../helpers/oauth.ts';
import { createOk, getPost, postBody } from '../helpers/posts.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';

let t: TestApp;
let fake: FakeMastodon;
beforeAll(async () => {
  fake = await new FakeMastodon().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => {
  fake.reset();
  fake.signedIn = '1';
  fake.maxCharacters = 500;
  clearMastodonInstances();
});
afterAll(() => fake.stop());

const connect = (tenant: Tenant, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });

/** Opens the sign-in URL as the person's browser would; the fake instance approves at once and sends it back to Herald. */
async function approve(url: string): Promise<string> {
  const answer = await fetch(url, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get('location')!);
  expect(back.origin).toBe(TEST_BASE_URL);
  return back.pathname + back.search;
}

async function signIn(tenant: Tenant, extra: Record<string, unknown> = {}) {
  const started = await connect(tenant, { provider: 'mastodon', instance: fake.url, ...extra });
  expect(started.statusCode, started.body).toBe(200);
  const callback = await approve(started.json().url);
  const page = await t.request({ method: 'GET', url: callback });
  return { page, callback };
}

async function listed(tenant: Tenant) {
  return (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<{
    id: string;
    name: string;
    profile: string;
    picture: string;
    disabled: boolean;
  }>;
}

describe('browser sign-in', () => {
  it('registers Herald once per instance, creates the channel on the callback, and reconnects the same channel on a second sign-in', async () => {
    const tenant = await createTenant(t);
    const apps = fake.apps.size;
    const started = await connect(tenant, { provider: 'mastodon', instance: fake.url });
    expect(started.statusCode).toBe(200);
    const url = new URL(started.json().url);
    expect(url.origin).toBe(fake.url);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('redirect_uri')).toBe(`${TEST_BASE_URL}/integrations/callback/mastodon`);
    expect(url.searchParams.get('scope')).toBe('read:accounts write:statuses write:media');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const page = await t.request({ method: 'GET', url: await approve(url.toString()) });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('Alice Example');
    const [channel] = await listed(tenant);
    expect(channel).toMatchObject({
      name: 'Alice Example',
      profile: `alice@${fake.host}`,
      picture: `${fake.url}/avatars/1.png`,
      disabled: false,
    });

    const again = await signIn(tenant);
    expect(again.page.statusCode).toBe(200);
    expect(again.page.body).toContain('reconnected');
    expect((await listed(tenant)).map((c) => c.id)).toEqual([channel!.id]);
    expect(fake.apps.size).toBe(apps + 1);
  });

  it('the state works once, expires, is bound to the key that asked, and a refusal on the instance connects nothing', async () => {
    const tenant = await createTenant(t);
    const { page, callback } = await signIn(tenant);
    expect(page.statusCode).toBe(200);
    const replay = await t.request({ method: 'GET', url: callback });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('already used');

    const late = await createTenant(t);
    const started = await connect(late, { provider: 'mastodon', instance: fake.url });
    const lateCallback = await approve(started.json().url);
    await t.runtime.db.updateTable('connect_states').set({ expires_at: '2000-01-01T00:00:00.000Z' }).execute();
    const expired = await t.request({ method: 'GET', url: lateCallback });
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain('expired');
    expect(await listed(late)).toEqual([]);

    const revoked = await createTenant(t);
    const startedRevoked = await connect(revoked, { provider: 'mastodon', instance: fake.url });
    const revokedCallback = await approve(startedRevoked.json().url);
    await t.services.apiKeys.revoke(revoked.keyId);
    const refused = await t.request({ method: 'GET', url: revokedCallback });
    expect(refused.statusCode).toBe(403);
    expect(await t.services.channels.list(revoked.workspaceId)).toEqual([]);

    const denied = await createTenant(t);
    const startedDenied = await connect(denied, { provider: 'mastodon', instance: fake.url });
    const state = new URL(startedDenied.json().url).searchParams.get('state')!;
    const deniedPage = await t.request({ method: 'GET', url: `/integrations/callback/mastodon?error=access_denied&state=${state}` });
    expect(deniedPage.statusCode).toBe(400);
    expect(deniedPage.body).toContain('did not grant access');
    // The page loads nothing and posts no form.
    expect(deniedPage.headers['content-security-policy']).toBe(
      "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(deniedPage.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
    const wrongProvider = await t.request({ method: 'GET', url: `/integrations/callback/telegram?code=x&state=${state}` });
    expect(wrongProvider.statusCode).toBe(400);
  });

  it("an instance that forgot Herald's application makes that sign-in fail, and the next one registers again", async () => {
    const tenant = await createTenant(t);
    const started = await connect(tenant, { provider: 'mastodon', instance: fake.url });
    const callback = await approve(started.json().url);
    fake.apps.clear();
    const failed = await t.request({ method: 'GET', url: callback });
    expect(failed.statusCode).toBe(400);
    expect(failed.body).toContain('unknown client');
    const { page } = await signIn(tenant);
    expect(page.statusCode).toBe(200);
    expect(fake.apps.size).toBe(1);
  });

  it('a plan with no channel left refuses the new channel at the callback (402), and creates nothing', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 0 });
    const { page } = await signIn(tenant);
    expect(page.statusCode).toBe(402);
    expect(page.body).toContain('plan allows 0 channels');
    expect(await listed(tenant)).toEqual([]);
  });

  it('reconnecting a channel signs in again and must come back as the same account', async () => {
    const tenant = await createTenant(t);
    await signIn(tenant);
    const [channel] = await listed(tenant);
    const restart = await t.request({
      method: 'POST',
      url: `/public/v1/integrations/${channel!.id}/reconnect`,
      key: tenant.key,
      payload: {},
    });
    expect(restart.statusCode, restart.body).toBe(200);
    fake.signedIn = '2';
    const other = await t.request({ method: 'GET', url: await approve(restart.json().url) });
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('another Mastodon account');
    fake.signedIn = '1';
    const again = await t.request({
      method: 'POST',
      url: `/public/v1/integrations/${channel!.id}/reconnect`,
      key: tenant.key,
      payload: {},
    });
    const same = await t.request({ method: 'GET', url: await approve(again.json().url) });
    expect(same.statusCode).toBe(200);
    expect((await listed(tenant)).map((c) => c.id)).toEqual([channel!.id]);
  });

  it('a key limited to a channel reconnects that channel by signing in again; an admin made an editor meanwhile connects nothing', async () => {
    const owner = await createTenant(t);
    await signIn(owner);
    const [channel] = await listed(owner);
    const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [channel!.id] });
    const reconnect = (tenant: Tenant) =>
      t.request({ method: 'POST', url: `/public/v1/integrations/${channel!.id}/reconnect`, key: tenant.key, payload: {} });
    const started = await reconnect(limited);
    expect(started.statusCode, started.body).toBe(200);
    const page = await t.request({ method: 'GET', url: await approve(started.json().url) });
    expect(page.statusCode, page.body).toBe(200);
    expect((await listed(owner)).map((c) => c.id)).toEqual([channel!.id]);

    const admin = await createTenant(t, { workspaceId: owner.workspaceId, role: 'admin' });
    const startedByAdmin = await connect(admin, { provider: 'mastodon', instance: fake.url });
    expect(startedByAdmin.statusCode, startedByAdmin.body).toBe(200);
    const callback = await approve(startedByAdmin.json().url);
    await t.services.workspaces.setRole(owner.workspaceId, admin.userId, 'editor');
    fake.signedIn = '2';
    const refused = await t.request({ method: 'GET', url: callback });
    expect(refused.statusCode).toBe(403);
    expect((await listed(owner)).map((c) => c.id)).toEqual([channel!.id]);
  });

  describe('started with an OAuth access token', () => {
    /** A sign-in started with a token (its own app, so deleting it touches no other test) and approved on the instance; the callback not yet opened. */
    async function startWithToken(scopes: string[] = ['channels:write', 'channels:read']) {
      const tenant = await createTenant(t);
      const { app } = await t.services.oauth.registerApp(tenant.userId, {
        name: 'Connector',
        redirectUris: [TEST_REDIRECT_URI],
        confidential: false,
      });
      const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes, clientId: app.clientId });
      const bearer = `Bearer ${accessToken}`;
      const started = await t.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: bearer,
        payload: { provider: 'mastodon', instance: fake.url },
      });
      expect(started.statusCode, started.body).toBe(200);
      return { tenant, bearer, clientId: app.clientId, callback: await approve(started.json().url) };
    }

    it('creates the channel on the callback, and a reconnect started with the token finishes too', async () => {
      const { tenant, bearer, callback } = await startWithToken();
      const page = await t.request({ method: 'GET', url: callback });
      expect(page.statusCode, page.body).toBe(200);
      expect(page.body).toContain('connected to Herald');
      const [channel] = await listed(tenant);
      expect(channel).toMatchObject({ profile: expect.any(String), disabled: false });
      const restart = await t.request({
        method: 'POST',
        url: `/public/v1/integrations/${channel!.id}/reconnect`,
        key: bearer,
        payload: {},
      });
      expect(restart.statusCode, restart.body).toBe(200);
      const again = await t.request({ method: 'GET', url: await approve(restart.json().url) });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.body).toContain('reconnected');
      expect((await listed(tenant)).map((c) => c.id)).toEqual([channel!.id]);
    });

    const revocations: Array<[string, (x: { tenant: Tenant; clientId: string }) => Promise<unknown>]> = [
      [
        "the user revokes the app's access",
        async ({ tenant }) => {
          const [allowed] = await t.services.oauth.allowedApps(tenant.userId);
          expect(await t.services.oauth.revokeGrant(tenant.userId, allowed!.grantId)).toBe(true);
        },
      ],
      ['the app is deleted', ({ tenant, clientId }) => t.services.oauth.deleteApp(tenant.userId, clientId)],
      ['its user is demoted to editor', ({ tenant }) => t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'editor')],
      ['its user is removed from the workspace', ({ tenant }) => t.services.workspaces.removeMember(tenant.workspaceId, tenant.userId)],
    ];
    it.each(revocations)('connects nothing once %s', async (_label, revoke) => {
      const { tenant, clientId, callback } = await startWithToken();
      await revoke({ tenant, clientId });
      const refused = await t.request({ method: 'GET', url: callback });
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.body).toContain('can no longer connect channels');
      expect(await t.services.channels.list(tenant.workspaceId)).toEqual([]);
    });

    it('a token without channels:write cannot start one', async () => {
      const tenant = await createTenant(t);
      const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes: ['channels:read'] });
      const res = await t.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: `Bearer ${accessToken}`,
        payload: { provider: 'mastodon', instance: fake.url },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json().scope).toBe('channels:write');
    });
  });

  it('a sign-in started with an API key whose owner was demoted since connects nothing', async () => {
    const tenant = await createTenant(t);
    const started = await connect(tenant, { provider: 'mastodon', instance: fake.url });
    const callback = await approve(started.json().url);
    await t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'editor');
    const refused = await t.request({ method: 'GET', url: callback });
    expect(refused.statusCode).toBe(403);
    expect(await t.services.channels.list(tenant.workspaceId)).toEqual([]);
  });

  it('a browser session without the CSRF header cannot start one', async () => {
    const tenant = await createTenant(t);
    const { token } = await t.services.sessions.create(tenant.userId);
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      headers: { cookie: `herald_session=${token}` },
      payload: { provider: 'mastodon', instance: fake.url },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'csrf_required' });
    expect(await t.runtime.db.selectFrom('connect_states').select('id').where('workspace_id', '=', tenant.workspaceId).execute()).toEqual(
      [],
    );
  });

  it('an instance that is not a Mastodon server, or a refused address, is a clear error', async () => {
    const tenant = await createTenant(t);
    const bad = await connect(tenant, { provider: 'mastodon', instance: 'http://10.0.0.1' });
    expect(bad.statusCode).toBe(400);
    const noInstance = await connect(tenant, { provider: 'mastodon' });
    expect(noInstance.statusCode).toBe(400);
    expect(noInstance.json().msg).toContain('instance');
  });
});

describe('token connection', () => {
  it("checks an access token live: a wrong one is a 400 with the instance's reason; a right one creates the channel", async () => {
    const tenant = await createTenant(t);
    const wrong = await connect(tenant, { provider: 'mastodon', instance: fake.url, accessToken: 'tok_not_a_real_token_at_all' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json()).toMatchObject({ code: 'platform_refused' });
    expect(wrong.json().msg).toContain('The access token is invalid');
    expect(await listed(tenant)).toEqual([]);
    const right = await connect(tenant, { provider: 'mastodon', instance: fake.url, accessToken: fake.tokenFor('2') });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toMatchObject({ reconnected: false, integration: { name: 'bob', profile: `bob@${fake.host}` } });
    expect(await t.services.channels.config(tenant.workspaceId, right.json().integration.id)).toMatchObject({
      instance: fake.url,
      maxCharacters: 500,
    });
  });
});

describe('publishing to Mastodon', () => {
  it('a post with an image (alt text, processed asynchronously), a content warning and two comments as a thread', async () => {
    const tenant = await createTenant(t);
    await signIn(tenant);
    const [channel] = await listed(tenant);
    const uploaded = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      ...fileBody(png(30, 20), 'kite.png', 'image/png'),
    });
    const image = uploaded.json() as { id: string; path: string };
    const polls = fake.calls.filter((c) => c.path.startsWith('/api/v1/media/')).length;
    const [created] = await createOk(t, tenant, {
      ...postBody(channel!.id, { type: 'now' }),
      posts: [
        {
          integration: { id: channel!.id },
          value: [
            {
              content: '<p>Hello <strong>fediverse</strong></p><p>See https://example.com/a/very/long/path</p>',
              image: [{ id: image.id, path: image.path }],
            },
            { content: '<p>First reply</p>' },
            { content: '<p>Second reply</p>' },
          ],
          settings: { __type: 'mastodon', spoilerText: 'Birds', visibility: 'unlisted', language: 'en', alt: { [image.id]: 'A red kite' } },
        },
      ],
    });
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post.state, post.error ?? '').toBe('PUBLISHED');
    const status = fake.find(post.releaseId!)!;
    expect(post.releaseURL).toBe(status.url);
    expect(status).toMatchObject({ spoiler_text: 'Birds', visibility: 'unlisted', language: 'en', sensitive: true, in_reply_to_id: null });
    expect(status.text).toBe('Hello fediverse\n\nSee https://example.com/a/very/long/path');
    expect(status.media_attachments).toEqual([expect.objectContaining({ type: 'image', description: 'A red kite' })]);
    expect(fake.calls.filter((c) => c.path.startsWith('/api/v1/media/')).length - polls).toBeGreaterThanOrEqual(fake.processingPolls);

    const [first, second] = post.value.slice(1).map((v) => fake.find(v.releaseId!)!);
    expect(first).toMatchObject({ text: 'First reply', in_reply_to_id: status.id, visibility: 'unlisted' });
    expect(second).toMatchObject({ text: 'Second reply', in_reply_to_id: first!.id });
    const keys = fake.calls
      .filter((c) => c.path === '/api/v1/statuses')
      .slice(-3)
      .map((c) => c.headers['idempotency-key']);
    expect(keys).toEqual([0, 1, 2].map((part) => `herald-${created!.postId}-${part}`));
  });

  it("the instance's own limit, learnt at sign-in, decides what is missing; a URL counts 23", async () => {
    fake.maxCharacters = 60;
    const tenant = await createTenant(t);
    await signIn(tenant);
    const [channel] = await listed(tenant);
    const url = `https://example.com/${'x'.repeat(200)}`;
    const [fits] = await createOk(t, tenant, postBody(channel!.id, { type: 'draft' }, [{ content: `<p>${'a'.repeat(30)} ${url}</p>` }]));
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${fits!.postId}/missing`, key: tenant.key })).json().missing).toEqual(
      [],
    );
    const [long] = await createOk(t, tenant, postBody(channel!.id, { type: 'draft' }, [{ content: `<p>${'a'.repeat(61)}</p>` }]));
    const missing = (await t.request({ method: 'GET', url: `/public/v1/posts/${long!.postId}/missing`, key: tenant.key })).json().missing;
    expect(missing).toEqual([expect.objectContaining({ field: 'value[0].content', reason: expect.stringContaining('allows 60') })]);
  });

  it('a revoked token disables the channel as needing reconnection', async () => {
    const tenant = await createTenant(t);
    await signIn(tenant);
    const [channel] = await listed(tenant);
    fake.tokens.clear();
    const [created] = await createOk(t, tenant, postBody(channel!.id, { type: 'now' }));
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).error).toContain('The access token is invalid');
    expect((await listed(tenant))[0]).toMatchObject({ disabled: true });
  });
});
