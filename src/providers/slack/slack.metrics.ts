import { needingPermission, reactionTotal, readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import type { ProviderContext, PublishedRef } from '../provider.ts';
import { parseConfig, slackCall } from './slack.provider.ts';

/** The channel a part was posted in: the one Slack answered with at publishing, else the configured one. */
function channelOf(ctx: ProviderContext, ref: PublishedRef): string {
  const channel = ref.meta?.channel;
  return typeof channel === 'string' && channel ? channel : parseConfig(ctx).channel;
}

/**
 * Slack's numbers: a message's reactions (every emoji's count summed as `likes`) and, on a thread's
 * parent, its `reply_count` as `replies`, from `reactions.get` (one message a call; needs
 * `reactions:read`). The channel's members from `conversations.info?include_num_members=true`
 * (`channels:read`, which connecting already asks for). Thread replies are not read with
 * `conversations.replies`: that method wants a user token for channels, and Slack gives apps
 * outside its Marketplace one request a minute of it; the parent's `reply_count` is the same number.
 */
export const slackMetrics: ProviderMetrics = {
  reports: { post: ['likes', 'replies'], account: ['followers'] },
  batchSize: 1,
  async posts(ctx, refs) {
    const found = new Map<string, MetricsReading>();
    for (const ref of refs) {
      const answer = await needingPermission(
        slackCall(
          ctx,
          'reactions.get',
          { query: { channel: channelOf(ctx, ref), timestamp: ref.id, full: 'true' }, answers: ['message_not_found'] },
          "the message's reactions",
        ),
        'Slack',
        'reactions:read',
      );
      // Deleted in Slack: no numbers, so the part is left out.
      if (answer.ok !== true) continue;
      const message = (answer.message ?? {}) as { reactions?: unknown; reply_count?: unknown; ts?: unknown; thread_ts?: unknown };
      // A message nobody reacted to has no `reactions` field: zero likes, as Slack shows. A message in
      // the channel (not a reply in a thread) without `reply_count` has no thread yet: zero replies;
      // a reply in a thread has no replies of its own to count.
      const inChannel = message.thread_ts === undefined || message.thread_ts === message.ts;
      const replies = typeof message.reply_count === 'number' ? message.reply_count : inChannel ? 0 : undefined;
      found.set(
        ref.id,
        readMetrics({ reactions: reactionTotal(message.reactions), reply_count: replies }, { reactions: 'likes', reply_count: 'replies' }),
      );
    }
    return found;
  },
  async account(ctx) {
    const { channel } = parseConfig(ctx);
    const answer = await needingPermission(
      slackCall(ctx, 'conversations.info', { query: { channel, include_num_members: 'true' } }, "the channel's members"),
      'Slack',
      'channels:read (groups:read for private channels)',
    );
    return readMetrics(answer.channel, { num_members: 'followers' });
  },
};
