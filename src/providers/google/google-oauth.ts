import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { callPlatform, retryAfterMs, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { field, oauthPlatform, readTokens, refreshTokenRenewal, storedTokens, type RefreshedTokens } from '../oauth-api.ts';
import { appUnavailable, platformApp, type PlatformApps } from '../platform-apps.ts';
import {
  ProviderError,
  type BrowserSignIn,
  type Provider,
  type ProviderContext,
  type ProviderFailureKind,
  type SignInResult,
} from '../provider.ts';

/**
 * Google's OAuth 2.0 for web server apps, shared by YouTube and Google Business Profile: the
 * authorization code with PKCE (S256), `access_type=offline` and `prompt=consent` so a refresh
 * token is issued, access tokens of an hour renewed with that refresh token (Google does not
 * rotate it), and Google's JSON error answers read once for both APIs.
 */

const AUTHORIZE_PATH = '/o/oauth2/v2/auth';
const DEFAULT_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** Access tokens live an hour; renewed when less than this is left. */
export const GOOGLE_REFRESH_MARGIN_MS = 5 * 60_000;

type Ctx = Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/** The operator's Google app and where each Google service is reached (overridden for gateways and tests). */
export function googleApp(platformApps: PlatformApps) {
  const app = platformApp(platformApps, 'google');
  const bases = platformApps.apps.google.apiBases;
  return {
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    authorizeUrl: `${bases?.oauth ?? 'https://accounts.google.com'}${AUTHORIZE_PATH}`,
    tokenUrl: bases?.oauth ? `${bases.oauth}/token` : DEFAULT_TOKEN_URL,
    /** YouTube Data API v3 (`/youtube/v3/…`) and its uploads (`/upload/youtube/v3/…`). */
    youtube: bases?.youtube ?? 'https://www.googleapis.com',
    /** The Business Profile APIs live on three hosts; one override stands in for all of them. */
    business: {
      v4: bases?.business ?? 'https://mybusiness.googleapis.com',
      accounts: bases?.business ?? 'https://mybusinessaccountmanagement.googleapis.com',
      information: bases?.business ?? 'https://mybusinessbusinessinformation.googleapis.com',
    },
  };
}

export const googleUnavailable = (platformApps: PlatformApps): string | null => appUnavailable(platformApps, 'google');

/** Hours, minutes, seconds and milliseconds into the day at `instant` in Pacific time. */
function pacificElapsedMs(instant: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hourCycle: 'h23',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(instant);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return ((get('hour') * 60 + get('minute')) * 60 + get('second')) * 1000 + instant.getUTCMilliseconds();
}

/** Milliseconds from `now` to the next midnight in Pacific time, when YouTube's daily quota is reset (days of 23 and 25 hours included). */
export function msUntilPacificMidnight(now: Date): number {
  let wait = 24 * 3600_000 - pacificElapsedMs(now);
  // A day when the clocks change is an hour shorter or longer: 24 hours on lands at 01:00 or 23:00.
  const landed = pacificElapsedMs(new Date(now.getTime() + wait));
  if (landed > 0 && landed <= 3600_000) wait -= landed;
  else if (landed >= 23 * 3600_000) wait += 24 * 3600_000 - landed;
  return Math.max(1000, wait);
}

/** What a Google API's error reason means for a publish; undefined when the status says it. */
const REASONS: Record<string, { kind: ProviderFailureKind; words?: string }> = {
  quotaExceeded: { kind: 'rate_limited', words: "the Google project's daily API quota is used up; it is reset at midnight Pacific time" },
  dailyLimitExceeded: {
    kind: 'rate_limited',
    words: "the Google project's daily API quota is used up; it is reset at midnight Pacific time",
  },
  rateLimitExceeded: { kind: 'rate_limited' },
  userRateLimitExceeded: { kind: 'rate_limited' },
  authError: { kind: 'auth' },
  insufficientPermissions: { kind: 'auth', words: 'the channel was connected without a permission this needs; connect it again' },
  forbidden: { kind: 'rejected' },
  uploadLimitExceeded: {
    kind: 'rejected',
    words: 'this YouTube channel has reached its limit of uploads for now; YouTube lifts it after a while (usually a day)',
  },
};
const DAILY = new Set(['quotaExceeded', 'dailyLimitExceeded']);

/**
 * Google's errors: `{error: {code, message, status, errors: [{domain, reason, message}]}}`, or
 * OAuth's `{error, error_description}` from the token endpoint (`invalid_grant`: revoked or expired).
 */
export function readGoogleError(answer: PlatformAnswer, now: () => Date = () => new Date()) {
  const json = answer.json;
  const error = field(json, 'error');
  if (typeof error === 'string') {
    const description = field(json, 'error_description');
    return {
      reason: typeof description === 'string' ? `${error}: ${description}` : error,
      ...(error === 'invalid_grant' && { kind: 'auth' as const }),
    };
  }
  const reasonCode = field(error, 'errors', '0', 'reason');
  const message = field(error, 'message');
  const known = typeof reasonCode === 'string' && Object.hasOwn(REASONS, reasonCode) ? REASONS[reasonCode] : undefined;
  const words = [
    known?.words,
    typeof message === 'string' ? message : undefined,
    typeof reasonCode === 'string' ? `(${reasonCode})` : undefined,
  ]
    .filter(Boolean)
    .join(' ');
  const wait =
    typeof reasonCode === 'string' && DAILY.has(reasonCode)
      ? msUntilPacificMidnight(now())
      : retryAfterMs(answer.headers.get('retry-after'));
  return { reason: words || undefined, ...(known && { kind: known.kind }), ...(wait !== undefined && { retryAfterMs: wait }) };
}

/** A Google API as the one platform call sees it, named as messages name it ("YouTube", "Google Business Profile"). */
export function googlePlatform(name: string) {
  return oauthPlatform(name, (answer) => readGoogleError(answer));
}

const GOOGLE = googlePlatform('Google');

async function tokenRequest(ctx: Ctx, form: Record<string, string>, now: Date): Promise<RefreshedTokens & { accessToken: string }> {
  const app = googleApp(ctx.platformApps);
  const request: PlatformRequest = { form: { ...form, client_id: app.clientId, client_secret: app.clientSecret } };
  const { json } = await callPlatform(ctx, GOOGLE, app.tokenUrl, request);
  return readTokens('Google', json, now);
}

/** Google's tokens as a channel keeps them. */
export const googleTokensSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  refreshToken: z.string().min(10).max(4000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
});
export type GoogleTokens = z.infer<typeof googleTokensSchema>;

