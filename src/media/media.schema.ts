import * as z from 'zod';
import { count, wholeNumber } from '../http/common.schema.ts';

/** The longest video length Herald records (about 24.8 days): a movie header claiming more is taken as unknown. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

export const uploadResultSchema = z
  .object({
    id: z.string().describe('The media ID.'),
    path: z.url().describe('The hosted URL of the file; attach it to posts as an `image` value.'),
  })
  .meta({
    id: 'UploadResult',
    description: 'A file in the media library. Identical content already in the workspace answers with the existing file.',
  });

export const uploadBodySchema = z
  .object({
    file: z
      .file()
      .describe(
        'The file: JPEG, PNG, GIF, WEBP, AVIF, BMP or TIFF up to 10 MB, or MP4 up to 1 GB. Its type is read from its content, never from its name.',
      ),
  })
  .describe('multipart/form-data with exactly one part, named `file`.');

export const uploadFromUrlBodySchema = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
    .max(2048)
    .describe(
      'A public http or https URL. Addresses of local or internal networks are refused; redirects are followed (at most 3), each checked again.',
    ),
});

export const mediaKindSchema = z.enum(['image', 'video']).describe('`image` or `video`.');

export const mediaSchema = z
  .object({
    id: z.string(),
    name: z.string().describe('The name the file was uploaded with.'),
    path: z.url().describe('The hosted URL; what posts attach.'),
    type: mediaKindSchema,
    mimeType: z.string().describe("The content type, read from the file's content."),
    size: wholeNumber(1, 1024 ** 3).describe('Bytes (at most 10 MB for an image, 1 GB for a video).'),
    width: wholeNumber(1, 2 ** 31 - 1)
      .nullable()
      .describe('Pixels, when cheap to read from the file; otherwise null.'),
    height: wholeNumber(1, 2 ** 31 - 1)
      .nullable()
      .describe('Pixels, when cheap to read from the file; otherwise null.'),
    durationMs: wholeNumber(0, MAX_DURATION_MS)
      .nullable()
      .describe("A video's length in milliseconds, read from its movie header when it was stored; null for images and when unknown."),
    createdAt: z.iso.datetime().describe('When it entered the library (UTC).'),
    uploadLinkId: z.string().nullable().describe('The upload link it first arrived through, if any.'),
  })
  .meta({ id: 'Media' });

export const listMediaQuerySchema = z.object({
  page: z.coerce
    .number()
    .int()
    .min(0)
    .max(9_999)
    .default(0)
    .describe('Page number, from zero; a listing reaches the newest 10,000 files, so (page + 1) × pageSize is at most 10,000.'),
  pageSize: z.coerce.number().int().min(1).max(100).default(20).describe('Files per page (1 to 100).'),
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Only files whose name contains this text, in any case (`%` and `_` are plain characters); `total` and `pages` count those.'),
});

export const mediaPageSchema = z
  .object({
    results: z.array(mediaSchema).describe('Newest first.'),
    page: wholeNumber(0, 9_999),
    pageSize: wholeNumber(1, 100),
    pages: count().describe('Number of pages that can be read (of the newest 10,000 files).'),
    total: count().describe('Number of files in the library.'),
  })
  .meta({ id: 'MediaPage' });

export const mediaIdParamsSchema = z.object({ id: z.string().min(1).max(200).describe('The media ID.') });

export const deletedMediaSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeletedMedia' });
