import { needingPermission, reactionTotal, readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { callPlatform } from '../platform-call.ts';
import type { ProviderContext } from '../provider.ts';
import { isWebhookConfig, type DiscordBotConfig } from './discord.schema.ts';
import { apiBase, botHeaders, discord, parseConfig } from './discord.provider.ts';

/** Discord's "Unknown Message": the message was deleted. */
const UNKNOWN_MESSAGE = 10008;
const PERMISSION = 'the bot the View Channel and Read Message History permissions in the channel';

/** The bot's config, or null for a webhook channel (a webhook's token reads no reactions and no server). */
function botConfig(ctx: ProviderContext): DiscordBotConfig | null {
  const config = parseConfig(ctx);
  return isWebhookConfig(config) ? null : config;
}

/** One GET as the bot; a 403 (Missing Access, Missing Permissions) refuses the reading only. */
async function read(ctx: ProviderContext, config: DiscordBotConfig, path: string, what: string, absent?: number) {
  const platform = discord(what);
  const answer = await needingPermission(
    callPlatform(
      ctx,
      {
        ...platform,
        succeeded: (a) =>
          (a.status >= 200 && a.status < 300) || (a.status === 404 && (a.json as { code?: unknown } | null)?.code === absent),
      },
      `${apiBase(config)}${path}`,
      { headers: botHeaders(config) },
    ),
    'Discord',
    PERMISSION,
  );
  return answer.status === 404 ? null : ((answer.json ?? {}) as Record<string, unknown>);
}

/**
 * Discord's numbers, for bot channels: a message's reactions, every emoji's `count` (normal and
 * super reactions) summed as `likes`, from `GET /channels/{c}/messages/{m}` (one message a call),
 * and the server's approximate member count from `GET /guilds/{g}?with_counts=true`. Webhook
 * channels have no token that reads either, so they report nothing. Discord counts no replies
 * on a message (a reply is a message of its own), so there are none.
 */
export const discordMetrics: ProviderMetrics = {
  reports: { post: ['likes'], account: ['followers'] },
  batchSize: 1,
  async posts(ctx, refs) {
    const found = new Map<string, MetricsReading>();
    const config = botConfig(ctx);
    if (!config) return found;
    for (const ref of refs) {
      const channelId = typeof ref.meta?.channelId === 'string' && ref.meta.channelId ? ref.meta.channelId : config.channelId;
      const message = await read(ctx, config, `/channels/${channelId}/messages/${ref.id}`, "the message's reactions", UNKNOWN_MESSAGE);
      // Deleted in Discord: no numbers, so the part is left out.
      if (!message) continue;
      // A message nobody reacted to has no `reactions` field: zero likes, as Discord shows.
      found.set(ref.id, readMetrics({ reactions: reactionTotal(message.reactions) }, { reactions: 'likes' }));
    }
    return found;
  },
  async account(ctx) {
    const config = botConfig(ctx);
    if (!config) return { metrics: {}, raw: {} };
    let guildId = config.guildId;
    if (!guildId) {
      const channel = await read(ctx, config, `/channels/${config.channelId}`, 'the channel');
      guildId = typeof channel?.guild_id === 'string' ? channel.guild_id : undefined;
    }
    // A channel outside a server (a DM or group DM) has no members to count.
    if (!guildId) return { metrics: {}, raw: {} };
    const guild = await read(ctx, config, `/guilds/${guildId}?with_counts=true`, "the server's members");
    return readMetrics(guild, { approximate_member_count: 'followers' });
  },
};
