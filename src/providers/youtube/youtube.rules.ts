import * as z from 'zod';
import { lengthProblem, spokenLength, type MissingItem, type PublishMedia } from '../provider.ts';

/** YouTube's rules as data (YouTube Data API v3, videos.insert and the Videos resource). */
export const YOUTUBE_RULES = {
  titleMax: 100,
  /** The description is the post's text, counted in UTF-8 bytes. */
  descriptionMaxBytes: 5000,
  /** All tags together, counted as YouTube counts them (see `tagsLength`). */
  tagsMax: 500,
  /** A comment's text (commentThreads.insert, comments.insert). */
  commentMax: 10_000,
  videoTypes: ['video/mp4', 'video/quicktime', 'video/webm'],
  videoMaxBytes: 256 * 1024 ** 3,
  /** thumbnails.set: JPEG or PNG up to 2 MB. */
  thumbnailTypes: ['image/jpeg', 'image/png'],
  thumbnailMaxBytes: 2 * 1024 * 1024,
  /** Since 15 October 2024 a square or vertical video of up to three minutes is a Short; the API has no flag for it. */
  shortsMaxSeconds: 180,
  /** Longer videos need a channel YouTube allows long uploads (channels resource: `status.longUploadsStatus` is `allowed`). */
  longUploadSeconds: 15 * 60,
} as const;

/** A channel's `status.longUploadsStatus` (YouTube Data API v3, channels resource). */
export const LONG_UPLOADS_STATUSES = ['allowed', 'eligible', 'disallowed', 'longUploadsUnspecified'] as const;
export type LongUploadsStatus = (typeof LONG_UPLOADS_STATUSES)[number];

/**
 * Why a video over 15 minutes cannot go to a channel with this long-uploads status, in words saying
 * what to do; null when it can, or when the status is not known (YouTube then decides).
 */
export function longUploadProblem(video: Pick<PublishMedia, 'name' | 'durationMs'>, status: LongUploadsStatus | undefined): string | null {
  if (status === undefined || status === 'allowed') return null;
  if (video.durationMs === null || video.durationMs === undefined || video.durationMs <= YOUTUBE_RULES.longUploadSeconds * 1000)
    return null;
  const length = `${video.name} lasts ${spokenLength(video.durationMs / 1000)}`;
  if (status === 'disallowed')
    return `${length}; YouTube does not allow this channel videos longer than 15 minutes (its long uploads are disallowed, which verifying does not change: see support.google.com/youtube/answer/71673). Shorten the video or post it to another channel.`;
  return `${length}; this channel may upload videos of up to 15 minutes until it is verified. Verify it at https://www.youtube.com/verify, then publish again (Herald reads the channel's status again when it renews its access, within the hour, or when the channel is connected again).`;
}

const ANGLE_BRACKETS = /[<>]/;

/** Tags' length as YouTube counts it: each tag, two more for one with a space (it is quoted), and a comma between tags. */
export function tagsLength(tags: readonly string[]): number {
  return tags.reduce((n, tag) => n + [...tag].length + (/\s/.test(tag) ? 2 : 0), 0) + Math.max(0, tags.length - 1);
}

export const youtubeSettingsSchema = z.object({
  title: z
    .string()
    .trim()
    .min(1, 'YouTube needs a title.')
    .max(YOUTUBE_RULES.titleMax, `YouTube titles take up to ${YOUTUBE_RULES.titleMax} characters.`)
    .refine((t) => !ANGLE_BRACKETS.test(t), 'YouTube does not allow < or > in a title.')
    .describe(`The video's title (required), up to ${YOUTUBE_RULES.titleMax} characters, without < or >.`),
  privacy: z
    .enum(['public', 'private', 'unlisted'])
    .describe(
      'Who can watch (required): `public`, `unlisted` (anyone with the link) or `private`. Videos uploaded through a Google project YouTube has not audited stay private whatever is asked.',
    ),
  madeForKids: z
    .boolean()
    .describe('Whether the video is made for children (required by YouTube and by the US COPPA rules; YouTube may override it).'),
  categoryId: z
    .string()
    .regex(/^\d{1,4}$/, "a category's numeric id (the `listCategories` tool lists them)")
    .optional()
    .describe("The video category's id (the `listCategories` tool lists the assignable ones); YouTube's default when left out."),
  tags: z
    .array(z.string().trim().min(1).max(YOUTUBE_RULES.tagsMax))
    .max(100)
    .refine(
      (tags) => tagsLength(tags) <= YOUTUBE_RULES.tagsMax,
      `YouTube takes tags of up to ${YOUTUBE_RULES.tagsMax} characters in all (a comma between tags counts, and a tag with a space counts two more for its quotes).`,
    )
    .refine((tags) => tags.every((t) => !ANGLE_BRACKETS.test(t)), 'YouTube does not allow < or > in tags.')
    .optional()
    .describe(`Keywords, up to ${YOUTUBE_RULES.tagsMax} characters in all.`),
  playlistId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, "a playlist's id (the `listPlaylists` tool lists them)")
    .optional()
    .describe('A playlist of the channel to add the video to (the `listPlaylists` tool lists them).'),
  notifySubscribers: z.boolean().optional().describe("Whether YouTube tells the channel's subscribers about the video (default: yes)."),
  short: z
    .boolean()
    .optional()
    .describe(
      `Meant as a Short: YouTube makes one of a square or vertical video of up to ${YOUTUBE_RULES.shortsMaxSeconds / 60} minutes (its API has no flag for it); Herald checks that the video qualifies.`,
    ),
});
export type YouTubeSettings = z.infer<typeof youtubeSettingsSchema>;

