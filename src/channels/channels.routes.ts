import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { presentChannel } from './channels.service.ts';
import { channelSchema, listChannelsQuery } from './channels.schema.ts';

export const channelsRoutes: FastifyPluginAsyncZod<{ defaultPicture: string }> = async (app, { defaultPicture }) => {
  app.get(
    '/integrations',
    {
      config: { scope: 'channels:read' },
      schema: {
        tags: ['Channels'],
        summary: 'List channels',
        description: 'A key limited to certain channels sees only those; it is never refused with 403 for that. An unknown `group` is a 404.',
        headers: showorgHeader,
        querystring: listChannelsQuery,
        response: { 200: z.array(channelSchema), ...authErrors, 404: apiErrorSchema },
      },
    },
    async (request) => (await app.services.channels.visible(request.access!, request.query.group)).map((channel) => presentChannel(channel, defaultPicture)),
  );
};
