import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import type { Channel } from './channels.service.ts';
import { channelSchema, listChannelsQuery } from './channels.schema.ts';

export const channelsRoutes: FastifyPluginAsyncZod<{ defaultPicture: string }> = async (app, { defaultPicture }) => {
  const present = (channel: Channel): z.infer<typeof channelSchema> => ({
    id: channel.id,
    name: channel.name,
    identifier: channel.provider,
    picture: channel.picture ?? defaultPicture,
    disabled: channel.disabled,
    disabledReason: channel.disabledReason,
    profile: channel.profile ?? '',
    customer: channel.group,
  });

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
    async (request) => {
      const { workspace, channelIds, principal } = request.access!;
      const { group } = request.query;
      if (group !== undefined) await app.services.groups.get(workspace.id, group);
      const channels = await app.services.channels.list(workspace.id, { groupId: group, channelIds }, principal.channelsVersion);
      return channels.map(present);
    },
  );
};
