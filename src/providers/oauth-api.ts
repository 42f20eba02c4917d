import { callPlatform, retryAfterMs, type PlatformAnswer } from './http-call.ts';
import { ProviderError, type ProviderContext, type ProviderFailureKind } from './provider.ts';

export type ApiCall = {
  method?: 'GET' | 'POST' | 'PUT';
  token?: string | undefined;
  headers?: Record<string, string>;
  /** A JSON body, form fields (application/x-www-form-urlencoded), or raw bytes. */
  json?: unknown;
  form?: Record<string, string>;
  body?: Uint8Array;
  contentType?: string;
  /** Whether a lost answer may mean the call was applied (a post, not an upload or a read). */
  write?: boolean;
  timeoutMs?: number;
};

/** How one platform reads its error answers: the reason to show, and a kind when it is not the status's usual one. */
export type ErrorReader = (answer: PlatformAnswer) => { reason?: string | undefined; kind?: ProviderFailureKind | undefined; retryAfterMs?: number | undefined };

/**
 * Calls an OAuth platform's API and maps the answer: 429 rate-limited (with the platform's hint),
 * 5xx transient, 401 credentials, anything else refused with the platform's reason. A read that
 * lost its answer is transient; a write that lost its answer is an unknown outcome.
 */
export async function callApi(ctx: Pick<ProviderContext, 'outbound' | 'signal'>, platform: string, url: string, call: ApiCall, readError: ErrorReader): Promise<PlatformAnswer> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Herald', ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  let body: string | Uint8Array | undefined;
  if (call.json !== undefined) {
    body = JSON.stringify(call.json);
    headers['content-type'] = 'application/json';
  } else if (call.form) {
    body = new URLSearchParams(call.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (call.body) {
    body = call.body;
    headers['content-type'] = call.contentType ?? 'application/octet-stream';
  }
  let answer: PlatformAnswer;
  try {
    answer = await callPlatform(ctx, platform, url, { method: call.method ?? (body === undefined ? 'GET' : 'POST'), headers, ...(body !== undefined && { body }), timeoutMs: call.timeoutMs ?? 60_000 });
  } catch (error) {
    if (error instanceof ProviderError && error.kind === 'unknown_outcome' && !call.write) throw new ProviderError('transient', error.message, { cause: error });
    throw error;
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return answer;
  const read = readError(answer);
  const reason = `${platform} answered ${status}${read.reason ? `: ${read.reason}` : ''}`;
  const kind: ProviderFailureKind = read.kind ?? (status === 429 ? 'rate_limited' : status >= 500 ? 'transient' : status === 401 ? 'auth' : 'rejected');
  const retry = read.retryAfterMs ?? retryAfterMs(answer.headers.get('retry-after'));
  throw new ProviderError(kind, reason, { status, ...(retry !== undefined && { retryAfterMs: retry }) });
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
    return { ...config, accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? refreshToken, ...(tokens.expiresAt && { expiresAt: tokens.expiresAt }) };
  } catch (error) {
    if (error instanceof ProviderError && (error.options.status === 400 || error.options.status === 401)) {
      throw new ProviderError('auth', `${platform} refused to renew the access token (${error.message}); connect the channel again.`, { status: error.options.status });
    }
    throw error;
  }
}
