import * as z from 'zod';
import { isHttpsOrLoopback } from '../config-urls.ts';

const SNOWFLAKE = /^\d{15,21}$/;

/** The server a channel is in (either way of connecting): only for links to published messages. */
const guildId = z
  .string()
  .regex(SNOWFLAKE, 'a Discord id (digits)')
  .optional()
  .meta({ title: 'Server ID' })
  .describe('The server id, for links to published messages.');

const WEBHOOK_PATH = /\/api(?:\/v\d+)?\/webhooks\/(\d{15,21})\/([\w-]{10,})\/?$/;

export const DISCORD_API = 'https://discord.com/api/v10';

const webhookConfig = z
  .strictObject({
    webhookUrl: z
      .string()
      .refine(isHttpsOrLoopback, 'an https URL (plain http only for a server on this machine)')
      .refine((value) => WEBHOOK_PATH.test(new URL(value).pathname), 'a Discord webhook URL: …/api/webhooks/<id>/<token>')
      .meta({ title: 'Webhook URL', writeOnly: true })
      .describe('The channel webhook URL (Server Settings → Integrations → Webhooks → Copy Webhook URL).'),
    guildId,
  })
  .meta({ title: 'A channel webhook' });

const botConfig = z
  .strictObject({
    botToken: z
      .string()
      .trim()
      .regex(/^[\w-]{10,}\.[\w-]{4,}\.[\w-]{10,}$/, 'a bot token (Developer Portal → your application → Bot → Reset Token)')
      .meta({ title: 'Bot token', writeOnly: true })
      .describe('The bot token (Developer Portal → Bot); the bot must be in the server with Send Messages and Attach Files.'),
    channelId: z
      .string()
      .regex(SNOWFLAKE, 'a Discord channel id (digits; Developer Mode → right-click the channel → Copy Channel ID)')
      .meta({ title: 'Channel ID' })
      .describe('The channel posts go to.'),
    guildId,
    apiBase: z
      .string()
      .refine(isHttpsOrLoopback, 'an https URL (plain http only for a server on this machine)')
      .optional()
      .meta({ title: 'API host' })
      .describe(`Another API host (a gateway or a test server) instead of ${DISCORD_API}.`),
  })
  .meta({ title: 'A bot' });

export const discordConfigSchema = z.union([webhookConfig, botConfig]);
export type DiscordConfig = z.infer<typeof discordConfigSchema>;
export type DiscordBotConfig = z.infer<typeof botConfig>;

export const discordSettingsSchema = z.object({
  username: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .optional()
    .describe("Webhook channels only: the name shown on the message instead of the webhook's."),
  avatarUrl: z
    .url({ protocol: /^https$/ })
    .optional()
    .describe('Webhook channels only: the avatar shown on the message (an https image URL).'),
  mentions: z
    .enum(['none', 'users', 'all'])
    .default('users')
    .describe('Which mentions in the text notify: `none`, `users` (the default: @user pings, never @everyone or roles) or `all`.'),
  suppressEmbeds: z.boolean().optional().describe('When true, links get no preview embeds.'),
  alt: z
    .record(z.string(), z.string().max(1024))
    .optional()
    .describe('Descriptions (alt text) for attachments, keyed by the media id or URL.'),
});
export type DiscordSettings = z.infer<typeof discordSettingsSchema>;

export const listChannelsInput = z.object({
  guildId: z.string().regex(SNOWFLAKE).optional().describe("Only this server's channels; all the bot's servers (up to 20) otherwise."),
});

export function isWebhookConfig(config: DiscordConfig): config is z.infer<typeof webhookConfig> {
  return 'webhookUrl' in config;
}

/** The webhook's id, from its URL. */
export function webhookIdOf(webhookUrl: string): string {
  return WEBHOOK_PATH.exec(new URL(webhookUrl).pathname)![1]!;
}
