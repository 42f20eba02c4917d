import { createHash } from 'node:crypto';
import { callPlatform, readMedia, retryAfterMs, type Platform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { markupConverter } from '../markup.ts';
import { discordMetrics } from './discord.metrics.ts';
import { ProviderError, readConfig, refuseInvalid, settingsIssues } from '../provider.ts';
import type * as P from '../provider.ts';
import {
  DISCORD_API,
  discordConfigSchema,
  discordSettingsSchema,
  isWebhookConfig,
  listChannelsInput,
  webhookIdOf,
  type DiscordBotConfig,
  type DiscordConfig,
  type DiscordSettings,
} from './discord.schema.ts';

const TEXT_LIMIT = 2000;
const MAX_FILES = 10;
/** The upload limit every server has (boosted servers allow more). */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'video/quicktime', 'video/webm'] as const;
const USER_AGENT = 'DiscordBot (https://discord.com/developers/docs, 1) Herald';
/** Discord API error codes that mean the webhook or channel is gone: the channel must be connected again. */
const GONE = new Set([10003, 10015]);

/** Discord's markdown: the post's own `*`, `_`, `~`, `` ` ``, `|` and `\` are escaped so they stay text. */
export const htmlToDiscord = markupConverter({
  bold: '**',
  italic: '*',
  strike: '~~',
  underline: '__',
  code: '`',
  link: (text, href) => `[${text.replace(/[[\]]/g, '\\$&')}](<${href}>)`,
  url: (href) => href,
  heading: (text, level) => `${'#'.repeat(level)} ${text}`,
  bullet: '- ',
  characters: { '\\': '\\\\', '*': '\\*', _: '\\_', '~': '\\~', '`': '\\`', '|': '\\|' },
});

/** Discord counts a message's length in Unicode code points. */
const countText = (text: string) => [...text].length;

export function parseConfig(ctx: Pick<P.ProviderContext, 'config'>): DiscordConfig {
  return readConfig(discordConfigSchema, ctx.config, 'Discord');
}

