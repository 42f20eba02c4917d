import * as z from 'zod';
import { baseUrlNotPublic } from '../platform-apps.ts';
import { lengthProblem, settingsOrNone, type MissingItem, type PublishMedia, type ValidateInput } from '../provider.ts';

/**
 * Instagram's publishing rules (Content Publishing guide and IG User Media reference), as data:
 * `GET /posts/:id/missing` and the last check before sending apply them.
 */
export const INSTAGRAM_RULES = {
  caption: { max: 2200, hashtags: 30, mentions: 20 },
  image: { mimeTypes: ['image/jpeg'], maxBytes: 8 * 1024 * 1024, minAspect: 4 / 5, maxAspect: 1.91 },
  reel: { mimeTypes: ['video/mp4', 'video/quicktime'], maxBytes: 300 * 1024 * 1024, seconds: [3, 15 * 60] },
  story: { videoMaxBytes: 100 * 1024 * 1024, seconds: [3, 60] },
  /** A carousel's items; its videos follow the reference's video specifications (not the reels'): 100 MB, 3 to 60 seconds. */
  carousel: { min: 2, max: 10, videoMaxBytes: 100 * 1024 * 1024, videoSeconds: [3, 60] },
  collaborators: 3,
  /** People tagged on one image (Instagram's app allows 20); x and y from the top-left corner, 0 to 1. */
  userTags: 20,
  /** A reel's cover image (`cover_url`): JPEG, up to 8 MB, like a feed image. */
  cover: { mimeTypes: ['image/jpeg'], maxBytes: 8 * 1024 * 1024 },
} as const;

export const IMAGE_TYPES: readonly string[] = INSTAGRAM_RULES.image.mimeTypes;
export const VIDEO_TYPES: readonly string[] = INSTAGRAM_RULES.reel.mimeTypes;

export const instagramSettingsSchema = z.object({
  postType: z
    .enum(['post', 'reel', 'story'])
    .optional()
    .describe(
      '`post` (default): one image, or a carousel of 2 to 10 images and videos (a single video goes out as a reel); `reel`: one video; `story`: one image or video (no caption).',
    ),
  collaborators: z
    .array(z.string().regex(/^[A-Za-z0-9._]{1,30}$/, 'an Instagram username, without @'))
    .max(INSTAGRAM_RULES.collaborators)
    .optional()
    .describe('Up to 3 Instagram usernames invited as collaborators (posts and reels; they must accept on Instagram).'),
  location: z
    .string()
    .regex(/^\d{1,30}$/, 'the numeric id of a Facebook page with a location')
    .optional()
    .describe('A location: the id of a Facebook page that has a location (Instagram shows it on the post).'),
  shareToFeed: z.boolean().optional().describe('Reels: also show the reel in the main feed (default true).'),
  alt: z
    .record(z.string(), z.string().max(1000))
    .optional()
    .describe('Alt text for images of posts and carousels, keyed by the media id (or its URL).'),
  userTags: z
    .array(
      z.object({
        username: z.string().regex(/^[A-Za-z0-9._]{1,30}$/, 'an Instagram username, without @'),
        x: z.number().min(0).max(1).describe('From the left edge (0) to the right edge (1).'),
        y: z.number().min(0).max(1).describe('From the top edge (0) to the bottom edge (1).'),
        media: z
          .string()
          .min(1)
          .max(2000)
          .optional()
          .describe('On a carousel, the id (or URL) of the image the person is tagged on; required there.'),
      }),
    )
    .max(INSTAGRAM_RULES.userTags * INSTAGRAM_RULES.carousel.max)
    .optional()
    .describe(
      `People tagged on the post's image, or on a carousel's images (each tag naming its image in \`media\`): a username and where on the image (x, y from the top-left corner, 0 to 1). Up to ${INSTAGRAM_RULES.userTags} on an image; not on videos, reels or stories. Instagram notifies them.`,
    ),
  cover: z
    .string()
    .min(1)
    .max(2000)
    .optional()
    .describe(
      "Reels: the id (or URL) of a JPEG image attached to the post beside the video, shown as the reel's cover (`cover_url`); that image is not posted itself.",
    ),
  coverOffsetMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Reels: the frame used as the cover, in milliseconds from the start (`thumb_offset`), when no cover image is given.'),
});
export type InstagramSettings = z.infer<typeof instagramSettingsSchema>;

type Media = Pick<PublishMedia, 'id' | 'url' | 'mimeType' | 'size' | 'width' | 'height' | 'name' | 'durationMs'>;

/** Whether `ref` (a setting's media id or URL) names this item. */
export const names = (ref: string | undefined, item: Pick<PublishMedia, 'id' | 'url'>) => ref === item.id || ref === item.url;

