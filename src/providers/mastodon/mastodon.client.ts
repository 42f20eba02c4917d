import * as z from 'zod';
import { readLimited, wasNotSent } from '../../net/outbound.ts';
import { encodeMultipart } from '../multipart.ts';
import { ProviderError, type ProviderContext } from '../provider.ts';

/** An instance as its origin: `mastodon.social`, `https://mastodon.social/` and `https://mastodon.social/@x` are all `https://mastodon.social`. */
export const instanceSchema = z
  .string()
  .trim()
  .min(3)
  .max(300)
  .transform((value, ctx) => {
    try {
      const url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
      if (url.username || url.password) throw new Error('credentials in the URL');
      return url.origin;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'an instance such as `mastodon.social` or `https://mastodon.social`' });
      return z.NEVER;
    }
  })
  .describe('The Mastodon instance (server), e.g. `mastodon.social`.');

export const mastodonConfigSchema = z.object({
  instance: instanceSchema,
  accessToken: z.string().min(20).max(200).regex(/^[A-Za-z0-9_.~+/=-]+$/, 'an access token').describe('An access token with write:statuses, write:media and read:accounts (Preferences → Development → New application).'),
  maxCharacters: z.int().min(1).max(1_000_000).optional().describe('The instance\'s character limit; read from the instance at sign-in, 500 when unknown.'),
});

export type MastodonConfig = z.infer<typeof mastodonConfigSchema>;

export const MASTODON_SCOPES = 'read:accounts write:statuses write:media';
const ANSWER_LIMIT = 2 * 1024 * 1024;

export function mastodonConfig(config: Record<string, unknown>): MastodonConfig {
  const parsed = mastodonConfigSchema.safeParse(config);
  if (!parsed.success) throw new ProviderError('auth', `The Mastodon channel's configuration is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`);
  return parsed.data;
}

/** Seconds (or an HTTP date / ISO instant, as Mastodon's X-RateLimit-Reset) until a retry is worth it. */
function retryAfterMs(response: Response): number | undefined {
  const after = response.headers.get('retry-after');
  if (after && Number.isFinite(Number(after))) return Number(after) * 1000;
  const reset = response.headers.get('x-ratelimit-reset') ?? after;
  if (!reset) return undefined;
  const at = Date.parse(reset);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}

export type MastodonCall = {
  method?: 'GET' | 'POST';
  /** JSON body, or multipart form data. */
  body?: Record<string, unknown> | FormData;
  token?: string | undefined;
  headers?: Record<string, string>;
  /** Whether a lost answer may mean the call was applied. */
  write?: boolean;
};

/** Calls the instance's REST API and maps its answers to the engine's failure kinds. */
export async function callMastodon<T>(ctx: Pick<ProviderContext, 'outbound' | 'signal'>, instance: string, path: string, call: MastodonCall = {}): Promise<{ status: number; data: T }> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Herald', ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  let body: Uint8Array | string | undefined;
  if (call.body instanceof FormData) {
    const encoded = await encodeMultipart(call.body);
    body = encoded.body;
    headers['content-type'] = encoded.contentType;
  } else if (call.body) {
    body = JSON.stringify(call.body);
    headers['content-type'] = 'application/json';
  }
  let response: Response;
  try {
    response = await ctx.outbound.fetch(`${instance}${path}`, { method: call.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, maxRedirects: 0, timeoutMs: 60_000, ...(ctx.signal && { signal: ctx.signal }) });
  } catch (error) {
    const message = (error as Error).message;
    if ((error as { code?: string }).code === 'outbound_refused' || (error as { statusCode?: number }).statusCode === 400) throw new ProviderError('rejected', `The instance was not called. ${message}`);
    if (wasNotSent(error) || !call.write) throw new ProviderError('transient', `The instance could not be reached: ${message}`);
    throw new ProviderError('unknown_outcome', 'The instance did not answer in time; the status may or may not have been posted.');
  }
  let data: unknown = null;
  try {
    const text = (await readLimited(response, ANSWER_LIMIT)).toString('utf8');
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  const status = response.status;
  if (status >= 200 && status < 300) return { status, data: data as T };
  const described = data && typeof data === 'object' ? ((data as { error_description?: string; error?: string }).error_description ?? (data as { error?: string }).error) : undefined;
  const reason = `The instance answered ${status}${described ? `: ${described}` : ''}`;
  if (status === 429) throw new ProviderError('rate_limited', reason, { status, retryAfterMs: retryAfterMs(response) });
  if (status >= 500) throw new ProviderError('transient', reason, { status });
  // 401: the token was revoked; 403: the account is suspended, disabled or lacks a scope.
  if (status === 401 || status === 403) throw new ProviderError('auth', reason, { status });
  throw new ProviderError('rejected', reason, { status });
}
