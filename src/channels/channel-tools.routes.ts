import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { channelIdParams, channelSettingsSchema, channelToolBody } from './channels.schema.ts';

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
        response: { 200: channelSettingsSchema, ...authErrors, 404: apiErrorSchema },
      },
    },
    async (request) => app.services.channels.settingsFor(request.access!, request.params.id),
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
        body: channelToolBody,
        response: { 200: z.unknown().describe('The tool\'s result.'), ...authErrors, 404: apiErrorSchema, 502: apiErrorSchema },
      },
    },
    async (request) => app.services.channels.triggerFor(request.access!, request.params.id, request.body.methodName, request.body.data),
  );
};
