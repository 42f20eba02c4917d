import * as z from 'zod';
import { expiryFrom, field, oauthPlatform } from '../oauth-api.ts';
import { callPlatform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { platformApp } from '../platform-apps.ts';
import { ProviderError, readConfig, type ProviderContext } from '../provider.ts';

/** The privacy levels TikTok knows; each account is offered some of them (creator info). */
export const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'] as const;
export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

export const tiktokConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  refreshToken: z.string().min(10).max(4000),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  refreshExpiresAt: z.iso.datetime({ offset: true }).optional(),
  openId: z.string().min(1).max(200),
  username: z.string().min(1).max(100),
  /** The privacy levels the account was last offered (creator info), for checks made without calling TikTok. */
  privacyLevels: z.array(z.enum(PRIVACY_LEVELS)).optional(),
  /** The longest video the account may post, in seconds, as creator info last said. */
  maxVideoSeconds: z.number().int().positive().optional(),
});
export type TiktokConfig = z.infer<typeof tiktokConfigSchema>;

export function tiktokConfig(config: Record<string, unknown>): TiktokConfig {
  return readConfig(tiktokConfigSchema, config, 'TikTok', () => "The TikTok channel's credentials are incomplete; connect it again.");
}

/** TikTok's own error codes, in words a person can act on. */
const REASONS: Record<string, string> = {
  spam_risk_too_many_posts:
    'TikTok refuses more posts from this account for now (its daily post limit is reached); publish it again later.',
  spam_risk_user_banned_from_posting: 'TikTok has barred this account from posting.',
  spam_risk_too_many_pending_share: 'This account has too many posts waiting on TikTok; let them finish before publishing more.',
  reached_active_user_cap: "The operator's TikTok app reached its daily number of posting accounts; publish it again tomorrow.",
  unaudited_client_can_only_post_to_private_accounts:
    "The operator's TikTok app is not audited by TikTok yet, so it may only post privately: set privacyLevel to SELF_ONLY (and the account to private), or have the app audited.",
  url_ownership_unverified:
    "TikTok fetches photos only from a domain the app's owner verified with TikTok: verify BASE_URL's domain (or URL prefix) in the TikTok developer portal.",
  privacy_level_option_mismatch:
    'The privacy level is not one this account offers now; choose one of those GET /integration-settings shows (creator info).',
  access_token_invalid: 'TikTok no longer accepts the access token; connect the channel again.',
  scope_not_authorized:
    'The TikTok channel was connected without the permission this needs; connect it again and approve every permission.',
  rate_limit_exceeded: 'TikTok asks to slow down (rate limit).',
};

/** `{data, error: {code, message, log_id}}` (the Content Posting and Display APIs), or OAuth's `{error, error_description}`. */
export function readTiktokError(answer: PlatformAnswer) {
  const error = field(answer.json, 'error');
  const code = typeof error === 'string' ? error : field(error, 'code');
  const message = typeof error === 'string' ? field(answer.json, 'error_description') : field(error, 'message');
  const known = typeof code === 'string' ? REASONS[code] : undefined;
  const detail = typeof message === 'string' && message ? message : undefined;
  const reason = known ?? [code, detail].filter((v) => typeof v === 'string' && v).join(': ');
  if (code === 'access_token_invalid' || code === 'scope_not_authorized') return { reason, kind: 'auth' as const };
  if (code === 'rate_limit_exceeded') return { reason, kind: 'rate_limited' as const };
  if (typeof code === 'string' && code in REASONS) return { reason, kind: 'rejected' as const };
  // OAuth refusals at the token endpoint: the grant is gone.
  if (typeof error === 'string' && ['invalid_grant', 'invalid_request', 'invalid_client'].includes(error))
    return { reason, status: answer.status >= 400 ? answer.status : 400 };
  return { reason: reason || undefined };
}

/** Success is a 2xx whose `error` is absent or `{code: "ok"}` (TikTok answers every call with an error object). */
function succeeded(answer: PlatformAnswer): boolean {
  if (answer.status < 200 || answer.status >= 300) return false;
  const error = field(answer.json, 'error');
  if (typeof error === 'string') return false;
  const code = field(error, 'code');
  return code === undefined || code === 'ok';
}

export const TIKTOK = { ...oauthPlatform('TikTok', readTiktokError), succeeded };

type Ctx = Pick<ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

export function tiktokCall(ctx: Ctx, path: string, options: PlatformRequest): Promise<PlatformAnswer> {
  return callPlatform(ctx, TIKTOK, `${platformApp(ctx.platformApps, 'tiktok').apiBase}${path}`, options);
}

/** Tokens from TikTok's token endpoint; both lifetimes are taken from the answer (TikTok's pages disagree on them). */
export async function tokenRequest(ctx: Ctx, form: Record<string, string>, now: Date) {
  const app = platformApp(ctx.platformApps, 'tiktok');
  const { json } = await tiktokCall(ctx, '/v2/oauth/token/', {
    form: { client_key: app.clientId, client_secret: app.clientSecret, ...form },
  });
  const accessToken = field(json, 'access_token');
  const refreshToken = field(json, 'refresh_token');
  const openId = field(json, 'open_id');
  if (typeof accessToken !== 'string' || typeof refreshToken !== 'string')
    throw new ProviderError('rejected', 'TikTok did not issue an access token.');
  const expiresAt = expiryFrom(now, field(json, 'expires_in'));
  const refreshExpiresAt = expiryFrom(now, field(json, 'refresh_expires_in'));
  return {
    accessToken,
    refreshToken,
    openId: typeof openId === 'string' ? openId : undefined,
    ...(expiresAt && { expiresAt }),
    ...(refreshExpiresAt && { refreshExpiresAt }),
  };
}

export type CreatorInfo = {
  username: string;
  nickname: string;
  avatar: string | null;
  privacyLevels: PrivacyLevel[];
  commentDisabled: boolean;
  duetDisabled: boolean;
  stitchDisabled: boolean;
  maxVideoSeconds: number | undefined;
};

/** What TikTok lets this account post now (TikTok requires asking before each post). */
export async function creatorInfo(ctx: Ctx, token: string): Promise<CreatorInfo> {
  const { json } = await tiktokCall(ctx, '/v2/post/publish/creator_info/query/', { token, method: 'POST', json: {} });
  const data = field(json, 'data');
  const username = field(data, 'creator_username');
  if (typeof username !== 'string') throw new ProviderError('rejected', 'TikTok did not say whose account this is.');
  const nickname = field(data, 'creator_nickname');
  const avatar = field(data, 'creator_avatar_url');
  const options = field(data, 'privacy_level_options');
  const seconds = Number(field(data, 'max_video_post_duration_sec'));
  return {
    username,
    nickname: typeof nickname === 'string' && nickname ? nickname : username,
    avatar: typeof avatar === 'string' ? avatar : null,
    privacyLevels: (Array.isArray(options) ? options : []).filter((o): o is PrivacyLevel => PRIVACY_LEVELS.includes(o as PrivacyLevel)),
    commentDisabled: field(data, 'comment_disabled') === true,
    duetDisabled: field(data, 'duet_disabled') === true,
    stitchDisabled: field(data, 'stitch_disabled') === true,
    maxVideoSeconds: Number.isInteger(seconds) && seconds > 0 ? seconds : undefined,
  };
}
