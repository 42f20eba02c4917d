import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectRateLimitHeaders } from '../helpers/auth-matrix.ts';
import { createTestApp } from '../helpers/app.ts';
import { authorize, codeFlow, CookieJar, createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});

const rest = (token: string, path = '/public/v1/workspaces') =>
  fetch(`${s.origin}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('metadata', () => {
  it('publishes RFC 8414 metadata naming the issuer and S256 only', async () => {
    const res = await fetch(`${s.origin}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta.issuer).toBe(s.origin);
    expect(meta.token_endpoint).toBe(`${s.origin}/oauth/token`);
    expect(meta.authorization_endpoint).toBe(`${s.origin}/oauth/authorize`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.registration_endpoint).toBe(`${s.origin}/oauth/register`);
    expect(meta.revocation_endpoint).toBe(`${s.origin}/oauth/revoke`);
    expect(meta.device_authorization_endpoint).toBe(`${s.origin}/oauth/device/auth`);
    expect(meta.end_session_endpoint).toBeUndefined();
  });

  it('links the resources to the issuer (RFC 9728) and /status carries the URLs', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp-oauth']) {
      const meta = (await (await fetch(`${s.origin}${path}`)).json()) as { authorization_servers: string[] };
      expect(meta.authorization_servers).toEqual([s.origin]);
    }
    const status = (await (await fetch(`${s.origin}/public/v1/status`)).json()) as { authentication: { oauth2: Record<string, string> } };
    expect(status.authentication.oauth2).toMatchObject({
      resource: `${s.origin}/public/v1`,
      issuer: s.origin,
      authorizationServerMetadata: `${s.origin}/.well-known/oauth-authorization-server`,
      mcpResource: `${s.origin}/mcp-oauth`,
    });
  });
});

describe("the authorization server's replies", () => {
  it('carry the rate-limit and Link headers of every API reply', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const replies = [
      await s.t.request({ method: 'GET', url: '/.well-known/oauth-authorization-server' }),
      await s.t.request({ method: 'GET', url: '/.well-known/openid-configuration' }),
      await s.t.request({ method: 'GET', url: '/oauth/jwks' }),
      await s.t.request({
        method: 'POST',
        url: '/oauth/token',
        headers: form,
        payload: 'grant_type=authorization_code&code=nope&client_id=nobody',
      }),
      await s.t.request({ method: 'POST', url: '/oauth/register', payload: { redirect_uris: ['ftp://example.test'] } }),
    ];
    expect(replies.map((r) => r.statusCode)).toEqual([200, 200, 200, 401, 400]);
    for (const res of replies) expectRateLimitHeaders(res, s.origin);
    const first = await s.t.request({ method: 'POST', url: '/oauth/revoke', headers: form, payload: 'token=nope' });
    const second = await s.t.request({ method: 'POST', url: '/oauth/revoke', headers: form, payload: 'token=nope' });
    expect(Number(second.headers['ratelimit-remaining'])).toBe(Number(first.headers['ratelimit-remaining']) - 1);
  });

  it('are counted per client address: past the quota, 429 with Retry-After', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_ROUTES: JSON.stringify({ 'POST /oauth/*': 2 }) } });
    const token = () =>
      limited.request({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=refresh_token&refresh_token=nope',
      });
    expect((await token()).statusCode).not.toBe(429);
    expect((await token()).headers['ratelimit-remaining']).toBe('0');
    const third = await token();
    expect(third.statusCode).toBe(429);
    expect(third.headers['retry-after']).toMatch(/^\d+$/);
    expect(third.json().code).toBe('rate_limited');
  });
});

describe('the REST API as a protected resource', () => {
  it('answers 401 with a WWW-Authenticate challenge pointing at its metadata (RFC 9728)', async () => {
    const none = await fetch(`${s.origin}/public/v1/workspaces`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${s.origin}/.well-known/oauth-protected-resource"`);
    const bad = await rest('svco_not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${s.origin}/.well-known/oauth-protected-resource", error="invalid_token"`,
    );
    // An API key is not a bearer credential: its refusal names no OAuth challenge.
    const key = await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `svc_${'A'.repeat(16)}_${'b'.repeat(40)}` } });
    expect(key.status).toBe(401);
    expect(key.headers.get('www-authenticate')).toBeNull();
  });
});

