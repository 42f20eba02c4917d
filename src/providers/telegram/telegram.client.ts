import * as z from 'zod';
import { readLimited, wasNotSent } from '../../net/outbound.ts';
import { encodeMultipart } from '../multipart.ts';
import { ProviderError, type ProviderContext } from '../provider.ts';

export const TELEGRAM_API = 'https://api.telegram.org';

export const telegramConfigSchema = z.object({
  botToken: z
    .string()
    .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'a bot token from @BotFather ("123456:ABC-…")')
    .describe('The bot\'s token, from @BotFather.'),
  chatId: z
    .union([z.string().regex(/^(@[A-Za-z][A-Za-z0-9_]{3,31}|-?\d{1,20})$/, 'a chat id (-100…) or a public @username'), z.int()])
    .transform(String)
    .describe('The channel or group: its numeric id (e.g. -1001234567890) or, for a public one, @username. The bot must be able to post there.'),
  apiBase: z.url({ protocol: /^https?$/ }).optional().describe('Another Bot API server (a local one, a gateway); https://api.telegram.org by default.'),
});

export type TelegramConfig = z.infer<typeof telegramConfigSchema>;

type BotAnswer = { ok?: boolean; result?: unknown; error_code?: number; description?: string; parameters?: { retry_after?: number; migrate_to_chat_id?: number } };

const ANSWER_LIMIT = 1024 * 1024;

export function telegramConfig(config: Record<string, unknown>): TelegramConfig {
  const parsed = telegramConfigSchema.safeParse(config);
  if (!parsed.success) throw new ProviderError('auth', `The Telegram channel's configuration is invalid: ${parsed.error.issues[0]?.message ?? 'unknown problem'}.`);
  return parsed.data;
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
  const redact = (text: string) => text.split(botToken).join('<token>');
  let body: Uint8Array | string;
  let contentType: string;
  if (params instanceof FormData) ({ body, contentType } = await encodeMultipart(params));
  else {
    body = JSON.stringify(params);
    contentType = 'application/json';
  }
  let response: Response;
  try {
    response = await ctx.outbound.fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body, maxRedirects: 0, timeoutMs: 60_000, ...(ctx.signal && { signal: ctx.signal }) });
  } catch (error) {
    const message = redact((error as Error).message);
    if ((error as { code?: string }).code === 'outbound_refused' || (error as { statusCode?: number }).statusCode === 400) {
      throw new ProviderError('rejected', `The Telegram API base was not called. ${message}`);
    }
    if (wasNotSent(error) || !options.write) throw new ProviderError('transient', `Telegram could not be reached: ${message}`);
    throw new ProviderError('unknown_outcome', 'Telegram did not answer in time; the message may or may not have been sent.');
  }
  let answer: BotAnswer = {};
  try {
    answer = JSON.parse((await readLimited(response, ANSWER_LIMIT)).toString('utf8')) as BotAnswer;
  } catch {
    answer = {};
  }
  if (response.ok && answer.ok === true) return answer.result as T;
  const status = answer.error_code ?? response.status;
  const reason = `Telegram answered ${status}: ${redact(answer.description ?? response.statusText ?? 'no description')}`;
  if (status === 429) {
    const seconds = answer.parameters?.retry_after ?? Number(response.headers.get('retry-after'));
    throw new ProviderError('rate_limited', reason, { status, retryAfterMs: Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined });
  }
  if (status >= 500) throw new ProviderError('transient', reason, { status });
  // 401: the token was revoked; 403: the bot was removed from the chat or may not post; 404: no such bot.
  if (status === 401 || status === 403 || status === 404) throw new ProviderError('auth', reason, { status });
  if (answer.parameters?.migrate_to_chat_id !== undefined) {
    throw new ProviderError('rejected', `${reason}. The group became a supergroup: reconnect the channel with chatId ${answer.parameters.migrate_to_chat_id}.`, { status });
  }
  throw new ProviderError('rejected', reason, { status });
}
