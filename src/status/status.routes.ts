import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { roleSchema } from '../auth/scopes.ts';
import { apiErrorSchema } from '../http/common.schema.ts';
import { readShoworg } from '../http/showorg.ts';
import type { Clock } from '../lib/clock.ts';
import { statusSchema } from './status.schema.ts';
import { buildStatus } from './status.service.ts';

const connectionCheckSchema = z
  .object({
    connected: z.boolean(),
    workspace: z
      .object({ id: z.string(), name: z.string() })
      .optional()
      .describe('The workspace the request acted on (only when connected).'),
    role: roleSchema.optional().describe("The key's owner's role in that workspace (only when connected)."),
    scopes: z
      .array(z.string())
      .optional()
      .describe("The scopes the key may use there: its own, within its owner's role (only when connected)."),
  })
  .meta({ id: 'ConnectionCheck' });

export const statusRoutes: FastifyPluginAsyncZod<{ baseUrl: string; clock: Clock }> = async (app, { baseUrl, clock }) => {
  app.get(
    '/status',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['Service'],
        summary: 'What this service is and how to use it',
        description: 'Works without any credential. Its `time` is the authoritative clock for scheduling.',
        security: [],
        response: { 200: statusSchema, 429: apiErrorSchema },
      },
    },
    async () => buildStatus(baseUrl, clock, app.services.channels.platformApps),
  );

  app.get(
    '/is-connected',
    {
      config: { auth: 'key' },
      schema: {
        tags: ['Service'],
        summary: 'Check that the credential reaches a workspace',
        description:
          'True when the credential is valid and points at a workspace with API access. A valid key whose owner is no longer a member of any workspace it may act in answers `false`. An invalid credential is a 401; a key spanning several workspaces without `showorg` is a 403.',
        response: { 200: connectionCheckSchema, 401: apiErrorSchema, 403: apiErrorSchema, 429: apiErrorSchema },
      },
    },
    async (request) => {
      const { access } = app.services;
      const memberships = await access.memberships(request.principal!);
      if (memberships.length === 0) return { connected: false };
      const chosen = await access.select(request.principal!, readShoworg(request));
      return {
        connected: true,
        workspace: { id: chosen.workspace.id, name: chosen.workspace.name },
        role: chosen.role,
        scopes: [...chosen.scopes].sort(),
      };
    },
  );
};