function parseSettings(settings: Record<string, unknown>): DiscordSettings {
  const parsed = discordSettingsSchema.safeParse(settings);
  if (!parsed.success)
    throw new ProviderError(
      'rejected',
      `Invalid Discord settings: ${parsed.error.issues.map((i) => `settings.${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export const apiBase = (config: DiscordBotConfig) => (config.apiBase ?? DISCORD_API).replace(/\/+$/, '');
export const botHeaders = (config: DiscordBotConfig) => ({ authorization: `Bot ${config.botToken}` });

/** Discord's reason for a refusal: its message, with the first field error when there is one. */
function reasonOf(answer: PlatformAnswer): string {
  const body = (answer.json ?? {}) as { message?: unknown; code?: unknown; errors?: unknown };
  const message = typeof body.message === 'string' ? body.message : answer.text.slice(0, 200) || `HTTP ${answer.status}`;
  const detail = firstFieldError(body.errors);
  return detail ? `${message} (${detail})` : message;
}

function firstFieldError(errors: unknown, path: string[] = []): string | null {
  if (!errors || typeof errors !== 'object') return null;
  const own = (errors as { _errors?: Array<{ message?: string }> })._errors;
  if (Array.isArray(own) && own[0]?.message) return `${path.join('.') || 'body'}: ${own[0].message}`;
  for (const [key, value] of Object.entries(errors)) {
    if (key === '_errors') continue;
    const found = firstFieldError(value, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Discord's API, for one call: `what` names what was asked for in its messages. */
export function discord(what: string): Platform {
  return {
    name: 'Discord',
    headers: { 'user-agent': USER_AGENT },
    authStatuses: [403],
    readError(answer) {
      const status = answer.status;
      const json = (answer.json ?? {}) as { code?: unknown; retry_after?: unknown };
      if (status >= 500) return { message: `Discord failed (${status}) on ${what}; it will be retried.` };
      return {
        message: `Discord refused ${what}: ${reasonOf(answer)}`,
        ...(status === 404 && GONE.has(Number(json.code)) && { kind: 'auth' as const }),
        ...(status === 429 && { retryAfterMs: retryAfterMs(json.retry_after, answer.headers.get('retry-after')) }),
      };
    },
  };
}

async function discordCall(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal'>,
  url: string,
  request: PlatformRequest,
  what: string,
): Promise<Record<string, unknown>> {
  const answer = await callPlatform(ctx, discord(what), url, request);
  return (answer.json ?? {}) as Record<string, unknown>;
}

/**
 * A nonce of at most 25 characters, the same on every attempt of this part with this text, so
 * Discord (with `enforce_nonce`) answers a repeated create with the message it already made.
 */
function nonceFor(input: P.PublishInput): string {
  return createHash('sha256').update(`${input.postId}\n${input.part}\n${input.text}`).digest('base64url').slice(0, 25);
}

/** A message's create request: JSON, or multipart with `payload_json` and the files; a write. */
async function messageRequest(
  input: P.PublishInput,
  settings: DiscordSettings,
  extra: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<PlatformRequest> {
  const payload: Record<string, unknown> = {
    content: input.text,
    allowed_mentions: {
      parse: settings.mentions === 'all' ? ['users', 'roles', 'everyone'] : settings.mentions === 'users' ? ['users'] : [],
    },
    ...(settings.suppressEmbeds && { flags: 1 << 2 }),
    ...extra,
  };
  const request = { method: 'POST', headers, write: true };
  if (input.media.length === 0) return { ...request, json: payload };
  const form = new FormData();
  payload.attachments = input.media.map((item, i) => ({
    id: i,
    filename: item.name,
    ...(altOf(settings, item) && { description: altOf(settings, item) }),
  }));
  form.append('payload_json', JSON.stringify(payload));
  for (const [i, item] of input.media.entries()) {
    const bytes = await readMedia(item);
    form.append(`files[${i}]`, new Blob([new Uint8Array(bytes)], { type: item.mimeType }), item.name);
  }
  return { ...request, multipart: form };
}

const altOf = (settings: DiscordSettings, item: { id: string; url: string }) => settings.alt?.[item.id] ?? settings.alt?.[item.url];

function toRef(message: Record<string, unknown>, config: DiscordConfig): P.PublishedRef {
  const id = String(message.id ?? '');
  if (!id) throw new ProviderError('unknown_outcome', "Discord answered without the message's id.");
  const channelId = String(message.channel_id ?? (isWebhookConfig(config) ? '' : config.channelId));
  const guildId = typeof message.guild_id === 'string' ? message.guild_id : config.guildId;
  return {
    id,
    url: guildId && channelId ? `https://discord.com/channels/${guildId}/${channelId}/${id}` : undefined,
    meta: { channelId, ...(guildId && { guildId }) },
  };
}

/**
 * Sends one message. Webhook channels cannot reply, so a comment is the next message in the
 * channel; bot channels reply to the part before (message_reference), and carry a nonce with
 * `enforce_nonce`, so one immediate retry after an unanswered request cannot duplicate it.
 */
async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = parseConfig(ctx);
  refuseInvalid(discordProvider, ctx, input);
  const settings = parseSettings(input.settings);
  if (isWebhookConfig(config)) {
    const url = new URL(config.webhookUrl);
    url.searchParams.set('wait', 'true');
    const request = await messageRequest(input, settings, {
      ...(settings.username && { username: settings.username }),
      ...(settings.avatarUrl && { avatar_url: settings.avatarUrl }),
    });
    const message = await discordCall(ctx, url.toString(), request, 'the message');
    return toRef(message, config);
  }
  const reply =
    input.part > 0 && input.parent
      ? { message_reference: { message_id: input.parent.id, channel_id: config.channelId, fail_if_not_exists: false } }
      : {};
  const request = await messageRequest(input, settings, { nonce: nonceFor(input), enforce_nonce: true, ...reply }, botHeaders(config));
  const url = `${apiBase(config)}/channels/${config.channelId}/messages`;
  try {
    return toRef(await discordCall(ctx, url, request, 'the message'), config);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== 'unknown_outcome') throw error;
    // Within Discord's nonce window: the same nonce gives back the message if the first attempt made it.
    return toRef(await discordCall(ctx, url, request, 'the message'), config);
  }
}

async function connectAccount(ctx: Omit<P.ProviderContext, 'channel'>): Promise<P.ConnectedAccount> {
  const config = parseConfig(ctx);
  if (isWebhookConfig(config)) {
    const hook = await discordCall(ctx, config.webhookUrl, {}, 'the webhook URL');
    const id = String(hook.id ?? webhookIdOf(config.webhookUrl));
    return {
      internalId: String(hook.channel_id ?? id),
      name: typeof hook.name === 'string' && hook.name ? hook.name : 'Discord webhook',
      handle: null,
      picture: typeof hook.avatar === 'string' ? `https://cdn.discordapp.com/avatars/${id}/${hook.avatar}.png` : null,
    };
  }
  const [channel, bot] = await Promise.all([
    discordCall(ctx, `${apiBase(config)}/channels/${config.channelId}`, { headers: botHeaders(config) }, 'the channel'),
    discordCall(ctx, `${apiBase(config)}/users/@me`, { headers: botHeaders(config) }, 'the bot token'),
  ]);
  return {
    internalId: String(channel.id ?? config.channelId),
    name: typeof channel.name === 'string' ? `#${channel.name}` : `Discord channel ${config.channelId}`,
    handle: typeof bot.username === 'string' ? bot.username : null,
    picture: typeof bot.avatar === 'string' && bot.id ? `https://cdn.discordapp.com/avatars/${String(bot.id)}/${bot.avatar}.png` : null,
  };
}

/** Text channels (0) and announcement channels (5) take messages. */
const POSTABLE = new Set([0, 5]);

/** Posts and comments to a Discord channel, through a channel webhook or a bot. */
export const discordProvider: P.Provider = {
  identifier: 'discord',
  name: 'Discord',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText,
  toText: htmlToDiscord,
  settingsSchema: discordSettingsSchema,
  configSchema: discordConfigSchema,
  configUrls: ['webhookUrl', 'apiBase'],
  mediaRules: { maxItems: MAX_FILES, mimeTypes: MEDIA_TYPES, maxBytes: MAX_FILE_BYTES, required: false },
  // Webhook messages are never deduplicated, and a bot's nonce only for a few minutes: a later
  // retry could duplicate, so unknown outcomes are not retried by the engine (bot channels retry
  // once at once, inside the nonce window).
  idempotentWrites: false,
  connectHelp:
    'Either a channel webhook — in Discord, Server Settings → Integrations → Webhooks → New Webhook, pick the channel, Copy Webhook URL; config `{"webhookUrl":"https://discord.com/api/webhooks/…/…"}` (comments follow as the next messages: webhooks cannot reply) — or a bot: create an application in the Developer Portal, add a Bot, copy its token, invite it with Send Messages, Read Message History and Attach Files, then config `{"botToken":"…","channelId":"<channel id>"}` (comments are replies). Optional: `guildId` for message links, `apiBase` for another API host.',
  tools: {
    listChannels: {
      description:
        'Bot channels only: lists the text and announcement channels of the servers the bot is in (id, name, server), for `channelId`.',
      input: listChannelsInput,
      async run(ctx, data) {
        const { guildId } = listChannelsInput.parse(data);
        const config = parseConfig(ctx);
        if (isWebhookConfig(config))
          throw new ProviderError('rejected', 'A webhook channel posts to one channel only; listing channels needs a bot token.');
        const guilds = guildId
          ? [{ id: guildId, name: null as string | null }]
          : (
              (await discordCall(
                ctx,
                `${apiBase(config)}/users/@me/guilds?limit=20`,
                { headers: botHeaders(config) },
                'listing servers',
              )) as unknown as Array<{ id: string; name: string }>
            )
              .slice(0, 20)
              .map((g) => ({ id: String(g.id), name: g.name }));
        const channels: Array<{ id: string; name: string; guildId: string; guildName: string | null; type: number }> = [];
        for (const guild of guilds) {
          const list = (await discordCall(
            ctx,
            `${apiBase(config)}/guilds/${guild.id}/channels`,
            { headers: botHeaders(config) },
            'listing channels',
          )) as unknown as Array<{ id: string; name: string; type: number }>;
          for (const c of Array.isArray(list) ? list : [])
            if (POSTABLE.has(c.type))
              channels.push({ id: String(c.id), name: c.name, guildId: guild.id, guildName: guild.name, type: c.type });
        }
        return { channels };
      },
    },
  },
  validate({ text, media, settings, part, config }): P.MissingItem[] {
    const at = `value[${part}]`;
    const missing: P.MissingItem[] = [];
    const length = countText(text);
    if (length > TEXT_LIMIT)
      missing.push({ field: `${at}.content`, reason: `The text is ${length} characters long; Discord allows ${TEXT_LIMIT}.` });
    if (text.trim() === '' && media.length === 0)
      missing.push({ field: `${at}.content`, reason: 'A Discord message needs text or at least one attachment.' });
    if (media.length > MAX_FILES)
      missing.push({ field: `${at}.image`, reason: `${media.length} files; a Discord message takes at most ${MAX_FILES}.` });
    media.forEach((item, i) => {
      if (!(MEDIA_TYPES as readonly string[]).includes(item.mimeType))
        missing.push({
          field: `${at}.image[${i}]`,
          reason: `${item.name} is ${item.mimeType}; Discord channels here take images and MP4, MOV or WebM videos.`,
        });
      else if (item.size > MAX_FILE_BYTES)
        missing.push({
          field: `${at}.image[${i}]`,
          reason: `${item.name} is ${item.size} bytes; Discord takes files up to ${MAX_FILE_BYTES} bytes.`,
        });
    });
    const total = media.reduce((sum, m) => sum + m.size, 0);
    if (media.length > 1 && total > MAX_FILE_BYTES)
      missing.push({
        field: `${at}.image`,
        reason: `The files add up to ${total} bytes; a Discord message takes ${MAX_FILE_BYTES} in all.`,
      });
    const parsed = discordSettingsSchema.safeParse(settings);
    if (!parsed.success) missing.push(...settingsIssues(discordSettingsSchema, settings));
    else if ((parsed.data.username || parsed.data.avatarUrl) && 'botToken' in config) {
      missing.push({
        field: 'settings.username',
        reason: 'A bot posts under its own name and avatar; username and avatarUrl are for webhook channels.',
      });
    }
    return missing;
  },
  connectAccount,
  metrics: discordMetrics,
  publish: send,
  comment: send,
};
