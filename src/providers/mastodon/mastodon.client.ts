import * as z from 'zod';
import { instanceOriginSchema } from '../config-urls.ts';
import { callPlatform, JSON_API_HEADERS, msUntil, retryAfterMs, type Platform } from '../platform-call.ts';
import { readConfig, type ProviderContext } from '../provider.ts';

export const instanceSchema = instanceOriginSchema('mastodon.social', 'The Mastodon instance (server), e.g. `mastodon.social`.');

export const mastodonConfigSchema = z.object({
  instance: instanceSchema,
  accessToken: z
    .string()
    .min(20)
    .max(200)
    .regex(/^[A-Za-z0-9_.~+/=-]+$/, 'an access token')
    .describe('An access token with write:statuses, write:media and read:accounts (Preferences → Development → New application).'),
  maxCharacters: z
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe("The instance's character limit; read from the instance at sign-in, 500 when unknown."),
});

export type MastodonConfig = z.infer<typeof mastodonConfigSchema>;

export const MASTODON_SCOPES = 'read:accounts write:statuses write:media';
const ANSWER_LIMIT = 2 * 1024 * 1024;

export function mastodonConfig(config: Record<string, unknown>): MastodonConfig {
  return readConfig(mastodonConfigSchema, config, 'Mastodon');
}

/** A Mastodon instance's REST API. */
const INSTANCE: Platform = {
  name: 'The instance',
  headers: JSON_API_HEADERS,
  // 401: the token was revoked; 403: the account is suspended, disabled or lacks a scope.
  authStatuses: [403],
  timeoutMs: 60_000,
  limit: ANSWER_LIMIT,
  outcome: 'the status may or may not have been posted',
  readError({ json, status, headers }) {
    const body = (json && typeof json === 'object' ? json : {}) as { error_description?: string; error?: string };
    const reason = body.error_description ?? body.error;
    // Mastodon says when its window resets (X-RateLimit-Reset, an ISO instant) rather than how long to wait.
    const wait =
      status === 429
        ? (retryAfterMs(headers.get('retry-after')) ?? msUntil(headers.get('x-ratelimit-reset') ?? headers.get('retry-after')))
        : undefined;
    return { reason, retryAfterMs: wait };
  },
};

export type MastodonCall = {
  method?: 'GET' | 'POST';
  /** JSON body, or multipart form data. */
  body?: Record<string, unknown> | FormData;
  token?: string | undefined;
  headers?: Record<string, string>;
  /** Whether a lost answer may mean the call was applied. */
  write?: boolean;
};

/** Calls the instance's REST API. */
export async function callMastodon<T>(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  instance: string,
  path: string,
  call: MastodonCall = {},
): Promise<{ status: number; data: T }> {
  const { body, ...rest } = call;
  const answer = await callPlatform(ctx, INSTANCE, `${instance}${path}`, {
    ...rest,
    ...(body instanceof FormData ? { multipart: body } : body && { json: body }),
  });
  return { status: answer.status, data: answer.json as T };
}
