import { expiresSoon, expiryFrom, field, oauthPlatform, refusedRenewal, storedTokens } from './oauth-api.ts';
import { callPlatform, type ErrorReading, type Platform, type PlatformAnswer, type PlatformRequest } from './platform-call.ts';
import { platformApp, type PlatformApps } from './platform-apps.ts';
import { ProviderError, type Provider, type ProviderContext } from './provider.ts';

/** The Graph API version Herald speaks unless FACEBOOK_API_VERSION says otherwise. */
export const GRAPH_VERSION = 'v25.0';

/** How long a publish waits when the account's day of publishing is used up (the window is a rolling 24 hours). */
export const GRAPH_QUOTA_RETRY_MS = 3600_000;

/** Which Graph API: Facebook's (pages, and Instagram accounts linked to them) or Instagram's own (Instagram Login). */
export type GraphHost = 'facebook' | 'instagram';

/** Error codes meaning the app, the account or the page is calling too often (Graph API "Handling Errors"). */
const THROTTLED = [4, 17, 32, 613];
/** The Business Use Case rate limits' codes (80001–80014). */
const BUSINESS_THROTTLED = /^800(0[1-9]|1[0-4])$/;
/** Video upload errors Facebook's Video API error codes say to retry (a timeout, a problem uploading, a partial file). */
const VIDEO_UPLOAD_RETRY = [1363019, 1363030, 1363033];
/** Permission errors: the token lacks a permission the call needs (10, 200–299). */
const NO_PERMISSION = (code: number) => code === 10 || (code >= 200 && code <= 299);

/**
 * Instagram's content-publishing error subcodes, in words a person can act on; the platform's own
 * message (error_user_msg) is kept after them when it gives one.
 */
const PUBLISH_REFUSALS: Record<number, string> = {
  2207001: 'Instagram could not create the post; try again later or with other media',
  2207003: 'Instagram took too long to fetch the media; check that the media URL answers quickly',
  2207004: 'the image is too large (Instagram takes JPEG images up to 8 MB)',
  2207005: 'the image format is not supported (Instagram takes JPEG images)',
  2207006: 'the media was not found or could not be read at its URL',
  2207008: 'the media container expired (they last 24 hours); the post must be sent again',
  2207009: "the image's aspect ratio is outside what Instagram accepts (from 4:5 portrait to 1.91:1 landscape)",
  2207010: 'the caption is too long (Instagram takes 2,200 characters, 30 hashtags and 20 @mentions)',
  2207020: 'the media container expired (they last 24 hours); the post must be sent again',
  2207023: 'the media type is not one Instagram knows',
  2207026: 'the video format is not supported (Instagram takes MP4 or MOV with H.264/HEVC video and AAC audio)',
  2207028: 'the carousel could not be made: every item must be a processed image or video, 2 to 10 of them',
  2207032: 'Instagram could not create the media; try again later',
  2207035: 'product tags are not allowed on this media',
  2207050: 'the Instagram account is restricted or inactive; open the app to check it',
  2207052: 'Instagram could not fetch the media from its URL (it must be public and answer quickly)',
  2207053: 'the video could not be uploaded; try again later',
};

/** The wait the Business Use Case usage header asks for (`estimated_time_to_regain_access`, minutes), if any. */
function usageWaitMs(answer: PlatformAnswer): number | undefined {
  let longest: number | undefined;
  for (const name of ['x-business-use-case-usage', 'x-app-usage', 'x-page-usage']) {
    const header = answer.headers.get(name);
    if (!header) continue;
    try {
      const usage: unknown = JSON.parse(header);
      const entries = Object.values(usage && typeof usage === 'object' ? usage : {}).flat() as unknown[];
      for (const entry of [usage, ...entries]) {
        const minutes = Number(field(entry, 'estimated_time_to_regain_access'));
        if (Number.isFinite(minutes) && minutes > 0) longest = Math.max(longest ?? 0, minutes * 60_000);
      }
    } catch {
      // A header that is not JSON says nothing about the wait.
    }
  }
  return longest;
}

/**
 * Graph API errors, `{error: {message, type, code, error_subcode, error_user_title, error_user_msg,
 * is_transient, fbtrace_id}}`, as the engine's kinds: 190 (and 102) an expired or revoked token,
 * a missing permission, throttling (4, 17, 32, 613, the Business Use Case limits, Instagram's
 * daily publishing limit), a container not yet ready, transient failures, and refusals in words
 * (Instagram's 2207xxx subcodes, Facebook's 368 policy block and 506 duplicate).
 */
