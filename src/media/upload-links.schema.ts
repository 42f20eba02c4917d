import * as z from 'zod';
import { count } from '../http/common.schema.ts';
import { mediaKindSchema } from './media.schema.ts';

export const uploadLinkSchema = z
  .object({
    id: z.string().describe('The link ID; read what arrived with GET /upload-link/{id}.'),
    url: z.url().describe('The page for a person to open; works signed out, from a phone too.'),
    expiresAt: z.iso.datetime().describe('Two hours after creation (UTC).'),
  })
  .meta({ id: 'UploadLink' });

export const uploadLinkFileSchema = z
  .object({
    id: z.string().describe('The media ID.'),
    name: z.string().describe('The name the person gave the file.'),
    path: z.url().describe('The hosted URL; what is attached to a post.'),
    type: mediaKindSchema,
  })
  .meta({ id: 'UploadLinkFile' });

export const uploadLinkContentsSchema = z
  .object({
    id: z.string().describe('The link ID.'),
    status: z.enum(['empty', 'ready']).describe('`empty` until the first file arrives; not an error: ask the person and query again.'),
    count: count().describe('Number of files.'),
    files: z.array(uploadLinkFileSchema).describe('Oldest first.'),
  })
  .meta({ id: 'UploadLinkContents' });

export const uploadLinkParamsSchema = z.object({ id: z.string().min(1).max(200).describe('The link ID, from the create response.') });

export const uploadPageParamsSchema = z.object({ token: z.string().min(1).max(200) });
