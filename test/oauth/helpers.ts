import * as client from 'openid-client';
import { expect } from 'vitest';
import { freePort } from '../../bench/lib.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, unique, type TestApp } from '../helpers/app.ts';
import type { Role } from '../../src/auth/scopes.ts';
import type { OutboundClient } from '../../src/net/outbound.ts';

export type OAuthServer = { t: TestApp; origin: string; clock: ManualClock };

/**
 * The real app listening on loopback (OAuth clients speak HTTP), its clock at the real time (the
 * library's). Devices poll every second in the device flow (5 s by default), so its tests do not wait.
 */
export async function startOAuthServer(
  env: Record<string, string> = {},
  options: { outbound?: OutboundClient } = {},
): Promise<OAuthServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const clock = new ManualClock(new Date());
  const t = await createTestApp({
    env: { BASE_URL: origin, OAUTH_DEVICE_POLL_SECONDS: '1', ...env },
    clock,
    ...(options.outbound && { outbound: options.outbound }),
  });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, origin, clock };
}

/** A user who is a member of a new workspace with `role`, and a browser session cookie for them. */
export async function createPerson(t: TestApp, role: Role = 'owner', workspaceId?: string) {
  const ws = workspaceId ?? (await t.services.workspaces.create({ name: unique('workspace') })).id;
  const user = await t.services.users.create({ email: `${unique('person')}@example.test` });
  await t.services.workspaces.addMember(ws, user.id, role);
  const { token } = await t.services.sessions.create(user.id);
  return { userId: user.id, workspaceId: ws, sessionToken: token };
}

/** A cookie-keeping fetch that does not follow redirects, as a browser would without the clicks. */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  constructor(sessionToken?: string) {
    if (sessionToken) this.cookies.set('herald_session', sessionToken);
  }
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

export async function registerClient(origin: string, metadata: Partial<client.ClientMetadata> = {}) {
  return client.dynamicClientRegistration(
    new URL(origin),
    {
      client_name: 'Test app',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      ...metadata,
    },
    client.None(),
    { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
  );
}

/**
 * Runs the authorization code flow with PKCE through the consent page (answered by form posts
 * here; the browser test clicks it) and returns the callback URL the app receives.
 */
export async function authorize(
  config: client.Configuration,
  jar: CookieJar,
  options: { scope: string; resource?: string; workspaceId: string; decision?: 'allow' | 'deny'; redirectUri?: string },
) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const params: Record<string, string> = {
    redirect_uri: options.redirectUri ?? 'http://127.0.0.1:9/callback',
    scope: options.scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  };
  if (options.resource) params.resource = options.resource;
  const start = await jar.fetch(client.buildAuthorizationUrl(config, params).href);
  expect(start.status, await start.clone().text()).toBe(303);
  const interaction = new URL(start.headers.get('location')!, config.serverMetadata().issuer).href;
  const page = await jar.fetch(interaction);
  const body = await page.text();
  expect(page.status, body).toBe(200);
  const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(body)![1]!;
  const answer = await jar.fetch(interaction, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, workspace: options.workspaceId, decision: options.decision ?? 'allow' }).toString(),
  });
  expect(answer.status, await answer.clone().text()).toBe(303);
  const resume = await jar.fetch(new URL(answer.headers.get('location')!, config.serverMetadata().issuer).href);
  expect(resume.status, await resume.clone().text()).toBe(303);
  if (!/^https?:/.test(resume.headers.get('location') ?? ''))
    throw new Error(`The authorization went on to ${resume.headers.get('location')}, not back to the app.`);
  return { callback: new URL(resume.headers.get('location')!), verifier, state, consentHtml: body };
}

export async function codeFlow(config: client.Configuration, jar: CookieJar, options: Parameters<typeof authorize>[2]) {
  const { callback, verifier, state } = await authorize(config, jar, options);
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
}
