import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { expiresSoon, grantRefused, refusedRenewal, waitFor } from '../oauth-api.ts';
import { callPlatform, readMedia, type PlatformAnswer } from '../platform-call.ts';
import { appUnavailable, baseUrlNotPublic, platformApp, type PlatformApps } from '../platform-apps.ts';
import { lengthProblem, ProviderError, refuseInvalid, videoRulesProblem } from '../provider.ts';
import type * as P from '../provider.ts';
import {
  creatorInfo,
  PRIVACY_LEVELS,
  TIKTOK,
  tiktokCall,
  tiktokConfig,
  tiktokConfigSchema,
  tokenRequest,
  type CreatorInfo,
  type TiktokConfig,
} from './tiktok.client.ts';
import { chunkPlan } from './tiktok.media.ts';
import { tiktokMetrics } from './tiktok.metrics.ts';

export const TIKTOK_SCOPES = 'user.info.basic,user.info.stats,video.publish,video.list';
/** A video's caption (its title) and a photo post's description, in UTF-16 code units as TikTok counts. */
export const VIDEO_TITLE_MAX = 2200;

/**
 * What TikTok's Content Posting API takes (Direct Post, Photo Post and Media Transfer guides), as
 * data: readiness applies `video` (the picture's size and length, as the media library read them)
 * and GET /integration-settings/:id shows it. TikTok also wants 23 to 60 frames a second; the
 * media library does not read frame rates, so TikTok checks that (`frame_rate_check_failed`).
 */
export const TIKTOK_RULES = {
  video: {
    mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime'],
    maxBytes: 4 * 1024 * 1024 * 1024,
    sidePixels: [360, 4096],
    /** TikTok's own ceiling; an account may be allowed less (creator info). */
    seconds: [0, 600],
  },
  photo: { mimeTypes: ['image/jpeg', 'image/webp'], maxBytes: 20 * 1024 * 1024, max: 35, titleMax: 90, descriptionMax: 4000 },
} as const;
const PHOTO_DESCRIPTION_MAX = TIKTOK_RULES.photo.descriptionMax;
const PHOTO_TITLE_MAX = TIKTOK_RULES.photo.titleMax;
const PHOTOS_MAX = TIKTOK_RULES.photo.max;
const PHOTO_BYTES_MAX = TIKTOK_RULES.photo.maxBytes;
const VIDEO_BYTES_MAX = TIKTOK_RULES.video.maxBytes;
const VIDEO_SECONDS_MAX = TIKTOK_RULES.video.seconds[1];
const VIDEO_TYPES: readonly string[] = TIKTOK_RULES.video.mimeTypes;
const PHOTO_TYPES: readonly string[] = TIKTOK_RULES.photo.mimeTypes;
/** Access tokens are renewed when less than this is left (TikTok says their lifetime in each answer). */
const REFRESH_MARGIN_MS = 30 * 60_000;
/** Waits between status checks (TikTok allows 30 a minute per token): about two minutes in all. */
const POLL_DELAYS_MS = [0, 2000, 3000, 5000, ...Array<number>(11).fill(10_000)];
/** Time allowed for one chunk's upload. */
const CHUNK_TIMEOUT_MS = 10 * 60_000;

