import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { callPlatform, readMedia, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { field } from '../oauth-api.ts';
import {
  googleApp,
  googlePlatform,
  googleRenewal,
  googleTokensSchema,
  googleUnavailable,
  googleSignIn,
  type GoogleTokens,
} from '../google/google-oauth.ts';
import { ProviderError, readConfig, readSettings, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import { openUploadSession, sendBytes } from './youtube.upload.ts';
import {
  LONG_UPLOADS_STATUSES,
  splitMedia,
  YOUTUBE_RULES,
  youtubeProblems,
  youtubeSettingsSchema,
  type LongUploadsStatus,
} from './youtube.rules.ts';
import { youtubeMetrics } from './youtube.metrics.ts';

export const YOUTUBE_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.force-ssl',
  'https://www.googleapis.com/auth/youtube.readonly',
] as const;
/** How long a comment waits before asking again whether YouTube has processed the video, when YouTube gives no estimate. */
export const PROCESSING_RETRY_MS = 60_000;
const PROCESSING_RETRY_MAX_MS = 15 * 60_000;

export const youtubeConfigSchema = googleTokensSchema.extend({
  channelId: z.string().regex(/^[A-Za-z0-9_-]{10,40}$/),
  channelTitle: z.string().min(1).max(200),
  longUploadsStatus: z
    .enum(LONG_UPLOADS_STATUSES)
    .optional()
    .describe(
      'Whether YouTube lets the channel upload videos over 15 minutes (`status.longUploadsStatus`), read at sign-in and at each renewal.',
    )
    .meta({ readOnly: true }),
});
type YouTubeConfig = z.infer<typeof youtubeConfigSchema>;

export function youtubeConfig(config: Record<string, unknown>): YouTubeConfig {
  return readConfig(youtubeConfigSchema, config, 'YouTube', () => "The YouTube channel's credentials are incomplete; connect it again.");
}

export const YOUTUBE = googlePlatform('YouTube');

type Ctx = Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/** A call to the YouTube Data API v3 (`path` under /youtube/v3). */
export function youtubeApi(ctx: Ctx, path: string, options: PlatformRequest): Promise<PlatformAnswer> {
  return callPlatform(ctx, YOUTUBE, `${googleApp(ctx.platformApps).youtube}/youtube/v3${path}`, options);
}

type ChannelChoice = { id: string; title: string; handle: string | null; picture: string | null; longUploads: LongUploadsStatus | null };

function longUploadsOf(item: unknown): LongUploadsStatus | null {
  const status = field(item, 'status', 'longUploadsStatus');
  return (LONG_UPLOADS_STATUSES as readonly unknown[]).includes(status) ? (status as LongUploadsStatus) : null;
}

/** The channels the signed-in Google identity owns (`channels.list?mine=true`), with whether each may upload long videos. */
async function ownChannels(ctx: Ctx, token: string): Promise<ChannelChoice[]> {
  const { json } = await youtubeApi(ctx, '/channels?part=snippet,status&mine=true&maxResults=50', { token });
  const items = field(json, 'items');
  return (Array.isArray(items) ? items : []).flatMap((item) => {
    const id = field(item, 'id');
    if (typeof id !== 'string') return [];
    const title = field(item, 'snippet', 'title');
    const handle = field(item, 'snippet', 'customUrl');
    const picture = field(item, 'snippet', 'thumbnails', 'default', 'url');
    return [
      {
        id,
        title: typeof title === 'string' && title ? title : `YouTube channel ${id}`,
        handle: typeof handle === 'string' ? handle : null,
        picture: typeof picture === 'string' ? picture : null,
        longUploads: longUploadsOf(item),
      },
    ];
  });
}

/** The channel's long-uploads status now (`channels.list?part=status&id=`); null when YouTube does not say. */
async function channelLongUploads(ctx: Ctx, token: string, channelId: string): Promise<LongUploadsStatus | null> {
  const { json } = await youtubeApi(ctx, `/channels?part=status&id=${encodeURIComponent(channelId)}`, { token });
  return longUploadsOf(field(json, 'items', '0'));
}

function connected(tokens: GoogleTokens, channel: ChannelChoice): { config: YouTubeConfig; account: P.ConnectedAccount } {
  return {
    config: {
      ...tokens,
      channelId: channel.id,
      channelTitle: channel.title,
      ...(channel.longUploads && { longUploadsStatus: channel.longUploads }),
    },
    account: { internalId: channel.id, name: channel.title, handle: channel.handle, picture: channel.picture },
  };
}

const signIn = googleSignIn({
  scopes: YOUTUBE_SCOPES,
  list: ownChannels,
  none: 'This Google account has no YouTube channel. Create one on youtube.com (or sign in as the brand account that owns it), then connect again.',
  prompt: 'This Google account has several YouTube channels. Which one should Herald post to?',
  what: 'channel',
  id: (c: ChannelChoice) => c.id,
  label: (c) => (c.handle ? `${c.title} (${c.handle})` : c.title),
  connected,
});

function videoUrl(id: string): string {
  return `https://www.youtube.com/watch?v=${encodeURIComponent(id)}`;
}

/** Why YouTube refused or lost a video after the upload, in words; null while it is fine. */
function videoRefusal(video: unknown): string | null {
  const upload = field(video, 'status', 'uploadStatus');
  if (upload === 'rejected')
    return `YouTube rejected the video (${String(field(video, 'status', 'rejectionReason') ?? 'no reason given')}).`;
  if (upload === 'failed')
    return `YouTube could not process the video (${String(field(video, 'status', 'failureReason') ?? 'no reason given')}).`;
  if (upload === 'deleted') return 'The video was deleted on YouTube.';
  return null;
}

/** Uploads the video (resumable), then sets its thumbnail and adds it to the playlist. */
async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = youtubeConfig(ctx.config);
  refuseInvalid(youtubeProvider, ctx, input);
  const settings = readSettings(youtubeSettingsSchema, input.settings);
  const { videos, images } = splitMedia(input.media);
  const video = videos[0]!;
  const metadata = {
    snippet: {
      title: settings.title,
      description: input.text,
      ...(settings.tags?.length && { tags: settings.tags }),
      ...(settings.categoryId && { categoryId: settings.categoryId }),
    },
    status: { privacyStatus: settings.privacy, selfDeclaredMadeForKids: settings.madeForKids },
  };
  const session = await openUploadSession(
    ctx,
    config.accessToken,
    { size: video.size, mimeType: video.mimeType },
    metadata,
    settings.notifySubscribers === false ? { notifySubscribers: 'false' } : {},
  );
  const answer = await sendBytes(ctx, config.accessToken, session, { size: video.size, read: (range) => readMedia(video, range) });
  const id = field(answer.json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'YouTube finished the upload without saying the video id.');
  const refused = videoRefusal(answer.json);
  if (refused) throw new ProviderError('rejected', refused);

  // The video is on YouTube from here: what follows must not fail the publish (a retry would upload it again).
  const notes: string[] = [];
  const privacy = field(answer.json, 'status', 'privacyStatus');
  if (typeof privacy === 'string' && privacy !== settings.privacy)
    notes.push(
      `YouTube made the video ${privacy}, not ${settings.privacy} (videos uploaded through Google projects YouTube has not audited stay private).`,
    );
  const thumbnail = images[0];
  if (thumbnail) {
    try {
      await callPlatform(
        ctx,
        YOUTUBE,
        `${googleApp(ctx.platformApps).youtube}/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(id)}&uploadType=media`,
        { token: config.accessToken, body: await readMedia(thumbnail), contentType: thumbnail.mimeType },
      );
    } catch (error) {
      notes.push(`The thumbnail was not set: ${(error as Error).message}`);
    }
  }
  if (settings.playlistId) {
    try {
      await youtubeApi(ctx, '/playlistItems?part=snippet', {
        token: config.accessToken,
        json: { snippet: { playlistId: settings.playlistId, resourceId: { kind: 'youtube#video', videoId: id } } },
      });
    } catch (error) {
      notes.push(`The video was not added to the playlist: ${(error as Error).message}`);
    }
  }
  return { id, url: videoUrl(id), meta: { channelId: config.channelId, ...(notes.length && { notes }) } };
}

