import { JSON_API_HEADERS, type ErrorReader, type Platform } from './platform-call.ts';
import { ProviderError, type Provider, type ProviderContext } from './provider.ts';

/** An OAuth platform's JSON API: Herald's user agent, a minute per call, and the platform's own error reading. */
export function oauthPlatform(name: string, readError: ErrorReader): Platform {
  return { name, headers: JSON_API_HEADERS, timeoutMs: 60_000, readError };
}

/** When a token given `expiresIn` seconds from `now` expires (ISO 8601), or undefined. */
export function expiryFrom(now: Date, expiresIn: unknown): string | undefined {
  return typeof expiresIn === 'number' && expiresIn > 0 ? new Date(now.getTime() + expiresIn * 1000).toISOString() : undefined;
}

/** True when a token expiring at `expiresAt` should be renewed now (within `marginMs`). */
export function expiresSoon(expiresAt: unknown, now: Date, marginMs: number): boolean {
  if (typeof expiresAt !== 'string') return false;
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at - now.getTime() <= marginMs;
}

/** Sleeps between polls of media a platform is processing, giving up when the publish is cancelled. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  const { setTimeout: sleep } = await import('node:timers/promises');
  await sleep(ms, undefined, signal ? { signal } : {});
}

/** Waits `ms` between polls: on the engine's clock when the context has one (`ctx.wait`), otherwise a timer. */
export async function waitFor(ctx: { wait?: ((ms: number) => Promise<void>) | undefined; signal?: AbortSignal | undefined }, ms: number) {
  if (ctx.wait) return ctx.wait(ms);
  return pause(ms, ctx.signal);
}

/** A string field of a JSON answer, or undefined. */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Tokens a platform's token endpoint issued on a refresh. */
export type RefreshedTokens = { accessToken: string; refreshToken?: string | undefined; expiresAt?: string | undefined };

/** The tokens in an OAuth token endpoint's answer (RFC 6749 §5.1); no access token is a refusal. */
export function readTokens(platform: string, json: unknown, now: Date): RefreshedTokens & { accessToken: string } {
  const accessToken = field(json, 'access_token');
  if (typeof accessToken !== 'string') throw new ProviderError('rejected', `${platform} did not issue an access token.`);
  const refreshToken = field(json, 'refresh_token');
  return {
    accessToken,
    refreshToken: typeof refreshToken === 'string' ? refreshToken : undefined,
    expiresAt: expiryFrom(now, field(json, 'expires_in')),
  };
}

/** Tokens as a channel's configuration keeps them: the access token, and the refresh token and expiry when the platform gave them. */
export function storedTokens(tokens: RefreshedTokens): RefreshedTokens {
  return {
    accessToken: tokens.accessToken,
    ...(tokens.refreshToken && { refreshToken: tokens.refreshToken }),
    ...(tokens.expiresAt && { expiresAt: tokens.expiresAt }),
  };
}

/** The token endpoint's refusal of a grant (RFC 6749 §5.2: 400 `invalid_grant`, 401 `invalid_client`). */
export const grantRefused = (error: ProviderError): boolean => error.options.status === 400 || error.options.status === 401;

/**
 * What a failed renewal throws: a refusal `isRefused` recognises (each platform says it its own
 * way) means the grant is gone, an `auth` failure, so the channel is reconnected; any other
 * failure as it was (a timeout, a 5xx: the renewal is tried again).
 */
export function refusedRenewal(platform: string, error: unknown, isRefused: (error: ProviderError) => boolean): unknown {
  if (!(error instanceof ProviderError) || !isRefused(error)) return error;
  return new ProviderError('auth', `${platform} refused to renew the access token (${error.message}); connect the channel again.`, {
    status: error.options.status,
  });
}

/**
 * Renews a channel's access token with its refresh token and returns the configuration to store:
 * the new tokens over the old ones. No refresh token, or a 400 or 401 from the token endpoint,
 * means the grant is gone: an `auth` failure, so the channel is reconnected. (Herald runs one
 * renewal at a time per channel across its processes: see CredentialRenewals.)
 */
export async function renewWithRefreshToken(
  platform: string,
  config: Record<string, unknown> & { refreshToken?: string | undefined },
  request: (refreshToken: string) => Promise<RefreshedTokens>,
  noRefreshToken = `The ${platform} access token expired and there is no refresh token; connect the channel again.`,
): Promise<Record<string, unknown>> {
  const { refreshToken } = config;
  if (!refreshToken) throw new ProviderError('auth', noRefreshToken);
  try {
    const tokens = await request(refreshToken);
    return {
      ...config,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? refreshToken,
      ...(tokens.expiresAt && { expiresAt: tokens.expiresAt }),
    };
  } catch (error) {
    throw refusedRenewal(platform, error, grantRefused);
  }
}

/**
 * The `renewal` of a platform whose tokens are renewed with a refresh token (RFC 6749 §6): due
 * `marginMs` before the access token expires, renewed through the platform's token endpoint
 * (`tokenRequest` with the `refresh_token` grant) as `renewWithRefreshToken` says.
 */
export function refreshTokenRenewal(
  platform: string,
  options: {
    marginMs: number | ((config: Record<string, unknown>) => number);
    read: (config: Record<string, unknown>) => Record<string, unknown> & { refreshToken?: string | undefined };
    tokenRequest: (ctx: ProviderContext, form: Record<string, string>, now: Date) => Promise<RefreshedTokens>;
    noRefreshToken?: string;
  },
): NonNullable<Provider['renewal']> {
  const { marginMs, read, tokenRequest, noRefreshToken } = options;
  return {
    due: (config, now) => expiresSoon(config.expiresAt, now, typeof marginMs === 'number' ? marginMs : marginMs(config)),
    renew: (ctx, now) =>
      renewWithRefreshToken(
        platform,
        read(ctx.config),
        (refreshToken) => tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: refreshToken }, now),
        noRefreshToken,
      ),
  };
}