/** The reel's cover image (settings.cover) among the attached media, if it is there. */
export function coverOf<M extends Pick<PublishMedia, 'id' | 'url'>>(settings: InstagramSettings, media: readonly M[]): M | undefined {
  return settings.cover === undefined ? undefined : media.find((m) => names(settings.cover, m));
}

/** The media that is posted: all of it but the reel's cover image. */
export function postedMedia<M extends Pick<PublishMedia, 'id' | 'url'>>(settings: InstagramSettings, media: readonly M[]): M[] {
  const cover = coverOf(settings, media);
  return media.filter((m) => m !== cover);
}

/** The people tagged on one image: the tags naming it, or on a post of one image those naming none. */
export function tagsOn(settings: InstagramSettings, item: Pick<PublishMedia, 'id' | 'url'>, alone: boolean) {
  return (settings.userTags ?? []).filter((tag) => names(tag.media, item) || (alone && tag.media === undefined));
}

/** What the post is sent as, from its settings and media (without the reel's cover image). */
export function instagramShape(settings: InstagramSettings, media: readonly Media[]): 'image' | 'carousel' | 'reel' | 'story' {
  if (settings.postType === 'story') return 'story';
  if (settings.postType === 'reel') return 'reel';
  if (media.length > 1) return 'carousel';
  return media[0] && VIDEO_TYPES.includes(media[0].mimeType) ? 'reel' : 'image';
}

function count(text: string, re: RegExp): number {
  return (text.match(re) ?? []).length;
}

function imageProblem(m: Media): string | null {
  if (!IMAGE_TYPES.includes(m.mimeType)) return `${m.name} is ${m.mimeType}; Instagram takes JPEG images.`;
  if (m.size > INSTAGRAM_RULES.image.maxBytes) return `${m.name} is ${m.size} bytes; Instagram takes images up to 8 MB.`;
  if (m.width && m.height) {
    const ratio = m.width / m.height;
    if (ratio < INSTAGRAM_RULES.image.minAspect - 0.005 || ratio > INSTAGRAM_RULES.image.maxAspect + 0.005)
      return `${m.name} is ${m.width}×${m.height}; Instagram takes images from 4:5 (portrait) to 1.91:1 (landscape).`;
  }
  return null;
}

/** What is wrong with the people tagged and the reel's cover, for a post sent as `shape`. */
function extrasProblems(settings: InstagramSettings, all: readonly Media[], shape: ReturnType<typeof instagramShape>): MissingItem[] {
  const missing: MissingItem[] = [];
  const media = postedMedia(settings, all);
  const tags = settings.userTags ?? [];
  if (tags.length > 0 && (shape === 'reel' || shape === 'story'))
    missing.push({ field: 'settings.userTags', reason: 'Herald tags people on images and carousel images only, not on reels or stories.' });
  else
    tags.forEach((tag, i) => {
      const item = shape === 'image' && tag.media === undefined ? media[0] : media.find((m) => names(tag.media, m));
      if (!item)
        missing.push({
          field: `settings.userTags.${i}.media`,
          reason:
            tag.media === undefined
              ? `On a carousel, the tag of @${tag.username} must name the image it goes on (its media id).`
              : `The tag of @${tag.username} names media that is not among this post's images.`,
        });
      else if (!IMAGE_TYPES.includes(item.mimeType))
        missing.push({ field: `settings.userTags.${i}.media`, reason: `Instagram tags people on images; ${item.name} is a video.` });
    });
  media.forEach((item) => {
    const count = tagsOn(settings, item, shape === 'image').length;
    if (count > INSTAGRAM_RULES.userTags)
      missing.push({
        field: 'settings.userTags',
        reason: `${item.name} has ${count} people tagged; Instagram takes ${INSTAGRAM_RULES.userTags}.`,
      });
  });
  const cover = coverOf(settings, all);
  if (settings.cover !== undefined) {
    if (!cover) missing.push({ field: 'settings.cover', reason: "The cover image must be attached to the post beside the reel's video." });
    else if (shape !== 'reel') missing.push({ field: 'settings.cover', reason: 'A cover image goes with a reel only.' });
    else if (!(INSTAGRAM_RULES.cover.mimeTypes as readonly string[]).includes(cover.mimeType))
      missing.push({ field: 'settings.cover', reason: `${cover.name} is ${cover.mimeType}; Instagram takes JPEG reel covers.` });
    else if (cover.size > INSTAGRAM_RULES.cover.maxBytes)
      missing.push({ field: 'settings.cover', reason: `${cover.name} is ${cover.size} bytes; Instagram takes reel covers up to 8 MB.` });
    if (settings.coverOffsetMs !== undefined)
      missing.push({ field: 'settings.coverOffsetMs', reason: 'Give a cover image or a cover frame, not both.' });
  } else if (settings.coverOffsetMs !== undefined) {
    const video = media[0];
    if (shape !== 'reel') missing.push({ field: 'settings.coverOffsetMs', reason: 'A cover frame goes with a reel only.' });
    else if (video?.durationMs !== null && video?.durationMs !== undefined && settings.coverOffsetMs > video.durationMs)
      missing.push({
        field: 'settings.coverOffsetMs',
        reason: `The cover frame is at ${settings.coverOffsetMs} ms; ${video.name} lasts ${video.durationMs} ms.`,
      });
  }
  return missing;
}

