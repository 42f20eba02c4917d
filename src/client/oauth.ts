import { setTimeout as sleep } from 'node:timers/promises';
import { storeCredential, storedCredential, type Credential } from './credentials.ts';
import { ApiRefusal, NetworkFailure, UsageError } from './errors.ts';
import type { Notice } from './http.ts';
import { stdio } from './stdio.ts';

/** The instance's first-party public client for the command line. */
export const CLI_CLIENT_ID = 'herald-cli';
const REST_SCOPES = 'posts:read posts:draft posts:publish channels:read channels:write media:write analytics:read';
/** Refresh an access token this long before it expires. */
const REFRESH_MARGIN_MS = 60_000;

type TokenAnswer = { access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string };

async function post(url: string, fields: Record<string, string>): Promise<{ status: number; body: TokenAnswer & Record<string, unknown> }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields).toString(),
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new NetworkFailure(`Could not reach ${new URL(url).origin} (${reason?.code ?? reason?.message ?? (error as Error).message}).`);
  }
  const text = await response.text();
  let body: TokenAnswer & Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as typeof body) : {};
  } catch {
    body = {};
  }
  return { status: response.status, body };
}

function credentialFrom(url: string, answer: TokenAnswer, now: number, workspace?: string): Extract<Credential, { kind: 'oauth' }> {
  return {
    url,
    kind: 'oauth',
    key: answer.access_token!,
    ...(answer.refresh_token && { refreshToken: answer.refresh_token }),
    expiresAt: new Date(now + (answer.expires_in ?? 3600) * 1000).toISOString(),
    ...(workspace && { workspace }),
  };
}

/**
 * Logs in by the OAuth device authorization grant (RFC 8628): asks the instance for a code,
 * tells the person where to confirm it (signed in, in a browser), and polls until they allow or
 * deny. Returns the credential to store.
 */
export async function deviceLogin(
  url: string,
  notice: Notice,
  options: { workspace?: string } = {},
): Promise<Extract<Credential, { kind: 'oauth' }>> {
  const start = await post(`${url}/oauth/device/auth`, { client_id: CLI_CLIENT_ID, scope: REST_SCOPES, resource: `${url}/public/v1` });
  if (start.status === 404)
    throw new UsageError(`${url} does not offer OAuth login: log in with an API key instead, \`herald login --key --url ${url}\`.`);
  if (start.status !== 200 || typeof start.body.device_code !== 'string') {
    throw new ApiRefusal(start.status, {
      msg: `The instance refused to start the login: ${start.body.error_description ?? start.body.error ?? `HTTP ${start.status}`}.`,
    });
  }
  const {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: uri,
    verification_uri_complete: complete,
  } = start.body as Record<string, string>;
  let interval = Number(start.body.interval ?? 5);
  const deadline = Date.now() + Number(start.body.expires_in ?? 600) * 1000;
  notice(`To log in, open ${complete ?? uri} in a browser, sign in, check that it shows the code ${userCode}, and allow access. Waiting…`);
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() > deadline) throw new UsageError('The login code expired before it was confirmed: run `herald login` again.');
    const answer = await post(`${url}/oauth/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: deviceCode!,
      client_id: CLI_CLIENT_ID,
    });
    if (answer.status === 200 && answer.body.access_token) return credentialFrom(url, answer.body, Date.now(), options.workspace);
    switch (answer.body.error) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        interval += 5;
        continue;
      case 'access_denied':
        throw new UsageError('Access was denied in the browser: nothing was stored.');
      case 'expired_token':
        throw new UsageError('The login code expired before it was confirmed: run `herald login` again.');
      default:
        throw new ApiRefusal(answer.status, {
          msg: `The login failed: ${answer.body.error_description ?? answer.body.error ?? `HTTP ${answer.status}`}.`,
        });
    }
  }
}

/**
 * Before a command: the stored OAuth access token it will use (the profile's login to the
 * instance HERALD_URL names, or its own), about to expire, is exchanged at that login's instance
 * for a new pair (the refresh token rotates), and the new pair is stored.
 */
export async function refreshIfDue(profile: string, env: NodeJS.ProcessEnv = stdio().env): Promise<void> {
  if (env.HERALD_API_KEY) return;
  const stored = storedCredential(profile, env, env.HERALD_URL || undefined);
  if (stored?.kind !== 'oauth' || !stored.refreshToken || Date.parse(stored.expiresAt) - Date.now() > REFRESH_MARGIN_MS) return;
  const answer = await post(`${stored.url}/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: stored.refreshToken,
    client_id: CLI_CLIENT_ID,
  });
  if (answer.status !== 200 || !answer.body.access_token) {
    throw new UsageError(
      `The login for ${stored.url} has ended (${answer.body.error ?? `HTTP ${answer.status}`}): run \`herald login --url ${stored.url}\` again.`,
    );
  }
  storeCredential(profile, credentialFrom(stored.url, answer.body, Date.now(), stored.workspace), env, { own: false });
}

/** Revokes an OAuth login at the instance (RFC 7009): the refresh token ends the whole grant. */
export async function revokeLogin(credential: Extract<Credential, { kind: 'oauth' }>): Promise<boolean> {
  const token = credential.refreshToken ?? credential.key;
  const answer = await post(`${credential.url}/oauth/revoke`, { token, client_id: CLI_CLIENT_ID }).catch(() => null);
  return answer?.status === 200;
}
