import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import type { Clock } from '../lib/clock.ts';
import { apiErrorSchema } from '../http/common.schema.ts';
import { streamedBodyValidator } from './media.routes.ts';
import { uploadBodySchema } from './media.schema.ts';
import { receiveOneFile } from './multipart-file.ts';
import { uploadLinkFileSchema, uploadPageParamsSchema } from './upload-links.schema.ts';
import { closedPageHtml, uploadPageHeaders, uploadPageHtml } from './upload-page.html.ts';

/** Uploads per client address per rate-limit window through upload pages (RATE_LIMIT_ROUTES can change it). */
export const UPLOAD_PAGE_QUOTA = 120;

/**
 * The signed-out upload page behind an upload link. The secret in the URL is the only
 * credential: it can add files to its own workspace and list what came through this link,
 * nothing else. Uploads are rate limited per client address, and capped per link.
 */
export const uploadPageRoutes: FastifyPluginAsyncZod<{ baseUrl: string; clock: Clock }> = async (app, { baseUrl, clock }) => {
  await app.register(multipart, { throwFileSizeLimit: false });
  const links = app.services.uploadLinks;
  const media = app.services.media;
  const headers = uploadPageHeaders(new URL(baseUrl).origin);
  const hidden = { hide: true };

  app.get('/u/:token', { config: { auth: 'none' }, schema: { ...hidden, params: uploadPageParamsSchema } }, async (request, reply) => {
    const { token } = request.params;
    const link = await links.resolve(token);
    reply.headers(headers);
    if (link.state !== 'active') {
      return reply.status(link.state === 'unknown' ? 404 : 410).send(closedPageHtml(link.state));
    }
    return reply.send(
      uploadPageHtml({
        uploadUrl: `/u/${token}/files`,
        filesUrl: `/u/${token}/files`,
        remainingMs: Math.max(0, Date.parse(link.expiresAt) - clock.now().getTime()),
        maxImageBytes: media.limits.maxImageBytes,
        maxVideoBytes: media.limits.maxVideoBytes,
      }),
    );
  });

  app.get(
    '/u/:token/files',
    {
      config: { auth: 'none' },
      schema: {
        ...hidden,
        params: uploadPageParamsSchema,
        response: { 200: z.object({ files: z.array(uploadLinkFileSchema) }), '4xx': apiErrorSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return { files: await links.filesOf(request.params.token) };
    },
  );

  app.post(
    '/u/:token/files',
    {
      config: { auth: 'none', quota: UPLOAD_PAGE_QUOTA },
      validatorCompiler: streamedBodyValidator,
      schema: {
        ...hidden,
        params: uploadPageParamsSchema,
        consumes: ['multipart/form-data'],
        body: uploadBodySchema,
        response: { 200: uploadLinkFileSchema, '4xx': apiErrorSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const declared = Number(request.headers['content-length']);
      // The link is checked before a byte of the file is read.
      const link = await links.admit(request.params.token, Number.isFinite(declared) ? declared : undefined);
      const staged = await receiveOneFile(request, {
        maxBytes: media.maxBytes,
        stage: (file, name) => media.stage(file, { name }),
        discard: (s) => media.discard(s),
      });
      return links.add(link, staged);
    },
  );
};