const settingsSchema = z.object({
  privacyLevel: z
    .enum(PRIVACY_LEVELS, { error: 'Choose who may see the post: one of the privacy levels TikTok offers the account.' })
    .describe(
      'Who may see the post; required, with no default (TikTok requires the person to choose). Only the levels TikTok offers the account are accepted (creator info: the `creatorInfo` tool, or the channel as connected).',
    ),
  title: z
    .string()
    .max(PHOTO_TITLE_MAX, `TikTok takes photo titles of up to ${PHOTO_TITLE_MAX} characters.`)
    .optional()
    .describe(
      `Photo posts: the title (up to ${PHOTO_TITLE_MAX} characters); the post's text is the description. Videos take the text as their caption.`,
    ),
  disableComment: z.boolean().optional().describe('Turn comments off. Forced on when the account has comments off.'),
  disableDuet: z.boolean().optional().describe('Videos: turn duets off. Forced on when the account has duets off.'),
  disableStitch: z.boolean().optional().describe('Videos: turn stitches off. Forced on when the account has stitches off.'),
  brandContent: z
    .boolean()
    .optional()
    .describe('The post promotes a third party (a paid partnership); TikTok labels it and refuses it private.'),
  brandOrganic: z.boolean().optional().describe("The post promotes the account's own business; TikTok labels it promotional."),
  autoAddMusic: z.boolean().optional().describe('Photo posts: let TikTok add music.'),
  coverIndex: z
    .number()
    .int()
    .min(0)
    .max(PHOTOS_MAX - 1)
    .optional()
    .describe('Photo posts: which photo (from 0) is the cover.'),
  videoCoverMs: z.number().int().min(0).optional().describe('Videos: the frame (milliseconds from the start) used as the cover.'),
});
type Settings = z.infer<typeof settingsSchema>;

/** TikTok counts text in UTF-16 code units. */
export function countTiktokText(text: string): number {
  return text.length;
}

const isVideo = (m: Pick<P.PublishMedia, 'mimeType'>) => m.mimeType.startsWith('video/');

function mediaUrl(platformApps: PlatformApps, item: P.PublishMedia): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

const NO_COMMENTS = "TikTok's API has no way to post comments; remove the comments (or publish them on TikTok yourself).";

/** Why a publish failed on TikTok (`fail_reason` of the post's status), in words. */
const FAIL_REASONS: Record<string, string> = {
  file_format_check_failed: 'the file is not a format TikTok takes',
  duration_check_failed: 'the video is too long or too short for this account',
  frame_rate_check_failed: 'the frame rate is outside 23–60 frames a second',
  picture_size_check_failed: 'the picture size is outside what TikTok takes (360–4096 pixels a side for videos)',
  video_pull_failed: "TikTok could not fetch the video from Herald's URL",
  photo_pull_failed: "TikTok could not fetch a photo from Herald's public media URL (is BASE_URL reachable from the internet?)",
  publish_cancelled: 'the post was cancelled on TikTok',
  auth_removed: 'the account removed Herald’s access',
  spam_risk_too_many_posts: 'the account reached its daily post limit',
  spam_risk_user_banned_from_posting: 'the account is barred from posting',
  spam_risk_text: 'TikTok judged the text to be spam',
  spam_risk: 'TikTok judged the post to be spam',
  internal: 'TikTok failed internally',
};

function privacyProblem(level: string, offered: readonly string[]): string | null {
  if (offered.length === 0 || offered.includes(level)) return null;
  return `TikTok offers this account ${offered.join(', ')}; ${level} is not one of them.`;
}

/**
 * Follows a publish until TikTok says it is public (or failed). The release id is the post's
 * public id when TikTok gives it (`publicaly_available_post_id`, read from the answer's text: it
 * is a 64-bit number), otherwise the publish id.
 */
async function settle(ctx: P.ProviderContext, token: string, publishId: string): Promise<string | null> {
  for (const delay of POLL_DELAYS_MS) {
    if (delay) await waitFor(ctx, delay);
    const answer = await tiktokCall(ctx, '/v2/post/publish/status/fetch/', { token, json: { publish_id: publishId } });
    const data = (answer.json as { data?: { status?: unknown; fail_reason?: unknown } } | null)?.data;
    const status = data?.status;
    if (status === 'PUBLISH_COMPLETE' || status === 'SEND_TO_USER_INBOX') return publicId(answer);
    if (status === 'FAILED') {
      const reason = typeof data?.fail_reason === 'string' ? data.fail_reason : 'unknown';
      throw new ProviderError('rejected', `TikTok did not publish the post: ${FAIL_REASONS[reason] ?? reason}.`);
    }
  }
  throw new ProviderError(
    'unknown_outcome',
    'TikTok received the post but was still processing it when Herald stopped waiting; check the account on TikTok before publishing it again.',
  );
}

