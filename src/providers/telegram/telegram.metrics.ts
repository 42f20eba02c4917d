import { readMetrics, type ProviderMetrics } from '../metrics.ts';
import { callBot, telegramConfig } from './telegram.client.ts';

/**
 * Telegram's numbers: the chat's member count (`getChatMemberCount`) as `followers`. The Bot API
 * has no view count and no method that reads a message's reactions (they arrive only as updates),
 * so posts report nothing.
 */
export const telegramMetrics: ProviderMetrics = {
  reports: { post: [], account: ['followers'] },
  batchSize: 1,
  async posts() {
    return new Map();
  },
  async account(ctx) {
    const { chatId } = telegramConfig(ctx.config);
    const members = await callBot<unknown>(ctx, 'getChatMemberCount', { chat_id: chatId }, { write: false });
    return readMetrics({ member_count: members }, { member_count: 'followers' });
  },
};
