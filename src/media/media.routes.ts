import multipart from '@fastify/multipart';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import { validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { operationRoute } from '../http/operation-route.ts';
import { listMedia, uploadFromUrl } from './media.operations.ts';
import { deletedMediaSchema, mediaIdParamsSchema, uploadBodySchema, uploadResultSchema } from './media.schema.ts';
import { receiveOneFile } from './multipart-file.ts';

/**
 * The multipart body is read as a stream by the handler, not parsed up front: its schema
 * describes it for the OpenAPI document only.
 */
export const streamedBodyValidator = <T>(route: FastifyRouteSchemaDef<T>): FastifyValidationResult =>
  route.httpPart === 'body' ? () => ({ value: undefined }) : validatorCompiler(route as unknown as FastifyRouteSchemaDef<z.ZodType>);

export const mediaRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(multipart, { throwFileSizeLimit: false });
  const media = app.services.media;

  app.post(
    '/upload',
    {
      config: { scope: 'media:write' },
      validatorCompiler: streamedBodyValidator,
      schema: {
        tags: ['Media'],
        summary: 'Upload a file to the media library',
        description:
          'multipart/form-data with exactly one part, `file`. Images (JPEG, PNG, GIF, WEBP, AVIF, BMP, TIFF) up to 10 MB, videos (MP4) up to 1 GB; the type is read from the content. Identical content already in the workspace answers with the existing `{id, path}` and stores nothing new. A missing or extra part, an empty file, a refused type, or a file that is not whole (cut off in transfer: an image without its end marker or declared size, a video without its index `moov`, code `truncated_file`) is a 400; a file over its limit is a 413, and nothing is kept.',
        consumes: ['multipart/form-data'],
        headers: showorgHeader,
        body: uploadBodySchema,
        response: { 200: uploadResultSchema, ...authErrors, 413: apiErrorSchema },
      },
    },
    async (request) => {
      const staged = await receiveOneFile(request, {
        maxBytes: media.maxBytes,
        stage: (file, name) => media.stage(file, { name }),
        discard: (s) => media.discard(s),
      });
      const { media: file } = await media.commitFor(request.access!, staged);
      return { id: file.id, path: file.path };
    },
  );

  operationRoute(app, uploadFromUrl);

  operationRoute(app, listMedia);

  app.delete(
    '/media/:id',
    {
      config: { scope: 'media:write' },
      schema: {
        tags: ['Media'],
        summary: 'Delete a file from the media library',
        description:
          "Removes the file and its stored bytes. A file still attached to a post that is not yet published is kept: the answer is a 409 whose `posts` lists those posts. Another workspace's file is a 404, like a missing one.",
        headers: showorgHeader,
        params: mediaIdParamsSchema,
        response: { 200: deletedMediaSchema, ...authErrors, 404: apiErrorSchema, 409: apiErrorSchema },
      },
    },
    async (request) => {
      const deleted = await media.delete(request.access!, request.params.id);
      return { id: deleted.id, deleted: true as const };
    },
  );
};
