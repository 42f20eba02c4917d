import { z } from 'zod';
import { clientGroupSchema } from '../groups/groups.schema.ts';

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