type Media = Pick<PublishMedia, 'mimeType' | 'size' | 'width' | 'height' | 'name' | 'durationMs'>;

/** The post's video and its optional thumbnail (an image beside the video). */
export function splitMedia<M extends Pick<PublishMedia, 'mimeType'>>(media: readonly M[]): { videos: M[]; images: M[] } {
  return { videos: media.filter((m) => m.mimeType.startsWith('video/')), images: media.filter((m) => m.mimeType.startsWith('image/')) };
}

/** What YouTube would refuse in a part: part 0 is the video (one video, at most one thumbnail image, a description without < >), later parts comments. */
export function youtubeProblems(
  text: string,
  media: readonly Media[],
  part: number,
  settings: Record<string, unknown> = {},
  longUploads?: LongUploadsStatus,
): MissingItem[] {
  const where = `value[${part}]`;
  const missing: MissingItem[] = [];
  if (part > 0) {
    if (media.length > 0) missing.push({ field: `${where}.image`, reason: 'YouTube comments are text only; remove the files.' });
    if (text.trim() === '') missing.push({ field: `${where}.content`, reason: 'A YouTube comment needs text.' });
    const length = [...text].length;
    if (length > YOUTUBE_RULES.commentMax)
      missing.push({ field: `${where}.content`, reason: `The comment is ${length} characters long; YouTube takes 10,000.` });
    return missing;
  }
  if (ANGLE_BRACKETS.test(text))
    missing.push({ field: `${where}.content`, reason: 'YouTube does not allow < or > in a description; write them another way.' });
  const { videos, images } = splitMedia(media);
  if (videos.length !== 1)
    missing.push({
      field: `${where}.image`,
      reason:
        videos.length === 0 ? 'YouTube needs a video (MP4, MOV or WebM).' : `YouTube takes one video per post; there are ${videos.length}.`,
    });
  const [video] = videos;
  if (video && videos.length === 1) {
    const problem = longUploadProblem(video, longUploads);
    if (problem) missing.push({ field: `${where}.image[${media.indexOf(video)}]`, reason: problem });
  }
  if (settings.short === true && video && videos.length === 1) {
    // A Short is what YouTube makes of a square or vertical video short enough; a length or shape it does not know is left to YouTube.
    const at = `${where}.image[${media.indexOf(video)}]`;
    if (video.width && video.height && video.width > video.height)
      missing.push({ field: at, reason: `${video.name} is ${video.width}×${video.height}; a Short is a square or vertical video.` });
    const problem = lengthProblem(video, [0, YOUTUBE_RULES.shortsMaxSeconds], 'YouTube makes Shorts of videos');
    if (problem) missing.push({ field: at, reason: problem });
  }
  if (images.length > 1) missing.push({ field: `${where}.image`, reason: 'Beside the video, YouTube takes one image, as its thumbnail.' });
  images.forEach((image) => {
    if (!(YOUTUBE_RULES.thumbnailTypes as readonly string[]).includes(image.mimeType))
      missing.push({ field: `${where}.image`, reason: `A YouTube thumbnail is a JPEG or PNG; ${image.name} is ${image.mimeType}.` });
    else if (image.size > YOUTUBE_RULES.thumbnailMaxBytes)
      missing.push({ field: `${where}.image`, reason: `A YouTube thumbnail takes up to 2 MB; ${image.name} is ${image.size} bytes.` });
  });
  return missing;
}
