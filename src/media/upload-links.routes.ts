import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authErrors, showorgHeader } from '../http/common.schema.ts';
import { uploadLinkContentsSchema, uploadLinkParamsSchema, uploadLinkSchema } from './upload-links.schema.ts';

export const uploadLinksRoutes: FastifyPluginAsyncZod = async (app) => {
  const links = app.services.uploadLinks;

  app.post(
    '/upload-link',
    {
      config: { scope: 'media:write' },
      schema: {
        tags: ['Media'],
        summary: 'Create a browser upload link',
        description:
          'A page where a person without an account can drop files into this workspace\'s library, for two hours. Its secret URL can only add files to this workspace: it cannot read the rest of the library or post. It stops working early if the credential that made it is revoked (this API key, or the app\'s access for an OAuth token) or its user can no longer upload here.',
        headers: showorgHeader,
        response: { 201: uploadLinkSchema, ...authErrors },
      },
    },
    async (request, reply) => reply.status(201).send(await links.create(request.access!)),
  );

  app.get(
    '/upload-link/:id',
    {
      config: { scope: 'media:write' },
      schema: {
        tags: ['Media'],
        summary: 'Read what arrived through an upload link',
        description:
          '`empty` until the first file arrives: that is not an error, ask the person and query again. Files are listed oldest first. A link of another workspace answers like an empty one.',
        headers: showorgHeader,
        params: uploadLinkParamsSchema,
        response: { 200: uploadLinkContentsSchema, ...authErrors },
      },
    },
    async (request) => links.contents(request.access!, request.params.id),
  );
};
