import * as z from 'zod';
import { baseUrlNotPublic, type PlatformApps } from '../platform-apps.ts';
import { lengthProblem, type MissingItem, type PublishMedia } from '../provider.ts';

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
});
export type InstagramSettings = z.infer<typeof instagramSettingsSchema>;

type Media = Pick<PublishMedia, 'mimeType' | 'size' | 'width' | 'height' | 'name' | 'durationMs'>;

/** What the post is sent as, from its settings and media. */
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

/** Everything Instagram would refuse in this part, as missing items. */
export function instagramProblems(input: {
  text: string;
  media: readonly Media[];
  settings: Record<string, unknown>;
  part: number;
  platformApps: PlatformApps;
}): MissingItem[] {
  const { text, media, part } = input;
  const where = `value[${part}]`;
  const parsed = instagramSettingsSchema.safeParse(input.settings);
  const settings: InstagramSettings = parsed.success ? parsed.data : {};
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
  if (media.length > 0) {
    const notPublic = baseUrlNotPublic(input.platformApps);
    if (notPublic) missing.push({ field: `${where}.image`, reason: notPublic });
  }
  return missing;
}
