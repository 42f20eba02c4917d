import * as z from 'zod';
import { apiErrorSchema, notFoundErrors } from '../http/common.schema.ts';
import { operation, plural, READ_ONLY, writes } from '../operations/operation.ts';
import { channelIdParams, channelSettingsSchema, channelToolBody } from './channels.schema.ts';

export const getChannelSettings = operation({
  name: 'get_channel_settings',
  scope: 'channels:read',
  params: channelIdParams,
  call: (services, access, { id }) => services.channels.settingsFor(access, id),
  rest: {
    method: 'GET',
    url: '/integration-settings/:id',
    tags: ['Channels'],
    summary: "A channel's settings schema, limits and tools",
    response: channelSettingsSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Channel rules and settings',
    description:
      "A channel's platform rules before writing a post for it: the JSON Schema of its `settings`, its text limit, what media it takes, and the channel tools trigger_channel_tool can run.",
    annotations: READ_ONLY,
    output: channelSettingsSchema,
    summary: (o) =>
      `${o.name} channel ${o.integration}: text up to ${o.textLimit.max} ${o.textLimit.unit}, up to ${plural(o.media.maxItems, 'media item')}; tools: ${o.tools.map((t) => t.name).join(', ') || 'none'}.`,
  },
});

export const triggerChannelTool = operation({
  name: 'trigger_channel_tool',
  scope: 'channels:read',
  params: channelIdParams,
  body: channelToolBody,
  call: (services, access, { id, methodName, data }) => services.channels.triggerFor(access, id, methodName, data),
  rest: {
    method: 'POST',
    url: '/integration-trigger/:id',
    tags: ['Channels'],
    summary: "Run one of a channel's tools",
    description:
      '`methodName` is a tool from GET /integration-settings/:id; `data` is checked against its input schema. An unknown name is a 400 that lists the tools.',
    response: z.unknown().describe("The tool's result."),
    errors: { ...notFoundErrors, 502: apiErrorSchema },
  },
  mcp: {
    title: 'Run a channel tool',
    description:
      "Runs one of a channel's platform tools (listed by get_channel_settings), e.g. looking up an account to mention. `data` must match that tool's input schema. It talks to the platform; it never publishes a post.",
    annotations: writes({ openWorld: true }),
    output: z.object({ result: z.unknown().describe('What the channel tool answered.') }),
    present: (result) => ({ result }),
    summary: (o) => `The channel tool answered: ${JSON.stringify(o.result)}`.slice(0, 2000),
  },
});
