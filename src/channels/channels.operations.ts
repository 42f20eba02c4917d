import * as z from 'zod';
import { notFoundErrors } from '../http/common.schema.ts';
import { listSummary, operation, READ_ONLY } from '../operations/operation.ts';
import { channelSchema, listChannelsQuery } from './channels.schema.ts';

export const listChannels = operation({
  name: 'list_channels',
  scope: 'channels:read',
  query: listChannelsQuery,
  call: (services, access, { group }) => services.channels.shown(access, group),
  rest: {
    method: 'GET',
    url: '/integrations',
    tags: ['Channels'],
    summary: 'List channels',
    description: 'A key limited to certain channels sees only those; it is never refused with 403 for that. An unknown `group` is a 404.',
    response: z.array(channelSchema),
    errors: notFoundErrors,
  },
  mcp: {
    title: 'List channels',
    description:
      'The social channels (accounts) of the workspace that posts can go to. Each channel `id` is what create_post takes as `integration.id`; `identifier` is its platform (the `settings.__type` of a post). A disabled channel cannot publish until it is reconnected.',
    annotations: READ_ONLY,
    output: z.object({ channels: z.array(channelSchema) }),
    present: (channels) => ({ channels: [...channels] }),
    summary: (o) => listSummary(o.channels, 'channel', (c) => `${c.name} (${c.identifier}, ${c.id}${c.disabled ? ', disabled' : ''})`),
  },
});
