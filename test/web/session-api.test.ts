import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_WEBHOOK_SECRET, createTenant, createTestApp, unique, type TestApp } from '../helpers/app.ts';
import { signedInOwner, signInWithCode } from '../helpers/account-pages.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import { postBody } from '../helpers/posts.ts';
import { csrfIn, type WebAgent } from '../helpers/web-agent.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The REST API with the browser session: the cookie of the sign-in, with the CSRF header on
 * every request, acts as the member in the session's workspace within their role's scopes.
 */
let mail: Awaited<ReturnType<typeof startMailServer>>;
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  mail = await startMailServer();
  receiver = await startWebhookReceiver();
  t = await createTestApp({
    env: { SMTP_URL: mail.url, OUTBOUND_ALLOW_LOOPBACK: 'true', RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /account/sign-in': 10_000 }) },
  });
});

afterAll(async () => {
  await t?.close();
  await mail?.close();
});

/** An API call made as a browser app would: the session cookie, and the CSRF header unless left out. */
async function call(agent: WebAgent, csrf: string | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  return t.request({
    method,
    url: `/public/v1${url}`,
    headers: {
      cookie: [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      ...(csrf !== null && { 'x-herald-csrf': csrf }),
    },
    ...(payload !== undefined && { payload: payload as Record<string, unknown> }),
  });
}

async function sessionOf(agent: WebAgent): Promise<string> {
  const page = await agent.get('/account/keys');
  expect(page.statusCode).toBe(200);
  return csrfIn(page.body);
}

describe('the REST API with the browser session', () => {
  it('acts as the signed-in owner in the current workspace, with the CSRF header on every request', async () => {
    const { agent, workspaceId } = await signedInOwner(t, mail);
    const csrf = await sessionOf(agent);

    const channel = await call(agent, csrf, 'POST', '/integrations/connect', { provider: 'webhook', name: 'Hook', url: receiver.url });
    expect(channel.statusCode, channel.body).toBe(200);
    const channelId = (channel.json() as { integration: { id: string } }).integration.id;

    const created = await call(agent, csrf, 'POST', '/posts', postBody(channelId, { date: '2027-01-10T10:00:00.000Z' }));
    expect(created.statusCode, created.body).toBe(200);
    const postId = (created.json() as Array<{ postId: string }>)[0]!.postId;

    const listed = await call(
      agent,
      csrf,
      'GET',
      '/posts?startDate=2027-01-01T00:00:00.000Z&endDate=2027-01-31T00:00:00.000Z&fields=id,publishDate,state',
    );
    expect(listed.statusCode, listed.body).toBe(200);
    expect((listed.json() as { posts: Array<{ id: string }> }).posts.map((p) => p.id)).toEqual([postId]);

    const moved = await call(agent, csrf, 'PATCH', `/posts/${postId}`, { date: '2027-01-12T09:30:00.000Z' });
    expect(moved.statusCode, moved.body).toBe(200);
    const read = await call(agent, csrf, 'GET', `/posts/${postId}`);
    expect((read.json() as { publishDate: string }).publishDate).toBe('2027-01-12T09:30:00.000Z');

    const workspaces = await call(agent, csrf, 'GET', '/workspaces');
    expect(workspaces.statusCode, workspaces.body).toBe(200);
    expect(JSON.stringify(workspaces.json())).toContain(workspaceId);

    // The web app shares upload links too: one made with the session works while its member may upload here.
    const link = await call(agent, csrf, 'POST', '/upload-link', {});
    expect(link.statusCode, link.body).toBe(201);
    const { url } = link.json() as { url: string };
    expect((await t.request({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(200);
    await t.runtime.db.updateTable('memberships').set({ role: 'viewer' }).where('workspace_id', '=', workspaceId).execute();
    expect((await t.request({ method: 'GET', url: new URL(url).pathname })).statusCode).toBe(410);
  });

  it('refuses a cookie-authenticated request without the CSRF header, or with a wrong one: reads too', async () => {
    const { agent } = await signedInOwner(t, mail);
    const csrf = await sessionOf(agent);
    for (const sent of [null, '0'.repeat(64), 'not-a-token', csrf.replace(/^./, (c) => (c === 'a' ? 'b' : 'a'))]) {
      for (const [method, url, payload] of [
        ['GET', '/integrations', undefined],
        ['POST', '/posts', postBody('nope')],
      ] as const) {
        const res = await call(agent, sent, method, url, payload);
        expect(res.statusCode, `${method} ${url} with ${String(sent)}`).toBe(403);
        expect(res.json()).toMatchObject({ code: 'csrf_required' });
        expect(res.json().msg).toMatch(/X-Herald-CSRF/);
      }
    }
    // A page's token of another session is no good either.
    const other = await signedInOwner(t, mail);
    expect((await call(agent, await sessionOf(other.agent), 'GET', '/integrations')).statusCode).toBe(403);
  });

  it('an expired or signed-out session is a 401; no cookie and no key is a 401 as before', async () => {
    const { agent } = await signedInOwner(t, mail);
    const csrf = await sessionOf(agent);
    expect((await call(agent, csrf, 'GET', '/integrations')).statusCode).toBe(200);
    const page = await agent.get('/account/keys');
    const out = await agent.post('/account/sign-out', {}, { from: page.body });
    expect(out.statusCode).toBe(303);
    const res = await t.request({
      method: 'GET',
      url: '/public/v1/integrations',
      headers: { cookie: `herald_session=${'x'.repeat(43)}`, 'x-herald-csrf': csrf },
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'invalid_session' });
    expect((await t.request({ method: 'GET', url: '/public/v1/integrations' })).statusCode).toBe(401);
  });

  it("a viewer reads but cannot write (403 missing_scope); another workspace's post is a 404", async () => {
    const owner = await createTenant(t);
    const channel = await t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
    });
    const created = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: owner.key,
      payload: postBody(channel.id, { date: '2027-02-01T10:00:00.000Z' }) as never,
    });
    expect(created.statusCode, created.body).toBe(200);
    const postId = (created.json() as Array<{ postId: string }>)[0]!.postId;

    const email = `${unique('viewer')}@example.test`;
    const user = await t.services.users.create({ email });
    await t.services.workspaces.addMember(owner.workspaceId, user.id, 'viewer');
    const viewer = await signInWithCode(t, mail, email);
    const csrf = await sessionOf(viewer);
    const read = await call(viewer, csrf, 'GET', `/posts/${postId}`);
    expect(read.statusCode, read.body).toBe(200);
    const moved = await call(viewer, csrf, 'PATCH', `/posts/${postId}`, { date: '2027-02-02T10:00:00.000Z' });
    expect(moved.statusCode).toBe(403);
    expect(moved.json()).toMatchObject({ code: 'missing_scope', role: 'viewer' });
    expect((await call(viewer, csrf, 'POST', '/posts', postBody(channel.id))).statusCode).toBe(403);

    // Someone else's workspace: its post is not found, exactly like a missing one.
    const stranger = await signedInOwner(t, mail);
    const strangerCsrf = await sessionOf(stranger.agent);
    const foreign = await call(stranger.agent, strangerCsrf, 'GET', `/posts/${postId}`);
    expect(foreign.statusCode).toBe(404);
    expect((await call(stranger.agent, strangerCsrf, 'PATCH', `/posts/${postId}`, { date: '2027-02-02T10:00:00.000Z' })).statusCode).toBe(
      404,
    );
  });

  it('a request with an API key ignores the session cookie: the key decides', async () => {
    const { agent } = await signedInOwner(t, mail);
    const tenant = await createTenant(t, { role: 'viewer' });
    const cookie = [...agent.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key, headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const write = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      headers: { cookie },
      payload: postBody('x') as never,
    });
    expect(write.statusCode).toBe(403);
    // A wrong key is refused even with a good session beside it.
    expect((await t.request({ method: 'GET', url: '/public/v1/integrations', key: 'svc_bad', headers: { cookie } })).statusCode).toBe(401);
  });
});
