import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
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
    async (request) => {
      const { access } = app.services;
      const principal = request.principal!;
      const memberships = await access.memberships(principal);
      const selected = readShoworg(request);
      const current = selected !== undefined || memberships.length === 1 ? (await access.select(principal, selected)).workspace.id : null;
      return memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role, current: m.workspace.id === current, apiAccess: m.workspace.plan.apiAccess }));
    },
  );
};
