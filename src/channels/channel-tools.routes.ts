import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { mayUseChannel, type WorkspaceAccess } from '../auth/access.service.ts';
import { NotFoundError } from '../errors.ts';
import { apiErrorSchema, authErrors, showorgHeader, wholeNumber } from '../http/common.schema.ts';

/** A channel outside a channel-limited key is "not found", exactly like another workspace's. */
function visibleChannel(access: WorkspaceAccess, id: string): void {
  if (!mayUseChannel(access, id)) throw new NotFoundError(`No channel ${id} in this workspace.`);
}

const channelIdParams = z.object({ id: z.string().min(1).max(100).describe('The channel ID.') });

const settingsSchema = z
  .object({
    integration: z.string().describe('The channel ID.'),
    identifier: z.string().describe('The platform ID (`settings.__type`).'),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()).describe('JSON Schema of `settings` (besides `__type`).'),
    textLimit: z.object({ max: wholeNumber(1, 1_000_000), unit: z.enum(['graphemes', 'characters', 'bytes']) }),
    media: z.object({ maxItems: wholeNumber(0, 100), mimeTypes: z.array(z.string()), maxBytes: wholeNumber(1, 1024 ** 3), required: z.boolean() }),
    tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
    idempotentWrites: z.boolean().describe('Whether a publish whose outcome is unknown is retried safely (the platform deduplicates).'),
    connect: z.string().describe('How a channel of this platform is connected.'),
    preferredSettings: z.record(z.string(), z.unknown()).nullable().describe('The channel\'s preferred settings (PATCH /integrations/:id), used where a post leaves a setting out; null when none.'),
  })
  .meta({ id: 'ChannelSettings' });

export const channelToolsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/integration-settings/:id',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags: ['Channels'],
        summary: 'A channel\'s settings schema, limits and tools',
        headers: showorgHeader,
        params: channelIdParams,
        response: { 200: settingsSchema, ...authErrors, 404: apiErrorSchema },
      },
    },
    async (request) => {
      visibleChannel(request.access!, request.params.id);
      return app.services.channels.settings(request.access!.workspace.id, request.params.id);
    },
  );

  app.post(
    '/integration-trigger/:id',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags: ['Channels'],
        summary: 'Run one of a channel\'s tools',
        description: '`methodName` is a tool from GET /integration-settings/:id; `data` is checked against its input schema. An unknown name is a 400 that lists the tools.',
        headers: showorgHeader,
        params: channelIdParams,
        body: z.object({
          methodName: z.string().min(1).max(100).describe('The tool\'s name.'),
          data: z.record(z.string(), z.unknown()).default({}).describe('The tool\'s parameters.'),
        }),
        response: { 200: z.unknown().describe('The tool\'s result.'), ...authErrors, 404: apiErrorSchema, 502: apiErrorSchema },
      },
    },
    async (request) => {
      visibleChannel(request.access!, request.params.id);
      return app.services.channels.trigger(request.access!.workspace.id, request.params.id, request.body.methodName, request.body.data);
    },
  );
};