function publicId(answer: PlatformAnswer): string | null {
  return /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(answer.text)?.[1] ?? null;
}

/** Once the platform has the post, a failure to follow it is an unknown outcome: publishing again could post twice. */
async function following(ctx: P.ProviderContext, token: string, publishId: string): Promise<string | null> {
  try {
    return await settle(ctx, token, publishId);
  } catch (error) {
    if (error instanceof ProviderError && (error.kind === 'rejected' || error.kind === 'unknown_outcome')) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new ProviderError(
      'unknown_outcome',
      `TikTok received the post, but Herald could not learn whether it was published (${why}); check the account on TikTok.`,
      { cause: error },
    );
  }
}

function switches(settings: Settings, info: CreatorInfo) {
  return {
    disable_comment: info.commentDisabled || settings.disableComment === true,
    ...(settings.brandContent !== undefined && { brand_content_toggle: settings.brandContent }),
    ...(settings.brandOrganic !== undefined && { brand_organic_toggle: settings.brandOrganic }),
  };
}

async function publishVideo(ctx: P.ProviderContext, config: TiktokConfig, input: P.PublishInput, settings: Settings, info: CreatorInfo) {
  const item = input.media[0]!;
  const problem = lengthProblem(
    item,
    [0, Math.min(VIDEO_SECONDS_MAX, info.maxVideoSeconds ?? VIDEO_SECONDS_MAX)],
    'TikTok lets this account post videos',
  );
  if (problem) throw new ProviderError('rejected', problem);
  const plan = chunkPlan(item.size);
  const { json } = await tiktokCall(ctx, '/v2/post/publish/video/init/', {
    token: config.accessToken,
    json: {
      post_info: {
        ...(input.text && { title: input.text }),
        privacy_level: settings.privacyLevel,
        ...switches(settings, info),
        disable_duet: info.duetDisabled || settings.disableDuet === true,
        disable_stitch: info.stitchDisabled || settings.disableStitch === true,
        ...(settings.videoCoverMs !== undefined && { video_cover_timestamp_ms: settings.videoCoverMs }),
      },
      source_info: { source: 'FILE_UPLOAD', video_size: item.size, chunk_size: plan.chunkSize, total_chunk_count: plan.count },
    },
  });
  const publishId = (json as { data?: { publish_id?: unknown } }).data?.publish_id;
  const uploadUrl = (json as { data?: { upload_url?: unknown } }).data?.upload_url;
  if (typeof publishId !== 'string' || typeof uploadUrl !== 'string')
    throw new ProviderError('transient', 'TikTok did not give an upload address for the video.');
  // Chunks go in order, each read from the library as it is sent; the last one completes the upload, after which TikTok posts the video.
  for (const [i, [first, last]] of plan.ranges.entries()) {
    await callPlatform(ctx, TIKTOK, uploadUrl, {
      method: 'PUT',
      body: await readMedia(item, { start: first, end: last }),
      contentType: item.mimeType,
      headers: { 'content-range': `bytes ${first}-${last}/${item.size}` },
      write: i === plan.count - 1,
      timeoutMs: CHUNK_TIMEOUT_MS,
    });
  }
  const id = await following(ctx, config.accessToken, publishId);
  return {
    id: id ?? publishId,
    url: id ? `https://www.tiktok.com/@${config.username}/video/${id}` : `https://www.tiktok.com/@${config.username}`,
    meta: { publishId },
  };
}