export function readGraphError(answer: PlatformAnswer): ErrorReading {
  const error = field(answer.json, 'error');
  const code = Number(field(error, 'code'));
  const subcode = Number(field(error, 'error_subcode'));
  const userMessage = field(error, 'error_user_msg');
  const message = [userMessage, field(error, 'message')].find((v) => typeof v === 'string' && v.trim() !== '') as string | undefined;
  if (code === 190 || code === 102 || code === 463 || code === 467) return { reason: message, kind: 'auth' };
  if (NO_PERMISSION(code))
    return {
      reason: `${message ?? 'a permission is missing'} (the channel must be connected again to grant it)`,
      kind: 'auth',
      status: 403,
    };
  // An object that does not exist, or no longer for this token (a deleted post).
  if (code === 100 && subcode === 33) return { reason: message, status: 404 };
  if (THROTTLED.includes(code) || BUSINESS_THROTTLED.test(String(code)))
    return { reason: message, kind: 'rate_limited', retryAfterMs: usageWaitMs(answer) ?? 60_000 };
  if (code === 9 || subcode === 2207042)
    return {
      reason: 'the account reached its publishing limit for the last 24 hours',
      kind: 'rate_limited',
      retryAfterMs: GRAPH_QUOTA_RETRY_MS,
    };
  if (code === 9007 || subcode === 2207027) return { reason: 'the media is not ready to publish yet', kind: 'transient' };
  if (code === 368)
    return {
      reason: `Facebook blocked this as against its policies or as spam${message ? ` (${message})` : ''}; it was not published`,
      kind: 'rejected',
    };
  if (code === 506) return { reason: 'Facebook refused a duplicate of a post the page published recently', kind: 'rejected' };
  const refusal = PUBLISH_REFUSALS[subcode];
  if (refusal)
    return { reason: typeof userMessage === 'string' && userMessage.trim() ? `${refusal} (${userMessage})` : refusal, kind: 'rejected' };
  if (field(error, 'is_transient') === true || code === 1 || code === 2 || VIDEO_UPLOAD_RETRY.includes(subcode))
    return { reason: message, kind: 'transient' };
  return { reason: message };
}

const PLATFORMS: Record<GraphHost, Platform> = {
  facebook: oauthPlatform('Facebook', readGraphError),
  instagram: oauthPlatform('Instagram', readGraphError),
};

/** Instagram's calls through Facebook's Graph API are named Instagram in messages. */
const INSTAGRAM_ON_FACEBOOK = oauthPlatform('Instagram', readGraphError);

/** The Graph API of a host: its address with the version, and how its errors read. */
export function graphBase(platformApps: PlatformApps, host: GraphHost): string {
  const app = platformApp(platformApps, host);
  return `${app.apiBase}/${app.version ?? GRAPH_VERSION}`;
}

/** One Graph API call (`path` under the version), with the token as a bearer. */
export function graph(
  ctx: Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  host: GraphHost,
  path: string,
  options: PlatformRequest & { as?: 'Instagram' } = {},
): Promise<PlatformAnswer> {
  const { as, ...request } = options;
  const platform = as === 'Instagram' && host === 'facebook' ? INSTAGRAM_ON_FACEBOOK : PLATFORMS[host];
  return callPlatform(ctx, platform, `${graphBase(ctx.platformApps, host)}${path}`, request);
}

/**
 * A call to Facebook's video host (`graph-video.facebook.com`, where video uploads go; under an
 * API base override, that same origin). `accept` takes an error answer as an answer, for the
 * refusals a caller reads itself (an upload chunk sent from the wrong offset).
 */
