import * as z from 'zod';
import { instanceOriginSchema } from '../config-urls.ts';
import { field } from '../oauth-api.ts';
import {
  callPlatform,
  JSON_API_HEADERS,
  retryAfterMs,
  type ErrorReading,
  type PlatformAnswer,
  type PlatformRequest,
} from '../platform-call.ts';
import { ProviderError, readConfig, type ProviderContext } from '../provider.ts';

export const lemmyInstanceSchema = instanceOriginSchema('lemmy.world', 'The Lemmy instance the account is on, e.g. `lemmy.world`.');

export const lemmyConfigSchema = z.object({
  instance: lemmyInstanceSchema.meta({ title: 'Server' }),
  username: z
    .string()
    .trim()
    .min(1)
    .max(255)
    .meta({ title: 'User name' })
    .describe("The account's user name or e-mail address on the instance."),
  password: z
    .string()
    .min(1)
    .max(200)
    .meta({ title: 'Password', writeOnly: true })
    .describe("The account's password: Herald keeps it sealed, to sign in again when the instance ends its session."),
  totp: z
    .string()
    .regex(/^\d{6}$/, 'a six-digit code')
    .optional()
    .meta({ title: 'Two-factor code' })
    .describe('The current two-factor code, for accounts that have one (used once, never stored).'),
  /** Learnt at connect: the session token, the account's id, and whether it signs in with a second factor. */
  jwt: z.string().min(10).max(4000).optional().meta({ readOnly: true }),
  personId: z.int().positive().optional().meta({ readOnly: true }),
  twoFactor: z.boolean().optional().meta({ readOnly: true }),
});
export type LemmyConfig = z.infer<typeof lemmyConfigSchema>;

export function lemmyConfig(config: Record<string, unknown>): LemmyConfig {
  return readConfig(lemmyConfigSchema, config, 'Lemmy');
}

/** Lemmy's error codes that mean the account's credentials or standing, not the request, are the problem. */
const AUTH_ERRORS = new Set([
  'not_logged_in',
  'incorrect_login',
  'couldnt_find_that_username_or_email',
  'password_incorrect',
  'missing_totp_token',
  'incorrect_totp_token',
  'email_not_verified',
  'registration_application_is_pending',
  'registration_denied',
  'site_ban',
  'deleted',
]);

/** Lemmy's codes in words a person acts on. */
const ERROR_WORDS: Record<string, string> = {
  not_logged_in: "the instance ended Herald's session",
  incorrect_login: 'the user name or password is wrong',
  couldnt_find_that_username_or_email: 'the instance has no such user',
  password_incorrect: 'the password is wrong',
  missing_totp_token: 'the account uses two-factor codes: give the current one (`totp`)',
  incorrect_totp_token: 'the two-factor code is wrong or expired',
  email_not_verified: "the account's e-mail address is not verified yet",
  registration_application_is_pending: 'the instance has not approved the account yet',
  site_ban: 'the account is banned from the instance',
  deleted: 'the account was deleted',
  couldnt_find_community: 'the instance does not know that community',
  banned_from_community: 'the account is banned from that community',
  only_mods_can_post_in_community: 'only moderators may post in that community',
  invalid_post_title: 'the title is not valid (3 to 200 characters, one line)',
  invalid_url: 'the link is not a valid URL',
  invalid_body_field: 'the text is too long',
  locked: 'the post is locked, so it takes no comments',
  couldnt_find_post: 'the post being commented on is gone',
  couldnt_find_comment: 'the comment being answered is gone',
  couldnt_create_post: 'the instance could not create the post',
  couldnt_create_comment: 'the instance could not create the comment',
  rate_limit_error: 'the instance asks to slow down',
};

/** Lemmy's rate limits are set by each instance's admins (6 posts per 10 minutes by default): without a hint, this long. */
const DEFAULT_WAIT_MS = 5 * 60_000;

/** Lemmy answers errors as `{error: "<code>"}` (0.19), some with a `message`; the code says the kind. */
export function readLemmyError(answer: PlatformAnswer): ErrorReading {
  const code = field(answer.json, 'error');
  const message = field(answer.json, 'message');
  const text = typeof code === 'string' ? code : answer.text.trim().slice(0, 200) || undefined;
  const words = typeof code === 'string' && ERROR_WORDS[code] ? `${ERROR_WORDS[code]} (${code})` : text;
  const reason = typeof message === 'string' && message ? `${words}: ${message}` : words;
  if (code === 'rate_limit_error' || answer.status === 429)
    return { kind: 'rate_limited', reason, retryAfterMs: retryAfterMs(answer.headers.get('retry-after')) ?? DEFAULT_WAIT_MS };
  // A session the instance no longer accepts reads as 401 whatever status it came with: Herald may sign in again.
  if (code === 'not_logged_in') return { kind: 'auth', reason, status: 401 };
  if (typeof code === 'string' && AUTH_ERRORS.has(code)) return { kind: 'auth', reason };
  return { reason };
}

export const INSTANCE = {
  name: 'The Lemmy instance',
  headers: JSON_API_HEADERS,
  // 403: a banned or deleted account.
  authStatuses: [403],
  timeoutMs: 60_000,
  outcome: 'the post may or may not have been made',
  readError: readLemmyError,
};

type Ctx = Pick<ProviderContext, 'outbound' | 'signal'>;

/** One call to the instance's API (`/api/v3`), through the guarded client (the instance is a host the person gave). */
export function callLemmy(ctx: Ctx, instance: string, path: string, request: PlatformRequest = {}): Promise<PlatformAnswer> {
  return callPlatform(ctx, INSTANCE, `${instance}/api/v3${path}`, request);
}

/** Signs in with the account's password (and a current two-factor code): the session token. */
export async function logIn(ctx: Ctx, config: Pick<LemmyConfig, 'instance' | 'username' | 'password' | 'totp'>): Promise<string> {
  const { json } = await callLemmy(ctx, config.instance, '/user/login', {
    json: { username_or_email: config.username, password: config.password, ...(config.totp && { totp_2fa_token: config.totp }) },
  });
  const jwt = field(json, 'jwt');
  if (typeof jwt === 'string' && jwt) return jwt;
  if (field(json, 'verify_email_sent') === true)
    throw new ProviderError('auth', "The instance has not issued a session: the account's e-mail address is not verified yet.");
  if (field(json, 'registration_created') === true)
    throw new ProviderError('auth', 'The instance has not issued a session: it has not approved the account yet.');
  throw new ProviderError('auth', 'The instance did not issue a session token.');
}

/** When a session token expires (its `exp` claim, if it has one), as milliseconds since the epoch. */
export function tokenExpiry(jwt: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}
