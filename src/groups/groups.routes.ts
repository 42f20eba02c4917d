import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { authErrors, showorgHeader } from '../http/common.schema.ts';
import { clientGroupSchema } from './groups.schema.ts';

export const groupsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/groups',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags: ['Channels'],
        summary: 'List client groups',
        headers: showorgHeader,
        response: { 200: z.array(clientGroupSchema), ...authErrors },
      },
    },
    async (request) => app.services.groups.list(request.access!),
  );
};
