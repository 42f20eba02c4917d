import { JSON_API_HEADERS, type ErrorReader, type Platform } from './platform-call.ts';
import { ProviderError } from './provider.ts';

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

/** Waits between polls on the engine's clock when the context has one (`ctx.sleep`), else a plain timer. */
export function wait(
  ctx: { sleep?: ((ms: number) => Promise<void>) | undefined; signal?: AbortSignal | undefined },
  ms: number,
): Promise<void> {
  return ctx.sleep ? ctx.sleep(ms) : pause(ms, ctx.signal);
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

/**
 * Renews a channel's access token with its refresh token and returns the configuration to store:
 * the new tokens over the old ones. A 400 or 401 from the token endpoint means the grant is gone:
 * an `auth` failure, so the channel is reconnected. (Herald runs one renewal at a time per
 * channel across its processes: see CredentialRenewals.)
 */
export async function renewWithRefreshToken(
  platform: string,
  config: Record<string, unknown> & { refreshToken: string },
  request: (refreshToken: string) => Promise<RefreshedTokens>,
): Promise<Record<string, unknown>> {
  const { refreshToken } = config;
  try {
    const tokens = await request(refreshToken);
    return {
      ...config,
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? refreshToken,
      ...(tokens.expiresAt && { expiresAt: tokens.expiresAt }),
    };
  } catch (error) {
    if (error instanceof ProviderError && (error.options.status === 400 || error.options.status === 401)) {
      throw new ProviderError('auth', `${platform} refused to renew the access token (${error.message}); connect the channel again.`, {
        status: error.options.status,
      });
    }
    throw error;
  }
}
