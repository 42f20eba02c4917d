import * as z from 'zod';
import { callPlatform, retryAfterMs, type Platform } from '../platform-call.ts';
import { readConfig, type ProviderContext } from '../provider.ts';

export const TELEGRAM_API = 'https://api.telegram.org';

export const telegramConfigSchema = z.object({
  botToken: z
    .string()
    .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'a bot token from @BotFather ("123456:ABC-…")')
    .meta({ title: 'Bot token', writeOnly: true })
    .describe("The bot's token, from @BotFather."),
  chatId: z
    .union([z.string().regex(/^(@[A-Za-z][A-Za-z0-9_]{3,31}|-?\d{1,20})$/, 'a chat id (-100…) or a public @username'), z.int()])
    .transform(String)
    .meta({ title: 'Chat' })
    .describe(
      'The channel or group: its numeric id (e.g. -1001234567890) or, for a public one, @username. The bot must be able to post there.',
    ),
  apiBase: z
    .url({ protocol: /^https?$/ })
    .optional()
    .meta({ title: 'Bot API server' })
    .describe('Another Bot API server (a local one, a gateway); https://api.telegram.org by default.'),
});

export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

type BotAnswer = {
  ok?: boolean;
  result?: unknown;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
};

export function telegramConfig(config: Record<string, unknown>): TelegramConfig {
  return readConfig(telegramConfigSchema, config, 'Telegram');
}

/** The Bot API for one bot: its token stands in every URL, so it is kept out of every message. */
function botApi(botToken: string): Platform {
  return {
    name: 'Telegram',
    // 401: the token was revoked; 403: the bot was removed from the chat or may not post; 404: no such bot.
    authStatuses: [403, 404],
    secret: botToken,
    timeoutMs: 60_000,
    notCalled: (why) => `The Telegram API base was not called. ${why}`,
    outcome: 'the message may or may not have been sent',
    succeeded: (answer) => answer.status >= 200 && answer.status < 300 && (answer.json as BotAnswer | null)?.ok === true,
    readError(answer) {
      const bot = (answer.json && typeof answer.json === 'object' ? answer.json : {}) as BotAnswer;
      const status = bot.error_code ?? answer.status;
      const reason = `Telegram answered ${status}: ${bot.description ?? 'no description'}`;
      const migrated = bot.parameters?.migrate_to_chat_id;
      return {
        status,
        message:
          migrated !== undefined ? `${reason}. The group became a supergroup: reconnect the channel with chatId ${migrated}.` : reason,
        ...(status === 429 && { retryAfterMs: retryAfterMs(bot.parameters?.retry_after, answer.headers.get('retry-after')) }),
      };
    },
  };
}

/**
 * Calls a Bot API method (`/bot<token>/<method>`), with a JSON body or multipart form data.
 * `write` says whether a lost answer may mean the call was applied (Telegram does not deduplicate).
 */
export async function callBot<T>(
  ctx: Pick<ProviderContext, 'config' | 'outbound' | 'signal'>,
  method: string,
  params: Record<string, unknown> | FormData,
  options: { write: boolean },
): Promise<T> {
  const { botToken, apiBase } = telegramConfig(ctx.config);
  const url = `${(apiBase ?? TELEGRAM_API).replace(/\/$/, '')}/bot${botToken}/${method}`;
  const answer = await callPlatform(ctx, botApi(botToken), url, {
    method: 'POST',
    ...(params instanceof FormData ? { multipart: params } : { json: params }),
    write: options.write,
  });
  return (answer.json as BotAnswer).result as T;
}
