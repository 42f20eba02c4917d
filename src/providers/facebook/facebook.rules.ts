import * as z from 'zod';
import { baseUrlNotPublic } from '../platform-apps.ts';
import { lengthProblem, settingsOrNone, type MissingItem, type PublishMedia, type ValidateInput } from '../provider.ts';

/**
 * What a Facebook page takes, as data: `GET /posts/:id/missing` and the last check before sending
 * apply it, and the settings' descriptions (GET /integration-settings/:id) quote it.
 */
export const FACEBOOK_RULES = {
  /** A page post's text (Facebook's documented 63,206 characters) and a comment's. */
  text: 63_206,
  comment: 8000,
  /** Photos up to 4 MB (Facebook's Page photo rule), up to 10 in one post (attached as unpublished photos). */
  photo: { mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/bmp', 'image/tiff'], maxBytes: 4 * 1024 * 1024, max: 10 },
  /**
   * Page videos. Fetched by Facebook from Herald's media URL (`file_url`, "up to 1 GB and 20
   * minutes") up to `chunkedAbove`; larger ones are sent by Herald through the resumable upload,
   * which Meta recommends for large videos (Graph API "Uploading Videos": 1.75 GB and 45 minutes in
   * the older page, 10 GB and 4 hours in the newer; Herald keeps to the lower figure). The
   * threshold is Herald's choice: Facebook must fetch a `file_url` within 5 minutes, which a large
   * file from a small server may not make, while a small one is cheaper fetched than sent.
   */
  video: { mimeTypes: ['video/mp4', 'video/quicktime'], maxBytes: 1792 * 1024 * 1024, chunkedAbove: 8 * 1024 * 1024 },
  /**
   * Reels (Reels Publishing API, "Video Specifications"): MP4, 9:16, at least 540×960, 3 to 90
   * seconds. An older version of the same page said 4 to 60 seconds; the current one says 3 to 90,
   * which Herald follows. Facebook limits a page to 30 API-published reels in a rolling 24 hours.
   */
  reel: { mimeTypes: ['video/mp4'], aspect: 9 / 16, minWidth: 540, minHeight: 960, seconds: [3, 90] as const, perDay: 30 },
} as const;

export const IMAGE_TYPES: readonly string[] = FACEBOOK_RULES.photo.mimeTypes;
export const VIDEO_TYPES: readonly string[] = FACEBOOK_RULES.video.mimeTypes;

const { reel } = FACEBOOK_RULES;

export const facebookSettingsSchema = z.object({
  type: z
    .enum(['post', 'reel'])
    .optional()
    .describe(
      `\`post\` (default): text, a link, up to ${FACEBOOK_RULES.photo.max} photos or one video. \`reel\`: one vertical video published as a Facebook reel (the text is its description): MP4, 9:16, at least ${reel.minWidth}×${reel.minHeight} pixels, ${reel.seconds[0]} to ${reel.seconds[1]} seconds; Facebook publishes up to ${reel.perDay} reels a page in 24 hours through the API.`,
    ),
  link: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('A link shared with the post (Facebook shows its preview). Not with photos, a video or a reel.'),
});
export type FacebookSettings = z.infer<typeof facebookSettingsSchema>;

type Media = Pick<PublishMedia, 'mimeType' | 'size' | 'name' | 'width' | 'height' | 'durationMs'>;

/** Why Facebook would refuse this reel's video; null when it would not (unknown dimensions or length leave it to Facebook). */
function reelProblem(video: Media): string | null {
  if (!(reel.mimeTypes as readonly string[]).includes(video.mimeType))
    return `${video.name} is ${video.mimeType}; Facebook reels are MP4 videos.`;
  if (video.width && video.height) {
    if (Math.abs(video.width / video.height - reel.aspect) > 0.01)
      return `${video.name} is ${video.width}×${video.height}; Facebook reels are vertical 9:16 videos.`;
    if (video.width < reel.minWidth || video.height < reel.minHeight)
      return `${video.name} is ${video.width}×${video.height}; Facebook reels are at least ${reel.minWidth}×${reel.minHeight} pixels.`;
  }
  return lengthProblem(video, reel.seconds, 'Facebook takes reels');
}

/** Everything Facebook would refuse in this part, as missing items. */
export function facebookProblems(input: ValidateInput): MissingItem[] {
  const { text, media, part } = input;
  const where = `value[${part}]`;
  const settings = settingsOrNone(facebookSettingsSchema, input.settings);
  const missing: MissingItem[] = [];
  const videos = media.filter((m) => VIDEO_TYPES.includes(m.mimeType));
  if (part > 0) {
    if (media.length > 1 || videos.length > 0)
      missing.push({ field: `${where}.image`, reason: 'A Facebook comment takes one image at most, and no video.' });
    const length = [...text].length;
    if (length > FACEBOOK_RULES.comment)
      missing.push({
        field: `${where}.content`,
        reason: `The comment is ${length} characters long; Facebook comments take ${FACEBOOK_RULES.comment}.`,
      });
    return missing;
  }
  if (settings.type === 'reel') {
    if (media.length !== 1 || videos.length !== 1)
      missing.push({ field: `${where}.image`, reason: 'A Facebook reel is one video, alone.' });
    else {
      const problem = reelProblem(videos[0]!);
      if (problem) missing.push({ field: `${where}.image[0]`, reason: problem });
    }
    if (settings.link) missing.push({ field: 'settings.link', reason: 'A Facebook reel takes no link; remove it.' });
    // Herald uploads a reel's bytes itself: BASE_URL need not be public.
    return missing;
  }
  if (videos.length > 0 && media.length > 1)
    missing.push({ field: `${where}.image`, reason: 'Facebook posts one video alone, or up to 10 photos.' });
  if (media.length > FACEBOOK_RULES.photo.max)
    missing.push({ field: `${where}.image`, reason: `Facebook posts up to ${FACEBOOK_RULES.photo.max} photos at once.` });
  media.forEach((m) => {
    if (IMAGE_TYPES.includes(m.mimeType) && m.size > FACEBOOK_RULES.photo.maxBytes)
      missing.push({ field: `${where}.image`, reason: `A photo is ${m.size} bytes; Facebook takes photos up to 4 MB.` });
  });
  if (settings.link && media.length > 0)
    missing.push({
      field: 'settings.link',
      reason: 'Facebook shows a link preview only on a post without photos or video; remove one.',
    });
  // Photos and videos up to the chunked threshold are fetched by Facebook from Herald's media URL.
  if (media.some((m) => !VIDEO_TYPES.includes(m.mimeType) || m.size <= FACEBOOK_RULES.video.chunkedAbove)) {
    const notPublic = baseUrlNotPublic(input.platformApps);
    if (notPublic) missing.push({ field: `${where}.image`, reason: notPublic });
  }
  return missing;
}