async function publishPhotos(ctx: P.ProviderContext, config: TiktokConfig, input: P.PublishInput, settings: Settings, info: CreatorInfo) {
  const { json } = await tiktokCall(ctx, '/v2/post/publish/content/init/', {
    token: config.accessToken,
    write: true,
    json: {
      post_info: {
        ...(settings.title && { title: settings.title }),
        ...(input.text && { description: input.text }),
        privacy_level: settings.privacyLevel,
        ...switches(settings, info),
        ...(settings.autoAddMusic !== undefined && { auto_add_music: settings.autoAddMusic }),
      },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: settings.coverIndex ?? 0,
        photo_images: input.media.map((m) => mediaUrl(ctx.platformApps, m)),
      },
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
    },
  });
  const publishId = (json as { data?: { publish_id?: unknown } }).data?.publish_id;
  if (typeof publishId !== 'string') throw new ProviderError('unknown_outcome', 'TikTok accepted the photo post without saying its id.');
  const id = await following(ctx, config.accessToken, publishId);
  return {
    id: id ?? publishId,
    url: id ? `https://www.tiktok.com/@${config.username}/photo/${id}` : `https://www.tiktok.com/@${config.username}`,
    meta: { publishId },
  };
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(tiktokProvider, ctx, input);
  const config = tiktokConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  // TikTok requires asking what the account may post before each post.
  const info = await creatorInfo(ctx, config.accessToken);
  const problem = privacyProblem(settings.privacyLevel, info.privacyLevels);
  if (problem) throw new ProviderError('rejected', `${problem} Choose one it offers.`);
  if (settings.brandContent && settings.privacyLevel === 'SELF_ONLY')
    throw new ProviderError('rejected', 'TikTok refuses branded content posted privately; choose another privacy level.');
  return input.media.some(isVideo) ? publishVideo(ctx, config, input, settings, info) : publishPhotos(ctx, config, input, settings, info);
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const app = platformApp(ctx.platformApps, 'tiktok');
    const url = new URL('/v2/auth/authorize/', app.signInBase);
    url.search = new URLSearchParams({
      client_key: app.clientId,
      scope: TIKTOK_SCOPES,
      response_type: 'code',
      redirect_uri: ctx.redirectUri,
      state,
    }).toString();
    return { url: url.toString(), pending: {} };
  },
  async finish(ctx, { code }) {
    const tokens = await tokenRequest(ctx, { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri }, new Date());
    if (!tokens.openId) throw new ProviderError('rejected', 'TikTok did not say whose account this is.');
    const info = await creatorInfo(ctx, tokens.accessToken);
    const { openId, ...rest } = tokens;
    const config: TiktokConfig = {
      ...rest,
      openId,
      username: info.username,
      privacyLevels: info.privacyLevels,
      ...(info.maxVideoSeconds && { maxVideoSeconds: info.maxVideoSeconds }),
    };
    return { config, account: { internalId: openId, name: info.nickname, handle: info.username, picture: info.avatar } };
  },
};