/** Where a sign-in starts: Google's consent page for `scopes`, with a PKCE challenge whose verifier is kept in `pending`. */
export function startGoogleSignIn(ctx: { platformApps: PlatformApps; redirectUri: string }, state: string, scopes: readonly string[]) {
  const app = googleApp(ctx.platformApps);
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(app.authorizeUrl);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: ctx.redirectUri,
    scope: scopes.join(' '),
    state,
    access_type: 'offline',
    // Google issues a refresh token on consent only; asking for it every time gets one on a reconnect too.
    prompt: 'consent',
    include_granted_scopes: 'true',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.toString(), pending: { verifier } };
}

/** Exchanges the callback's code (with the PKCE verifier kept since the start) for tokens. */
export async function finishGoogleSignIn(
  ctx: Ctx & { redirectUri: string },
  code: string,
  pending: Record<string, unknown>,
  now = new Date(),
): Promise<GoogleTokens> {
  const tokens = await tokenRequest(
    ctx,
    { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri, code_verifier: String(pending.verifier) },
    now,
  );
  return storedTokens(tokens);
}

/** The `renewal` of a Google channel: its access token is renewed with the refresh token when five minutes are left. */
export function googleRenewal(
  platform: string,
  readTokensOf: (config: Record<string, unknown>) => GoogleTokens,
): NonNullable<Provider['renewal']> {
  return refreshTokenRenewal(platform, {
    marginMs: GOOGLE_REFRESH_MARGIN_MS,
    read: (config) => ({ ...config, ...readTokensOf(config) }),
    tokenRequest,
    noRefreshToken: `The ${platform} access token expired and Google gave no refresh token; connect the channel again.`,
  });
}

/**
 * The browser sign-in of a Google platform that posts to one of the things the signed-in identity
 * manages (YouTube's channels, Business Profile's locations): `list` reads them with the new access
 * token; none is refused with `none`, one is connected at once, and several (the first 100) are
 * offered to choose from, kept with the tokens until the choice.
 */
export function googleSignIn<T>(options: {
  scopes: readonly string[];
  list: (ctx: Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>, token: string) => Promise<T[]>;
  none: string;
  prompt: string;
  /** What the choice is: "channel", "location". */
  what: string;
  id: (item: T) => string;
  label: (item: T, all: readonly T[]) => string;
  connected: (tokens: GoogleTokens, item: T) => SignInResult;
}): BrowserSignIn {
  const { scopes, list, none, prompt, what, id, label, connected } = options;
  return {
    startSchema: z.object({}),
    async start(ctx, { state }) {
      return startGoogleSignIn(ctx, state, scopes);
    },
    async finish(ctx, { code, pending }) {
      const tokens = await finishGoogleSignIn(ctx, code, pending);
      const items = await list(ctx, tokens.accessToken);
      if (items.length === 0) throw new ProviderError('rejected', none);
      if (items.length === 1) return connected(tokens, items[0]!);
      const offered = items.slice(0, 100);
      return {
        choose: {
          prompt,
          options: offered.map((item) => ({ id: id(item), label: label(item, items) })),
          pending: { tokens, items: offered },
        },
      };
    },
    async choose(_ctx, { choice, pending }) {
      const items = (Array.isArray(pending.items) ? pending.items : []) as T[];
      const item = items.find((i) => id(i) === choice);
      if (!item) throw new ProviderError('rejected', `That ${what} was not one of the choices; start connecting again.`);
      return connected(pending.tokens as GoogleTokens, item);
    },
  };
}
