// Telegram's one number, the chat's member count, through the provider's metrics capability.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { telegramProvider } from '../../../src/providers/telegram/telegram.provider.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext } from '../bluesky/helpers.ts';
import { FakeBotApi } from './fake-bot-api.ts';

let bot: FakeBotApi;
beforeAll(async () => {
  bot = await new FakeBotApi().start();
});
beforeEach(() => bot.reset());
afterAll(async () => {
  await bot.stop();
  await closeOutboundClients();
});

const metrics = telegramProvider.metrics!;
const ctx = (chatId = '-1001234567890') => providerContext({ botToken: bot.token, chatId, apiBase: bot.url });

describe('Telegram metrics', () => {
  it("reads the chat's member count as followers, and no per-post numbers (the Bot API has none)", async () => {
    bot.memberCounts.set(-1001234567890, 1234);
    expect(await metrics.account(ctx())).toEqual({ metrics: { followers: 1234 }, raw: { member_count: 1234 } });
    expect(bot.calls.at(-1)).toMatchObject({ method: 'getChatMemberCount', params: { chat_id: '-1001234567890' } });
    expect(metrics.reports).toEqual({ post: [], account: ['followers'] });
    const before = bot.calls.length;
    expect((await metrics.posts(ctx(), [{ id: '42' }])).size).toBe(0);
    expect(bot.calls.length).toBe(before);
  });

  it("429 is rate_limited with Telegram's retry_after; an unknown chat is refused", async () => {
    bot.on(({ method }) =>
      method === 'getChatMemberCount'
        ? {
            status: 429,
            body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 9', parameters: { retry_after: 9 } },
          }
        : undefined,
    );
    expect(await providerFailure(metrics.account(ctx()))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 9000 } });
    bot.reset();
    expect((await providerFailure(metrics.account(ctx('-1000000000001')))).kind).toBe('rejected');
  });
});
