import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.ts';

/** One public client per app, registered dynamically (RFC 7591) on first use. */
const clients = new WeakMap<TestApp, Promise<string>>();
/** The redirect URI the helper's flows use; an app registered for them must list it. */
export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/callback';
const REDIRECT = TEST_REDIRECT_URI;

function cookiesOf(res: LightMyRequestResponse, jar: Map<string, string>) {
  for (const c of res.cookies as Array<{ name: string; value: string }>) jar.set(c.name, c.value);
}

/**
 * An OAuth access token for `userId` acting in `workspaceId`, obtained through the real flow
 * over the app's HTTP stack: authorization request with PKCE, the consent page (signed in,
 * workspace picked, allowed), and the token endpoint. `clientId` names a public app of the test's own
 * (registered with TEST_REDIRECT_URI); by default one app registered dynamically is shared.
 */
export async function issueOAuthToken(
  t: TestApp,
  input: { userId: string; workspaceId: string; scopes: readonly string[]; resource?: 'rest' | 'mcp'; clientId?: string },
): Promise<{ accessToken: string; refreshToken?: string; clientId: string }> {
  const base = t.config.baseUrl;
  let clientId = input.clientId !== undefined ? Promise.resolve(input.clientId) : clients.get(t);
  if (!clientId) {
    clientId = t
      .request({
        method: 'POST',
        url: '/oauth/register',
        payload: {
          client_name: 'Matrix app',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
        },
      })
      .then((res) => {
        if (res.statusCode !== 201) throw new Error(`Registration failed: ${res.statusCode} ${res.body}`);
        return (res.json() as { client_id: string }).client_id;
      });
    clients.set(t, clientId);
  }
  const id = await clientId;
  const jar = new Map<string, string>();
  jar.set('herald_session', (await t.services.sessions.create(input.userId)).token);
  const cookie = () => ({ cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') });
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: id,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: input.scopes.join(' '),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: input.resource === 'mcp' ? `${base}/mcp-oauth` : `${base}/public/v1`,
    state: 'matrix',
  });
  const step = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>) => {
    const path = url.startsWith(base) ? url.slice(base.length) : url;
    const res = await t.request({
      method,
      url: path,
      headers: { ...cookie(), ...(form && { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(form && { payload: new URLSearchParams(form).toString() }),
    });
    cookiesOf(res, jar);
    return res;
  };
  const start = await step('GET', `/oauth/authorize?${query}`);
  const interaction = start.headers.location as string;
  const page = await step('GET', interaction);
  const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.body)?.[1];
  if (!csrf) throw new Error(`No consent page: ${page.statusCode} ${page.body.slice(0, 300)}`);
  const answer = await step('POST', interaction, { _csrf: csrf, workspace: input.workspaceId, decision: 'allow' });
  const resume = await step('GET', answer.headers.location as string);
  const code = new URL(resume.headers.location as string).searchParams.get('code');
  if (!code) throw new Error(`No code: ${resume.headers.location}`);
  const token = await t.request({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: id,
      code_verifier: verifier,
    }).toString(),
  });
  if (token.statusCode !== 200) throw new Error(`Token request failed: ${token.statusCode} ${token.body}`);
  const body = token.json() as { access_token: string; refresh_token?: string };
  return { accessToken: body.access_token, ...(body.refresh_token && { refreshToken: body.refresh_token }), clientId: id };
}