/** Everything Instagram would refuse in this part, as missing items. */
export function instagramProblems(input: ValidateInput): MissingItem[] {
  const { text, part } = input;
  const where = `value[${part}]`;
  const settings: InstagramSettings = settingsOrNone(instagramSettingsSchema, input.settings);
  const media = postedMedia(settings, input.media);
  const missing: MissingItem[] = [];
  const hashtags = count(text, /(^|\s)#[\p{L}\p{N}_]+/gu);
  const mentions = count(text, /(^|\s)@[A-Za-z0-9._]+/g);
  if (hashtags > INSTAGRAM_RULES.caption.hashtags)
    missing.push({ field: `${where}.content`, reason: `The text has ${hashtags} hashtags; Instagram allows 30.` });
  else if (mentions > INSTAGRAM_RULES.caption.mentions)
    missing.push({ field: `${where}.content`, reason: `The text mentions ${mentions} accounts; Instagram allows 20.` });

  if (part > 0) {
    if (settings.postType === 'story') missing.push({ field: `${where}.content`, reason: 'Instagram stories take no comments.' });
    if (media.length > 0) missing.push({ field: `${where}.image`, reason: 'Instagram comments are text only.' });
    return missing;
  }

  const shape = instagramShape(settings, media);
  const videos = media.filter((m) => VIDEO_TYPES.includes(m.mimeType));
  if (media.length === 0) missing.push({ field: `${where}.image`, reason: 'Instagram needs an image or a video for every post.' });
  else if (shape === 'reel') {
    if (media.length !== 1 || videos.length !== 1)
      missing.push({ field: `${where}.image`, reason: 'A reel is one video (MP4 or MOV), alone.' });
    else if (videos[0]!.size > INSTAGRAM_RULES.reel.maxBytes)
      missing.push({ field: `${where}.image[0]`, reason: `The video is ${videos[0]!.size} bytes; Instagram takes reels up to 300 MB.` });
    else {
      const problem = lengthProblem(videos[0]!, INSTAGRAM_RULES.reel.seconds, 'Instagram takes reels');
      if (problem) missing.push({ field: `${where}.image[0]`, reason: problem });
    }
  } else if (shape === 'story') {
    if (media.length !== 1) missing.push({ field: `${where}.image`, reason: 'A story is one image or one video.' });
    else if (videos.length === 1 && videos[0]!.size > INSTAGRAM_RULES.story.videoMaxBytes)
      missing.push({
        field: `${where}.image[0]`,
        reason: `The video is ${videos[0]!.size} bytes; Instagram takes story videos up to 100 MB.`,
      });
    else if (videos.length === 1) {
      const problem = lengthProblem(videos[0]!, INSTAGRAM_RULES.story.seconds, 'Instagram takes story videos');
      if (problem) missing.push({ field: `${where}.image[0]`, reason: problem });
    } else if (videos.length === 0) {
      const problem = imageProblem(media[0]!);
      if (problem) missing.push({ field: `${where}.image[0]`, reason: problem });
    }
    if (text.trim() !== '')
      missing.push({ field: `${where}.content`, reason: 'Instagram stories show no caption; remove the text or post it as a post.' });
    if (settings.collaborators?.length) missing.push({ field: 'settings.collaborators', reason: 'Stories take no collaborators.' });
  } else {
    if (media.length > INSTAGRAM_RULES.carousel.max)
      missing.push({ field: `${where}.image`, reason: `A carousel takes 2 to 10 images and videos; this post has ${media.length}.` });
    media.forEach((m, i) => {
      if (VIDEO_TYPES.includes(m.mimeType)) {
        const problem =
          m.size > INSTAGRAM_RULES.carousel.videoMaxBytes
            ? `${m.name} is ${m.size} bytes; Instagram takes carousel videos up to 100 MB.`
            : lengthProblem(m, INSTAGRAM_RULES.carousel.videoSeconds, 'Instagram takes carousel videos');
        if (problem) missing.push({ field: `${where}.image[${i}]`, reason: problem });
        return;
      }
      const problem = imageProblem(m);
      if (problem) missing.push({ field: `${where}.image[${i}]`, reason: problem });
    });
  }
  if (media.length > 0) missing.push(...extrasProblems(settings, input.media, shape));
  if (media.length > 0) {
    const notPublic = baseUrlNotPublic(input.platformApps);
    if (notPublic) missing.push({ field: `${where}.image`, reason: notPublic });
  }
  return missing;
}
