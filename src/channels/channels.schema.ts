import { z } from 'zod';
import { clientGroupSchema } from '../groups/groups.schema.ts';
import { wholeNumber } from '../http/common.schema.ts';

export const channelSchema = z
  .object({
    id: z.string().describe('The channel ID. Every call that needs a channel takes it as `integration.id`.'),
    name: z.string().describe('Display name.'),
    identifier: z.string().describe('Platform ID (e.g. `bluesky`, `webhook`); equals `settings.__type` when posting.'),
    picture: z.string().describe('Profile picture URL.'),
    disabled: z.boolean().describe('Whether the channel cannot post right now.'),
    disabledReason: z.string().nullable().describe('Why it is disabled, e.g. `needs_reconnect`; null when enabled.'),
    profile: z.string().describe('The channel\'s handle, without the at sign; empty when the platform has none.'),
    customer: clientGroupSchema.nullable().describe('The client group the channel is filed under.'),
  })
  .meta({ id: 'Channel' });

export const listChannelsQuery = z.object({
  group: z.string().min(1).optional().describe('Only channels of this client group (`customer.id`).'),
});

export const channelIdParams = z.object({ id: z.string().min(1).max(100).describe('The channel ID.') });

export const channelSettingsSchema = z
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
  })
  .meta({ id: 'ChannelSettings' });

export const channelToolBody = z.object({
  methodName: z.string().min(1).max(100).describe('The tool\'s name.'),
  data: z.record(z.string(), z.unknown()).default({}).describe('The tool\'s parameters.'),
});