/** Posts videos and photos to a TikTok account through the Content Posting API (direct post), signed in through the operator's app. */
export const tiktokProvider: P.Provider = {
  identifier: 'tiktok',
  name: 'TikTok',
  textLimit: { max: PHOTO_DESCRIPTION_MAX, unit: 'characters' },
  countText: countTiktokText,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: tiktokConfigSchema,
  configUrls: [],
  mediaRules: {
    maxItems: PHOTOS_MAX,
    mimeTypes: [...VIDEO_TYPES, ...PHOTO_TYPES],
    maxBytes: VIDEO_BYTES_MAX,
    required: true,
    video: { sidePixels: TIKTOK_RULES.video.sidePixels, seconds: TIKTOK_RULES.video.seconds },
  },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"tiktok"}`: the answer\'s `url` opens TikTok\'s sign-in, and the channel is created when the person approves. The server\'s operator registers the TikTok app with the Content Posting API (TIKTOK_CLIENT_KEY, TIKTOK_CLIENT_SECRET); photos are fetched by TikTok from Herald, so BASE_URL must be public and its domain verified with TikTok.',
  tools: {
    creatorInfo: {
      description:
        'What TikTok lets the account post now: the privacy levels it offers, whether comments, duets and stitches are off, and the longest video in seconds.',
      input: z.object({}),
      async run(ctx) {
        const info = await creatorInfo(ctx, tiktokConfig(ctx.config).accessToken);
        return {
          privacyLevels: info.privacyLevels,
          commentDisabled: info.commentDisabled,
          duetDisabled: info.duetDisabled,
          stitchDisabled: info.stitchDisabled,
          maxVideoSeconds: Math.min(VIDEO_SECONDS_MAX, info.maxVideoSeconds ?? VIDEO_SECONDS_MAX),
        };
      },
    },
  },
  unavailable: (platformApps) => appUnavailable(platformApps, 'tiktok'),
  validate({ text, media, settings, part, config, platformApps }): P.MissingItem[] {
    if (part > 0) return [{ field: `value[${part}].content`, reason: NO_COMMENTS }];
    const missing: P.MissingItem[] = [];
    const videos = media.filter(isVideo);
    if (videos.length > 0 && media.length > 1)
      missing.push({ field: `value[${part}].image`, reason: `A TikTok post is one video, or 1 to ${PHOTOS_MAX} photos (JPEG or WebP).` });
    if (videos.length === 1 && media.length === 1) {
      const max = Math.min(VIDEO_SECONDS_MAX, typeof config.maxVideoSeconds === 'number' ? config.maxVideoSeconds : VIDEO_SECONDS_MAX);
      const problem =
        videoRulesProblem(videos[0]!, { sidePixels: TIKTOK_RULES.video.sidePixels }, 'TikTok') ??
        lengthProblem(videos[0]!, [0, max], 'TikTok lets this account post videos');
      if (problem) missing.push({ field: `value[${part}].image[0]`, reason: problem });
    }
    if (videos.length > 0 && countTiktokText(text) > VIDEO_TITLE_MAX)
      missing.push({
        field: `value[${part}].content`,
        reason: `The text is ${countTiktokText(text)} characters (UTF-16 units); TikTok takes captions of up to ${VIDEO_TITLE_MAX} on videos.`,
      });
    if (videos.length === 0 && media.length > 0) {
      media.forEach((m, i) => {
        if (m.size > PHOTO_BYTES_MAX)
          missing.push({ field: `value[${part}].image[${i}]`, reason: `TikTok takes photos of up to 20 MB; this one is ${m.size} bytes.` });
      });
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: `value[${part}].image`, reason: notPublic });
    }
    const level = settings.privacyLevel;
    const offered = Array.isArray(config.privacyLevels) ? (config.privacyLevels as string[]) : [];
    const problem = typeof level === 'string' ? privacyProblem(level, offered) : null;
    if (problem) missing.push({ field: 'settings.privacyLevel', reason: problem });
    if (settings.brandContent === true && level === 'SELF_ONLY')
      missing.push({
        field: 'settings.brandContent',
        reason: 'TikTok refuses branded content posted privately; choose another privacy level.',
      });
    return missing;
  },
  signIn,
  renewal: {
    due: (config, now) => expiresSoon(config.expiresAt, now, REFRESH_MARGIN_MS),
    async renew(ctx, now) {
      const config = tiktokConfig(ctx.config);
      if (config.refreshExpiresAt && Date.parse(config.refreshExpiresAt) <= now.getTime())
        throw new ProviderError('auth', "The TikTok channel's sign-in expired; connect it again.");
      let tokens: Awaited<ReturnType<typeof tokenRequest>>;
      try {
        tokens = await tokenRequest(ctx, { grant_type: 'refresh_token', refresh_token: config.refreshToken }, now);
      } catch (error) {
        throw refusedRenewal('TikTok', error, grantRefused);
      }
      const { openId: _openId, ...renewed } = tokens;
      const next: TiktokConfig = { ...config, ...renewed };
      // What the account may post changes (a private account, a new duration): keep the checks made without calling TikTok current.
      try {
        const info = await creatorInfo(ctx, next.accessToken);
        next.privacyLevels = info.privacyLevels;
        if (info.maxVideoSeconds) next.maxVideoSeconds = info.maxVideoSeconds;
      } catch {
        // The tokens are renewed; the next publish asks TikTok again anyway.
      }
      return next;
    },
  },
  metrics: tiktokMetrics,
  publish,
  async comment() {
    throw new ProviderError('rejected', NO_COMMENTS);
  },
};