/**
 * Waits, through the engine's retries (so on its clock, never a sleep here), until YouTube has
 * processed the video the comment goes under; a video YouTube refused or lost fails the comment.
 */
async function processed(ctx: P.ProviderContext, token: string, videoId: string): Promise<void> {
  const { json } = await youtubeApi(ctx, `/videos?part=status,processingDetails&id=${encodeURIComponent(videoId)}`, { token });
  const video = field(json, 'items', '0');
  if (!video) throw new ProviderError('rejected', 'The video is no longer on YouTube; the comment has nothing to go under.');
  const refused = videoRefusal(video);
  if (refused) throw new ProviderError('rejected', refused);
  if (field(video, 'status', 'uploadStatus') === 'processed') return;
  const left = Number(field(video, 'processingDetails', 'processingProgress', 'timeLeftMs'));
  const wait = Number.isFinite(left) && left > 0 ? Math.min(Math.max(left, 10_000), PROCESSING_RETRY_MAX_MS) : PROCESSING_RETRY_MS;
  throw new ProviderError('transient', 'YouTube is still processing the video; the comment follows once it is done.', {
    retryAfterMs: wait,
  });
}

/** The first comment starts a thread under the video (commentThreads.insert); later ones reply in that thread (YouTube's replies are one level deep). */
async function comment(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = youtubeConfig(ctx.config);
  refuseInvalid(youtubeProvider, ctx, input);
  const videoId = input.root?.id;
  if (!videoId) throw new ProviderError('rejected', 'The video this comment belongs to has no YouTube id.');
  await processed(ctx, config.accessToken, videoId);
  const thread = input.part > 1 ? field(input.parent?.meta, 'thread') : undefined;
  if (typeof thread !== 'string') {
    const { json } = await youtubeApi(ctx, '/commentThreads?part=snippet', {
      token: config.accessToken,
      write: true,
      json: { snippet: { channelId: config.channelId, videoId, topLevelComment: { snippet: { textOriginal: input.text } } } },
    });
    const id = field(json, 'snippet', 'topLevelComment', 'id') ?? field(json, 'id');
    if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'YouTube accepted the comment without saying its id.');
    return { id, url: `${videoUrl(videoId)}&lc=${encodeURIComponent(id)}`, meta: { thread: id } };
  }
  const { json } = await youtubeApi(ctx, '/comments?part=snippet', {
    token: config.accessToken,
    write: true,
    json: { snippet: { parentId: thread, textOriginal: input.text } },
  });
  const id = field(json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'YouTube accepted the reply without saying its id.');
  return { id, url: `${videoUrl(videoId)}&lc=${encodeURIComponent(id)}`, meta: { thread } };
}

