import * as client from 'openid-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { codeFlow, CookieJar, createPerson, registerClient, startOAuthServer, type OAuthServer } from './helpers.ts';

let s: OAuthServer;
beforeAll(async () => {
  s = await startOAuthServer();
});

const insecure = { execute: [client.allowInsecureRequests], algorithm: 'oauth2' as const };
const restStatus = async (token: string) =>
  (await fetch(`${s.origin}/public/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status;
/** The OAuth error code of a refusal, whether openid-client reports it plainly or as a WWW-Authenticate challenge. */
async function oauthError(pending: Promise<unknown>): Promise<string> {
  try {
    await pending;
  } catch (error) {
    const e = error as { error?: string; cause?: Array<{ parameters?: { error?: string } }> };
    return e.error ?? e.cause?.[0]?.parameters?.error ?? String(error);
  }
  throw new Error('The request was accepted.');
}
const csrf = (html: string) => /name="_csrf" value="([0-9a-f]{64})"/.exec(html)![1]!;

async function postForm(jar: CookieJar, path: string, fields: Record<string, string>) {
  const page = await (await jar.fetch(`${s.origin}/account/developer-apps`)).text();
  const res = await jar.fetch(`${s.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf(page), ...fields }).toString(),
  });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

describe('dynamic client registration (RFC 7591)', () => {
  it('registers public clients with loopback or https redirect URIs only', async () => {
    const ok = await registerClient(s.origin, { redirect_uris: ['http://127.0.0.1:8123/cb', 'https://app.example.test/cb'] });
    expect(ok.clientMetadata().client_id).toMatch(/^app_/);
    expect(await oauthError(registerClient(s.origin, { redirect_uris: ['http://app.example.test/cb'] }))).toBe('invalid_client_metadata');
    expect(await oauthError(registerClient(s.origin, { token_endpoint_auth_method: 'client_secret_basic' }))).toBe(
      'invalid_client_metadata',
    );
    expect(await oauthError(registerClient(s.origin, { herald_owner: 'someone' } as never))).toBe('invalid_client_metadata');
  });
});

describe('apps registered in the developer settings', () => {
  it('a confidential app: secret shown once and stored hashed, rotate, delete ends its tokens', async () => {
    const person = await createPerson(s.t);
    const jar = new CookieJar(person.sessionToken);
    const made = await postForm(jar, '/account/developer-apps', {
      name: 'Reporting server',
      redirect_uris: 'http://127.0.0.1:9/callback',
      kind: 'confidential',
    });
    expect(made.status).toBe(200);
    const clientId = /<code id="new-client-id">([^<]+)<\/code>/.exec(made.html)![1]!;
    const secret = /<code id="new-secret">([^<]+)<\/code>/.exec(made.html)![1]!;
    expect(secret).toMatch(/^svcs_/);
    const rows = await s.t.runtime.db.selectFrom('oauth_records').select('payload').where('client_id', '=', clientId).execute();
    expect(rows.some((r) => r.payload.includes(secret))).toBe(false);
    expect(await (await jar.fetch(`${s.origin}/account/developer-apps`)).text()).not.toContain(secret);

    const config = await client.discovery(new URL(s.origin), clientId, undefined, client.ClientSecretBasic(secret), insecure);
    const tokens = await codeFlow(config, new CookieJar(person.sessionToken), { scope: 'posts:read', workspaceId: person.workspaceId });
    expect(await restStatus(tokens.access_token)).toBe(200);

    const askRotate = await postForm(jar, `/account/developer-apps/${clientId}/rotate`, {});
    expect(askRotate.html).toContain('id="confirm-title"');
    expect(askRotate.html).not.toContain('id="new-secret"');
    const rotated = await postForm(jar, `/account/developer-apps/${clientId}/rotate`, { confirm: 'yes' });
    const newSecret = /<code id="new-secret">([^<]+)<\/code>/.exec(rotated.html)![1]!;
    expect(await oauthError(client.refreshTokenGrant(config, tokens.refresh_token!))).toBe('invalid_client');
    const fresh = await client.discovery(new URL(s.origin), clientId, undefined, client.ClientSecretBasic(newSecret), insecure);
    const refreshed = await client.refreshTokenGrant(fresh, tokens.refresh_token!);
    expect(await restStatus(refreshed.access_token)).toBe(200);

    // Another user cannot delete it.
    const stranger = new CookieJar((await createPerson(s.t)).sessionToken);
    expect((await postForm(stranger, `/account/developer-apps/${clientId}/delete`, {})).status).toBe(404);
    expect((await postForm(stranger, `/account/developer-apps/${clientId}/delete`, { confirm: 'yes' })).status).toBe(404);

    const askDelete = await postForm(jar, `/account/developer-apps/${clientId}/delete`, {});
    expect(askDelete.status).toBe(200);
    expect(askDelete.html).toContain('id="confirm-title"');
    expect(await restStatus(refreshed.access_token)).toBe(200);
    const deleted = await postForm(jar, `/account/developer-apps/${clientId}/delete`, { confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect(await restStatus(refreshed.access_token)).toBe(401);
    expect(await oauthError(client.refreshTokenGrant(fresh, refreshed.refresh_token!))).toBe('invalid_client');
    expect((await s.t.services.oauth.allowedApps(person.userId)).length).toBe(0);
  });

  it("refuses a name reserved for Herald's own apps, with the form kept", async () => {
    const person = await createPerson(s.t);
    const res = await postForm(new CookieJar(person.sessionToken), '/account/developer-apps', {
      name: 'Herald Command-Line',
      redirect_uris: 'http://127.0.0.1:9/callback',
      kind: 'public',
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain('reserved for Herald&#39;s own apps');
    expect((await s.t.services.oauth.ownApps(person.userId)).length).toBe(0);
  });

  it('refuses an http redirect URI on another host, with the form kept', async () => {
    const person = await createPerson(s.t);
    const res = await postForm(new CookieJar(person.sessionToken), '/account/developer-apps', {
      name: 'Bad',
      redirect_uris: 'http://app.example.test/cb',
      kind: 'public',
    });
    expect(res.status).toBe(400);
    expect(res.html).toContain('cannot be a redirect URI');
    expect(res.html).toContain('value="Bad"');
  });
});
