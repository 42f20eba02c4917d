// How the Telegram provider reports each way the Bot API fails, and how it converts HTML.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { telegramProvider } from '../../../src/providers/telegram/telegram.provider.ts';
import { countTelegramText, toTelegramHtml } from '../../../src/providers/telegram/telegram.html.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { FakeBotApi } from './fake-bot-api.ts';
import { providerFailure } from '../../helpers/providers.ts';

let bot: FakeBotApi;
beforeAll(async () => {
  bot = await new FakeBotApi().start();
});
beforeEach(() => bot.reset());
afterAll(async () => {
  await bot.stop();
  await closeOutboundClients();
});

const ctx = (extra: Record<string, unknown> = {}) =>
  providerContext({ botToken: bot.token, chatId: '-1001234567890', apiBase: bot.url, ...extra });

const answer = (status: number, description: string, parameters?: Record<string, unknown>) => () => ({
  status,
  body: { ok: false, error_code: status, description, ...(parameters && { parameters }) },
});

describe('error mapping', () => {
  it("429 is rate_limited with Telegram's retry_after", async () => {
    bot.on(answer(429, 'Too Many Requests: retry after 17', { retry_after: 17 }));
    const error = await providerFailure(telegramProvider.publish(ctx(), publishInput()));
    expect(error).toMatchObject({ kind: 'rate_limited', options: { status: 429, retryAfterMs: 17_000 } });
  });

  it('5xx is transient; 401 and 403 are auth; 400 is rejected with the description', async () => {
    bot.on(answer(502, 'Bad Gateway'));
    expect((await providerFailure(telegramProvider.publish(ctx(), publishInput()))).kind).toBe('transient');
    bot.reset();
    expect(
      (await providerFailure(telegramProvider.publish(ctx({ botToken: '1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }), publishInput()))).kind,
    ).toBe('auth');
    bot.on(answer(403, 'Forbidden: bot is not a member of the channel chat'));
    expect((await providerFailure(telegramProvider.publish(ctx(), publishInput()))).kind).toBe('auth');
    bot.reset();
    bot.on(answer(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: -1001 }));
    const migrated = await providerFailure(telegramProvider.publish(ctx(), publishInput()));
    expect(migrated.kind).toBe('rejected');
    expect(migrated.message).toMatch(/upgraded to a supergroup.*chatId -1001/);
  });

  it('a refused connection is transient (nothing sent); the token never appears in messages', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await providerFailure(telegramProvider.publish(ctx({ apiBase: `http://127.0.0.1:${port}` }), publishInput()));
    expect(error.kind).toBe('transient');
    expect(error.message).not.toContain(bot.token);
  });

  it('is not idempotent: a lost answer is not retried', () => {
    expect(telegramProvider.idempotentWrites).toBe(false);
  });
});

describe('text', () => {
  it("converts the stored HTML subset to Telegram's tags and counts what Telegram shows", () => {
    const html = toTelegramHtml(
      '<h2>Title</h2><p>a <span>b</span> <del>c</del> <code>x&lt;y</code></p><ol><li>one</li><li>two</li></ol><blockquote><p>q</p></blockquote>',
    );
    expect(html).toBe('<b>Title</b>\n\na b <s>c</s> <code>x&lt;y</code>\n\n1. one\n2. two\n\n<blockquote>q</blockquote>');
    expect(countTelegramText('<b>Ab</b> &amp; 😀')).toBe('Ab & 😀'.length);
  });

  it('a comment replies to its parent message', async () => {
    const post = await telegramProvider.publish(ctx(), publishInput({ text: 'root' }));
    const comment = await telegramProvider.comment(ctx(), publishInput({ part: 1, text: 'reply', parent: post, root: post }));
    expect(bot.find(comment.id)!.reply_to_message).toEqual({ message_id: Number(post.id) });
  });
});
