import * as z from 'zod';
import { clientGroupSchema } from '../groups/groups.schema.ts';
import { wholeNumber } from '../http/common.schema.ts';
import { METRIC_NAMES } from '../providers/metrics.ts';

export const channelSchema = z
  .object({
    id: z.string().describe('The channel ID. Every call that needs a channel takes it as `integration.id`.'),
    name: z.string().describe('Display name.'),
    identifier: z.string().describe('Platform ID (e.g. `bluesky`, `webhook`); equals `settings.__type` when posting.'),
    picture: z.string().describe('Profile picture URL.'),
    disabled: z.boolean().describe('Whether the channel cannot post right now.'),
    disabledReason: z.string().nullable().describe('Why it is disabled, e.g. `needs_reconnect`; null when enabled.'),
    profile: z.string().describe("The channel's handle, without the at sign; empty when the platform has none."),
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
    media: z.object({
      maxItems: wholeNumber(0, 100),
      mimeTypes: z.array(z.string()),
      maxBytes: wholeNumber(1, 1024 ** 4).describe('The largest file the platform takes, in bytes (TikTok: 4 GiB).'),
      required: z.boolean(),
      video: z
        .object({
          sidePixels: z
            .tuple([wholeNumber(1, 100_000), wholeNumber(1, 100_000)])
            .optional()
            .describe('The smallest and largest number of pixels on each side of the picture (TikTok: 360 to 4096).'),
          seconds: z
            .tuple([z.number().min(0), z.number().min(0)])
            .optional()
            .describe("The shortest and longest video, in seconds (TikTok's own ceiling: 600; an account may be allowed less)."),
        })
        .optional()
        .describe(
          'What the platform takes of a video, checked (GET /posts/:id/missing) against the size and length the media library read when the file was stored; absent when Herald checks none. Frame rates are not read by the library, so the platform checks them.',
        ),
    }),
    tools: z.array(z.object({ name: z.string(), description: z.string(), inputSchema: z.record(z.string(), z.unknown()) })),
    idempotentWrites: z.boolean().describe('Whether a publish whose outcome is unknown is retried safely (the platform deduplicates).'),
    connect: z.string().describe('How a channel of this platform is connected.'),
    metrics: z
      .object({ post: z.array(z.enum(METRIC_NAMES)), account: z.array(z.enum(METRIC_NAMES)) })
      .describe(
        "The metrics Herald reads from this channel's platform (GET /analytics/…), for posts and for the account; empty where it reads none.",
      ),
    preferredSettings: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("The channel's preferred settings (PATCH /integrations/:id), used where a post leaves a setting out; null when none."),
  })
  .meta({ id: 'ChannelSettings' });

export const channelToolBody = z.object({
  methodName: z.string().min(1).max(100).describe("The tool's name."),
  data: z.record(z.string(), z.unknown()).default({}).describe("The tool's parameters."),
});

export const connectBodySchema = z
  .looseObject({
    provider: z.string().min(1).max(50).describe('The platform (`mastodon`, `telegram`, `bluesky`, `webhook`, …).'),
    name: z.string().trim().min(1).max(200).optional().describe("Display name; the account's own name by default."),
    group: z.string().min(1).max(100).optional().describe('File the channel under this client group (`customer.id`).'),
  })
  .describe(
    "`provider`, then the platform's fields: its configuration (e.g. Telegram `botToken`, `chatId`), or what its sign-in needs (Mastodon `instance`). Fields a platform does not know are refused.",
  )
  .meta({ id: 'ConnectChannel' });

export const reconnectBodySchema = z
  .record(z.string(), z.unknown())
  .default({})
  .describe(
    'The configuration fields to change (new credentials); null removes a field. Empty on browser sign-in platforms to sign in again.',
  );

export const connectResultSchema = z
  .union([
    z.object({ url: z.string().describe('Open this to sign in on the platform; it comes back to Herald, which finishes the connection.') }),
    z.object({
      integration: channelSchema,
      reconnected: z.boolean().describe('True when the account was already a channel of the workspace, which was reconnected (same id).'),
      secret: z
        .string()
        .optional()
        .describe(
          "Only when Herald generated the channel's secret because none was given (a `webhook` channel's Standard Webhooks signing secret, `whsec_…`): shown this once and never again; give it to the receiver.",
        ),
    }),
  ])
  .meta({ id: 'ConnectResult' });

export const channelChangesSchema = z
  .object({
    name: z.string().trim().min(1).max(200).optional().describe('New display name.'),
    group: z.string().min(1).max(100).nullable().optional().describe('Client group (`customer.id`); null removes it from its group.'),
    preferredSettings: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .describe("Post settings used when a post leaves them out (checked against the channel's settings schema); null clears them."),
  })
  .strict();

export const deleteChannelQuery = z.object({
  force: z
    .enum(['true', 'false'])
    .optional()
    .describe("`true`: move the channel's scheduled posts to draft (they are kept with the deleted channel), instead of refusing."),
});