export function graphVideo(
  ctx: Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  path: string,
  options: PlatformRequest & { accept?: (answer: PlatformAnswer) => boolean } = {},
): Promise<PlatformAnswer> {
  const { accept, ...request } = options;
  const platform = accept
    ? { ...PLATFORMS.facebook, succeeded: (a: PlatformAnswer) => (a.status >= 200 && a.status < 300) || accept(a) }
    : PLATFORMS.facebook;
  const base = graphBase(ctx.platformApps, 'facebook').replace(/^https:\/\/graph\.facebook\.com\//, 'https://graph-video.facebook.com/');
  return callPlatform(ctx, platform, `${base}${path}`, request);
}

/** A call outside the versioned path (token exchanges): the host's origin plus `path`. */
export function graphUnversioned(
  ctx: Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  host: GraphHost,
  url: string,
  options: PlatformRequest = {},
): Promise<PlatformAnswer> {
  return callPlatform(ctx, PLATFORMS[host], url, options);
}

/** The `id` of a Graph answer; none means the object was not made. */
export function createdId(json: unknown, what: string, platform: string): string {
  const id = field(json, 'id');
  if (typeof id !== 'string' && typeof id !== 'number') throw new ProviderError('transient', `${platform} did not create ${what}.`);
  return String(id);
}

/**
 * Exchanges or refreshes a long-lived token (Instagram Login's and Threads' `/access_token` and
 * `/refresh_access_token`, which take the token in the query, as documented).
 */
async function longLivedToken(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  platform: Platform,
  url: string,
  params: Record<string, string>,
  now: Date,
): Promise<{ accessToken: string; expiresAt: string | undefined }> {
  const { json } = await callPlatform(ctx, platform, `${url}?${new URLSearchParams(params).toString()}`);
  const accessToken = field(json, 'access_token');
  if (typeof accessToken !== 'string') throw new ProviderError('rejected', `${platform.name} did not issue a long-lived token.`);
  return { accessToken, expiresAt: expiryFrom(now, field(json, 'expires_in')) };
}

/**
 * Instagram Login's and Threads' sign-in: the callback's `code` exchanged at `codeUrl` for a
 * short-lived token (read from the answer by `shortToken`), then that one at `exchangeUrl` with
 * `grantType` for the long-lived token the channel keeps.
 */
export async function longLivedSignIn(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'> & { redirectUri: string },
  platform: Platform,
  options: {
    app: { clientId: string; clientSecret: string };
    codeUrl: string;
    exchangeUrl: string;
    grantType: string;
    shortToken?: (json: unknown) => unknown;
  },
  code: string,
): Promise<{ accessToken: string; expiresAt: string | undefined }> {
  const { app, shortToken = (json: unknown) => field(json, 'access_token') } = options;
  const { json } = await callPlatform(ctx, platform, options.codeUrl, {
    form: {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: ctx.redirectUri,
      // Meta appends `#_` to the code it sends back.
      code: code.replace(/#_$/, ''),
    },
  });
  const short = shortToken(json);
  if (typeof short !== 'string') throw new ProviderError('rejected', `${platform.name} did not issue an access token.`);
  const params = { grant_type: options.grantType, client_secret: app.clientSecret, access_token: short };
  return longLivedToken(ctx, platform, options.exchangeUrl, params, new Date());
}

/**
 * The `renewal` of a long-lived Meta token (Instagram Login, Threads): refreshed with
 * `grant_type` at `{base}/refresh_access_token` when `marginMs` are left. A refusal (an `auth`
 * error, or a 400: the token is too old or revoked) needs the channel connected again.
 */
export function longLivedRenewal(
  platform: Platform,
  options: {
    marginMs: number;
    grantType: string;
    base: (platformApps: PlatformApps) => string;
    read: (config: Record<string, unknown>) => Record<string, unknown> & { accessToken: string };
  },
): NonNullable<Provider['renewal']> {
  return {
    due: (config, now) => expiresSoon(config.expiresAt, now, options.marginMs),
    async renew(ctx, now) {
      const config = options.read(ctx.config);
      try {
        const params = { grant_type: options.grantType, access_token: config.accessToken };
        const token = await longLivedToken(ctx, platform, `${options.base(ctx.platformApps)}/refresh_access_token`, params, now);
        return { ...config, ...storedTokens(token) };
      } catch (error) {
        throw refusedRenewal(platform.name, error, (e) => e.kind === 'auth' || e.options.status === 400);
      }
    },
  };
}

/** Insights, `{data: [{name, values: [{value}]}]}` (media, lifetime) or `{data: [{name, total_value: {value}}]}` (user), as name → value. */
export function insights(json: unknown): Record<string, unknown> {
  const data = field(json, 'data');
  const values: Record<string, unknown> = {};
  for (const item of Array.isArray(data) ? data : []) {
    const name = field(item, 'name');
    if (typeof name === 'string') values[name] = field(item, 'total_value', 'value') ?? field(item, 'values', '0', 'value');
  }
  return values;
}