describe('authorization code with PKCE', () => {
  it('issues svco_ tokens bound to the REST API that act in the chosen workspace', async () => {
    const person = await createPerson(s.t, 'editor');
    const config = await registerClient(s.origin);
    const jar = new CookieJar(person.sessionToken);
    const { callback, verifier, state, consentHtml } = await authorize(config, jar, {
      scope: 'posts:read channels:read offline_access',
      resource: `${s.origin}/public/v1`,
      workspaceId: person.workspaceId,
    });
    expect(consentHtml).toContain('Test app');
    expect(consentHtml).toContain('Read your posts and the calendar');
    expect(callback.searchParams.get('iss')).toBe(s.origin);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.access_token).toMatch(/^svco_[A-Za-z0-9_-]{40,}$/);
    expect(tokens.refresh_token).toMatch(/^svcr_/);
    expect(tokens.expires_in).toBeGreaterThan(3500);
    expect(tokens.expires_in).toBeLessThanOrEqual(3600);
    const res = await rest(tokens.access_token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data?: Array<{ id: string }> } | Array<{ id: string }>;
    expect(JSON.stringify(body)).toContain(person.workspaceId);
    // Scopes not granted are refused.
    const post = await fetch(`${s.origin}/public/v1/posts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(403);
    // Stored hashed: the token is nowhere in the database.
    const rows = await s.t.runtime.db.selectFrom('oauth_records').select('payload').execute();
    expect(rows.some((r) => r.payload.includes(tokens.access_token) || r.payload.includes(tokens.refresh_token!))).toBe(false);
  });

  it("the consent page shows a registered app's id and registration date, not only the name it chose", async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin, { client_name: 'Command line' });
    const { client_id: clientId, client_id_issued_at: issuedAt } = config.clientMetadata();
    const { consentHtml } = await authorize(config, new CookieJar(person.sessionToken), {
      scope: 'posts:read',
      workspaceId: person.workspaceId,
      decision: 'deny',
    });
    expect(consentHtml).toContain(`Not one of Herald’s own apps: app id <code>${clientId}</code>`);
    expect(consentHtml).toContain(`datetime="${new Date(Number(issuedAt) * 1000).toISOString()}"`);
    expect(consentHtml).not.toContain('id="first-party"');
  });

  it('binds tokens to one resource: an MCP token is refused on REST and a REST token on MCP', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    const mcp = await codeFlow(config, new CookieJar(person.sessionToken), {
      scope: 'mcp:read',
      resource: `${s.origin}/mcp-oauth`,
      workspaceId: person.workspaceId,
    });
    const onRest = await rest(mcp.access_token);
    expect(onRest.status).toBe(401);
    expect(((await onRest.json()) as { msg: string }).msg).toMatch(/issued for the MCP server/);
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const mcpCall = (token: string) =>
      fetch(`${s.origin}/mcp-oauth`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(init),
      });
    expect((await mcpCall(mcp.access_token)).status).toBe(200);
    const restToken = await codeFlow(config, new CookieJar(person.sessionToken), {
      scope: 'posts:read',
      resource: `${s.origin}/public/v1`,
      workspaceId: person.workspaceId,
    });
    const refused = await mcpCall(restToken.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/resource_metadata=".*\/\.well-known\/oauth-protected-resource\/mcp-oauth"/);
  });

  it('refuses an authorization request without PKCE, and with the plain method', async () => {
    const config = await registerClient(s.origin);
    const base = { redirect_uri: 'http://127.0.0.1:9/callback', scope: 'posts:read', state: 'x' };
    const none = await fetch(client.buildAuthorizationUrl(config, base).href, { redirect: 'manual' });
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const plain = await fetch(
      client.buildAuthorizationUrl(config, { ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }).href,
      { redirect: 'manual' },
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('sends the app back with access_denied when the user denies', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    const { callback } = await authorize(config, new CookieJar(person.sessionToken), {
      scope: 'posts:read',
      workspaceId: person.workspaceId,
      decision: 'deny',
    });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('iss')).toBe(s.origin);
  });

  it("narrows a token to the user's current role, and a removed user's token does nothing", async () => {
    const person = await createPerson(s.t, 'owner');
    const config = await registerClient(s.origin);
    const tokens = await codeFlow(config, new CookieJar(person.sessionToken), {
      scope: 'posts:read posts:draft',
      workspaceId: person.workspaceId,
    });
    // The scope check comes before the body's: an empty body is a 400 when the scope is there, a 403 when not.
    const create = () =>
      fetch(`${s.origin}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    expect((await rest(tokens.access_token, '/public/v1/integrations')).status).toBe(403); // channels:read was not asked for
    expect((await create()).status).toBe(400);
    // A second owner, so the first can be demoted.
    const other = await createPerson(s.t, 'owner');
    await s.t.services.workspaces.addMember(person.workspaceId, other.userId, 'owner');
    await s.t.services.workspaces.setRole(person.workspaceId, person.userId, 'viewer');
    const demoted = await create();
    expect(demoted.status).toBe(403);
    expect(((await demoted.json()) as { msg: string }).msg).toMatch(/role "viewer"/);
    await s.t.runtime.db.deleteFrom('memberships').where('user_id', '=', person.userId).execute();
    const removed = await rest(tokens.access_token, '/public/v1/integrations');
    expect(removed.status).toBe(403);
    expect(((await removed.json()) as { code: string }).code).toBe('no_workspace');
  });

  it('refuses an expired token', async () => {
    const person = await createPerson(s.t);
    const config = await registerClient(s.origin);
    const tokens = await codeFlow(config, new CookieJar(person.sessionToken), { scope: 'posts:read', workspaceId: person.workspaceId });
    expect((await rest(tokens.access_token)).status).toBe(200);
    s.clock.set(new Date(Date.now() + 3601_000));
    try {
      const res = await rest(tokens.access_token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_token');
    } finally {
      s.clock.set(new Date());
    }
  });
});