const listCategoriesInput = z.object({
  regionCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 country code such as US')
    .default('US')
    .describe('The country whose categories to list (default US).'),
  hl: z.string().min(2).max(10).optional().describe('The language of the names (e.g. en, fr).'),
});
const listPlaylistsInput = z.object({});

function items(json: unknown): unknown[] {
  const list = field(json, 'items');
  return Array.isArray(list) ? list : [];
}

const tokenRenewal = googleRenewal('YouTube', youtubeConfig);

/** Posts videos to a YouTube channel signed in through the operator's Google app. */
export const youtubeProvider: P.Provider = {
  identifier: 'youtube',
  name: 'YouTube',
  textLimit: { max: YOUTUBE_RULES.descriptionMaxBytes, unit: 'bytes' },
  countText: (text) => Buffer.byteLength(text, 'utf8'),
  toText: htmlToPlainText,
  settingsSchema: youtubeSettingsSchema,
  configSchema: youtubeConfigSchema,
  configUrls: [],
  mediaRules: {
    maxItems: 2,
    mimeTypes: [...YOUTUBE_RULES.videoTypes, ...YOUTUBE_RULES.thumbnailTypes],
    // YouTube takes up to 256 GB; Herald's media library holds files of up to 1 GB.
    maxBytes: Math.min(YOUTUBE_RULES.videoMaxBytes, 1024 ** 3),
    required: true,
  },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"youtube"}`: the answer\'s `url` opens Google\'s sign-in, and the channel is created when the person approves (with several channels, Herald asks which). A post is one video (MP4, MOV or WebM) with a `title`, `privacy` and `madeForKids`; an image beside it becomes the thumbnail. The server\'s operator registers the Google app (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET).',
  tools: {
    listPlaylists: {
      description: "Lists the channel's playlists (id, title, privacy), for `playlistId`.",
      input: listPlaylistsInput,
      async run(ctx) {
        const { accessToken } = youtubeConfig(ctx.config);
        const { json } = await youtubeApi(ctx, '/playlists?part=snippet,status&mine=true&maxResults=50', { token: accessToken });
        return items(json).map((p) => ({
          id: field(p, 'id'),
          title: field(p, 'snippet', 'title'),
          privacy: field(p, 'status', 'privacyStatus') ?? null,
        }));
      },
    },
    listCategories: {
      description: 'Lists the video categories a video may be given in a country (id, title), for `categoryId`.',
      input: listCategoriesInput,
      async run(ctx, data) {
        const { regionCode, hl } = listCategoriesInput.parse(data);
        const { accessToken } = youtubeConfig(ctx.config);
        const query = new URLSearchParams({ part: 'snippet', regionCode: regionCode.toUpperCase(), ...(hl && { hl }) });
        const { json } = await youtubeApi(ctx, `/videoCategories?${query.toString()}`, { token: accessToken });
        return items(json)
          .filter((c) => field(c, 'snippet', 'assignable') === true)
          .map((c) => ({ id: field(c, 'id'), title: field(c, 'snippet', 'title') }));
      },
    },
  },
  unavailable: googleUnavailable,
  validate: ({ text, media, part, settings, config }) =>
    youtubeProblems(text, media, part, settings, youtubeConfigSchema.shape.longUploadsStatus.safeParse(config.longUploadsStatus).data),
  signIn,
  renewal: {
    due: tokenRenewal.due,
    // With fresh tokens, the channel's long-uploads status is read again: a channel verified since shows as allowed within the hour.
    async renew(ctx, now) {
      const renewed = await tokenRenewal.renew(ctx, now);
      try {
        const status = await channelLongUploads(ctx, String(renewed.accessToken), youtubeConfig(renewed).channelId);
        return status ? { ...renewed, longUploadsStatus: status } : renewed;
      } catch {
        // The tokens are renewed; the status is read again at the next renewal.
        return renewed;
      }
    },
  },
  metrics: youtubeMetrics,
  publish,
  comment,
};
