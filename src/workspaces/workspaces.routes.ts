import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { apiErrorSchema, showorgHeader } from '../http/common.schema.ts';
import { readShoworg } from '../http/showorg.ts';
import { workspaceSchema } from './workspaces.schema.ts';

export const workspacesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/workspaces',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['Workspaces'],
        summary: 'List the workspaces this key can act in',
        description: 'Works without `showorg`. With `showorg`, that workspace is marked `current`; with a single workspace, it is.',
        headers: showorgHeader,
        response: { 200: z.array(workspaceSchema), 401: apiErrorSchema, 403: apiErrorSchema, 429: apiErrorSchema },
      },
    },
    async (request) => app.services.access.workspaces(request.principal!, readShoworg(request)),
  );
};
