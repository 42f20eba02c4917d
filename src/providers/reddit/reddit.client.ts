import * as z from 'zod';
import { field, oauthPlatform } from '../oauth-api.ts';
import { callPlatform, retryAfterMs, type ErrorReading, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { platformApp, type PlatformApps } from '../platform-apps.ts';
import { readConfig, type ProviderContext } from '../provider.ts';

/** What the sign-in asks for: posting, the account's name, reading posts and subreddits, flairs, the subreddits the person is in. */
export const REDDIT_SCOPES = 'identity submit read flair mysubreddits';

export const redditConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  refreshToken: z.string().min(10).max(4000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  /** The account's id (without the `t2_` prefix) and name. */
  userId: z.string().regex(/^[a-z0-9]{1,20}$/),
  username: z.string().regex(/^[A-Za-z0-9_-]{1,20}$/),
});
export type RedditConfig = z.infer<typeof redditConfigSchema>;

export function redditConfig(config: Record<string, unknown>): RedditConfig {
  return readConfig(redditConfigSchema, config, 'Reddit', () => "The Reddit channel's credentials are incomplete; connect it again.");
}

type Ctx = Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/**
 * The User-Agent Reddit asks every client for, `<platform>:<app id>:<version> (by /u/<name>)`:
 * the operator's REDDIT_USER_AGENT, or one built from the app's id and the account it acts for.
 * Reddit throttles generic agents.
 */
export function redditUserAgent(platformApps: PlatformApps, username?: string): string {
  const app = platformApp(platformApps, 'reddit');
  if (app.userAgent) return app.userAgent;
  return `server:${app.clientId}:1.0${username ? ` (by /u/${username})` : ''}`;
}

/** Seconds in Reddit's rate-limit text ("Take a break for 5 minutes", "try again in 9 seconds"), as milliseconds. */
export function waitInWords(message: string): number | undefined {
  const match = /(\d+)\s*(second|minute|hour|millisecond)s?/i.exec(message);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const ms = unit === 'hour' ? 3_600_000 : unit === 'minute' ? 60_000 : unit === 'second' ? 1000 : 1;
  return Number(match[1]) * ms;
}

/** The reasons Reddit gives as codes, in words a person acts on. */
const CODE_WORDS: Record<string, string> = {
  SUBREDDIT_NOEXIST: 'that subreddit does not exist',
  SUBREDDIT_NOTALLOWED: 'this account may not post in that subreddit',
  SUBREDDIT_REQUIRED: 'a subreddit is required',
  NO_SELFS: 'that subreddit does not take text posts',
  NO_LINKS: 'that subreddit does not take link posts',
  NO_IMAGES: 'that subreddit does not take image posts',
  ALREADY_SUB: 'that link was already posted there (Herald sends resubmit=false)',
  BAD_URL: 'the link is not a valid URL',
  NO_TEXT: 'the title or text is missing',
  TOO_LONG: 'the title or text is too long',
  SUBMIT_VALIDATION_FLAIR_REQUIRED: 'that subreddit requires a flair (use the flairs tool and set flairId)',
  INVALID_FLAIR_TEMPLATE_ID: "the flair is not one of the subreddit's (use the flairs tool)",
  USER_REQUIRED: 'the account is not signed in',
  DELETED_LINK: 'the post being commented on was deleted',
  THREAD_LOCKED: 'the post is locked, so it takes no comments',
  TOO_OLD: 'the post is archived, so it takes no comments',
  SPAM: 'Reddit took it for spam',
};

/** `{json: {errors: [[CODE, message, field], …]}}`: Reddit's refusals, often with HTTP 200. */
export function jsonErrors(json: unknown): Array<[string, string, string | null]> {
  const errors = field(json, 'json', 'errors');
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e): e is unknown[] => Array.isArray(e))
    .map((e) => [String(e[0] ?? 'ERROR'), String(e[1] ?? ''), typeof e[2] === 'string' ? e[2] : null]);
}

/**
 * Reddit's errors: `{json:{errors:[[CODE, message, field]]}}` (RATELIMIT with its wait in words),
 * `{message, error}` or `{reason, explanation}` bodies, 429 with X-Ratelimit-Reset (seconds until
 * the window resets), and 403 for a token without the scope the call needs (a credentials problem).
 */
export function readRedditError(answer: PlatformAnswer): ErrorReading {
  const errors = jsonErrors(answer.json);
  if (errors.length > 0) {
    const limited = errors.find(([code]) => code === 'RATELIMIT');
    if (limited) {
      return {
        kind: 'rate_limited',
        reason: `Reddit asks to slow down: ${limited[1]}`,
        retryAfterMs: waitInWords(limited[1]) ?? 60_000,
        status: 429,
      };
    }
    const auth = errors.some(([code]) => code === 'USER_REQUIRED');
    const words = errors.map(([code, message, where]) => {
      const plain = CODE_WORDS[code];
      return `${plain ?? message ?? code}${plain && message ? ` (${message})` : ''}${where ? ` [${where}]` : ''}`;
    });
    return { kind: auth ? 'auth' : 'rejected', reason: words.join('; '), status: answer.status === 200 ? 400 : answer.status };
  }
  const reason = [
    field(answer.json, 'explanation'),
    field(answer.json, 'message'),
    field(answer.json, 'reason'),
    field(answer.json, 'error'),
  ].find((v) => typeof v === 'string') as string | undefined;
  const reset = Number(answer.headers.get('x-ratelimit-reset'));
  const wait =
    answer.status === 429
      ? (retryAfterMs(answer.headers.get('retry-after')) ??
        (Number.isFinite(reset) && reset >= 0 ? Math.max(1000, reset * 1000) : undefined))
      : undefined;
  const scope = answer.status === 403 && /insufficient_scope/i.test(answer.headers.get('www-authenticate') ?? '');
  return {
    reason: scope ? 'the token lacks a permission this needs; connect the channel again' : reason,
    ...(scope && { kind: 'auth' as const }),
    retryAfterMs: wait,
  };
}

export const REDDIT = {
  ...oauthPlatform('Reddit', readRedditError),
  // An HTTP 200 with `json.errors` is a refusal.
  succeeded: (answer: PlatformAnswer) => answer.status >= 200 && answer.status < 300 && jsonErrors(answer.json).length === 0,
  outcome: 'the post may or may not have been made',
};

/** One call to Reddit's OAuth API (oauth.reddit.com, or the override) with the account's token and Reddit's User-Agent. */
export function callReddit(ctx: Ctx, path: string, options: PlatformRequest & { username?: string | undefined }): Promise<PlatformAnswer> {
  const { username, ...request } = options;
  return callPlatform(ctx, REDDIT, `${platformApp(ctx.platformApps, 'reddit').apiBase}${path}`, {
    ...request,
    headers: { ...request.headers, 'user-agent': redditUserAgent(ctx.platformApps, username) },
  });
}

/** The token endpoint (www.reddit.com, or the override's origin), with the app's HTTP Basic credentials. */
export function callRedditToken(ctx: Ctx, form: Record<string, string>): Promise<PlatformAnswer> {
  const app = platformApp(ctx.platformApps, 'reddit');
  const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64');
  return callPlatform(ctx, REDDIT, new URL('/api/v1/access_token', app.signInBase).toString(), {
    form,
    headers: { authorization: `Basic ${basic}`, 'user-agent': redditUserAgent(ctx.platformApps) },
  });
}
