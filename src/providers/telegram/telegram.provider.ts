import * as z from 'zod';
import { ProviderError } from '../provider.ts';
import type * as P from '../provider.ts';
import { callBot, telegramConfig, telegramConfigSchema } from './telegram.client.ts';
import { telegramMetrics } from './telegram.metrics.ts';
import { countTelegramText, toTelegramHtml } from './telegram.html.ts';

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const PHOTO_BYTES = 10 * 1024 * 1024;
/** What the Bot API takes as an upload; a local Bot API server takes more. */
const UPLOAD_BYTES = 50 * 1024 * 1024;
const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

const settingsSchema = z.object({
  disableNotification: z.boolean().optional().describe('Send silently: members get no sound.'),
  protectContent: z.boolean().optional().describe('Members cannot forward or save the message.'),
  disableLinkPreview: z.boolean().optional().describe('No preview of the first link.'),
  spoiler: z.boolean().optional().describe('Cover the photos and videos with a spoiler animation.'),
});

type Settings = z.infer<typeof settingsSchema>;
type Message = { message_id: number; chat: { id: number; username?: string } };
type Chat = { id: number; type: string; title?: string; username?: string; first_name?: string; last_name?: string };

function kindOf(media: Pick<P.PublishMedia, 'mimeType'>): 'photo' | 'video' | 'animation' {
  if (media.mimeType === 'image/gif') return 'animation';
  return media.mimeType.startsWith('video/') ? 'video' : 'photo';
}

const METHOD = { photo: 'sendPhoto', video: 'sendVideo', animation: 'sendAnimation' } as const;

/** A public link to the message: by username, or for a private supergroup or channel by its internal id. */
function messageUrl(message: Message, profile: string | null): string | undefined {
  const username = message.chat.username ?? profile ?? undefined;
  if (username) return `https://t.me/${username.replace(/^@/, '')}/${message.message_id}`;
  const id = String(message.chat.id);
  return id.startsWith('-100') ? `https://t.me/c/${id.slice(4)}/${message.message_id}` : undefined;
}

async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const { chatId } = telegramConfig(ctx.config);
  const settings: Settings = settingsSchema.parse(input.settings);
  const common = {
    chat_id: chatId,
    ...(settings.disableNotification && { disable_notification: true }),
    ...(settings.protectContent && { protect_content: true }),
    ...(input.parent && { reply_parameters: { message_id: Number(input.parent.id), allow_sending_without_reply: true } }),
  };
  const text = input.text;
  let message: Message;
  if (input.media.length === 0) {
    message = await callBot<Message>(
      ctx,
      'sendMessage',
      { ...common, text, parse_mode: 'HTML', ...(settings.disableLinkPreview && { link_preview_options: { is_disabled: true } }) },
      { write: true },
    );
  } else if (input.media.length === 1) {
    const item = input.media[0]!;
    const kind = kindOf(item);
    const form = formOf(common);
    form.set(kind, new Blob([await item.read()], { type: item.mimeType }), item.name);
    if (text) {
      form.set('caption', text);
      form.set('parse_mode', 'HTML');
    }
    if (settings.spoiler) form.set('has_spoiler', 'true');
    message = await callBot<Message>(ctx, METHOD[kind], form, { write: true });
  } else {
    const form = formOf(common);
    const media = [];
    for (const [i, item] of input.media.entries()) {
      form.set(`file${i}`, new Blob([await item.read()], { type: item.mimeType }), item.name);
      media.push({
        type: kindOf(item),
        media: `attach://file${i}`,
        ...(i === 0 && text && { caption: text, parse_mode: 'HTML' }),
        ...(settings.spoiler && { has_spoiler: true }),
      });
    }
    form.set('media', JSON.stringify(media));
    const messages = await callBot<Message[]>(ctx, 'sendMediaGroup', form, { write: true });
    message = messages[0]!;
  }
  return { id: String(message.message_id), url: messageUrl(message, ctx.channel.profile), meta: { chatId: message.chat.id } };
}

function formOf(fields: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  return form;
}

/** Posts to a Telegram channel or group through a bot (Bot API). */
export const telegramProvider: P.Provider = {
  identifier: 'telegram',
  name: 'Telegram',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText: countTelegramText,
  toText: toTelegramHtml,
  settingsSchema,
  configSchema: telegramConfigSchema,
  configUrls: ['apiBase'],
  mediaRules: { maxItems: 10, mimeTypes: [...PHOTO_TYPES, 'image/gif', 'video/mp4'], maxBytes: UPLOAD_BYTES, required: false },
  idempotentWrites: false,
  metrics: telegramMetrics,
  connectHelp:
    'Create a bot with @BotFather and copy its token; add the bot to the channel as an administrator allowed to post (or to the group as a member). Connect with `{"provider":"telegram","botToken":"123456:ABC…","chatId":"@yourchannel"}` (or the numeric id, -100…; the `recentChats` tool lists the chats the bot has seen). Operators: `herald admin channel create --provider telegram --config \'{"botToken":"…","chatId":"…"}\'`.',
  tools: {
    recentChats: {
      description:
        'Lists the chats the bot has recently seen (messages, posts, being added): their id, type, title and username. Telegram keeps these updates for 24 hours; post in the chat or re-add the bot to make it appear. Not available while the bot has a webhook set.',
      input: z.object({}),
      async run(ctx) {
        const updates = await callBot<Array<Record<string, { chat?: Chat } | undefined>>>(
          ctx,
          'getUpdates',
          { limit: 100, timeout: 0 },
          { write: false },
        );
        const chats = new Map<number, { id: string; type: string; title: string | null; username: string | null }>();
        for (const update of updates) {
          for (const value of Object.values(update)) {
            const chat = value && typeof value === 'object' ? value.chat : undefined;
            if (chat && typeof chat.id === 'number')
              chats.set(chat.id, {
                id: String(chat.id),
                type: chat.type,
                title: chat.title ?? chat.first_name ?? null,
                username: chat.username ?? null,
              });
          }
        }
        return { chats: [...chats.values()] };
      },
    },
  },
  validate({ text, media, part }): P.MissingItem[] {
    const missing: P.MissingItem[] = [];
    if (media.length > 0 && countTelegramText(text) > CAPTION_LIMIT) {
      missing.push({
        field: `value[${part}].content`,
        reason: `With media the text is a caption, which Telegram limits to ${CAPTION_LIMIT} characters; it has ${countTelegramText(text)}.`,
      });
    }
    media.forEach((m, i) => {
      if (kindOf(m) === 'photo' && m.size > PHOTO_BYTES)
        missing.push({ field: `value[${part}].image[${i}]`, reason: `Telegram takes photos up to 10 MB; this one is ${m.size} bytes.` });
    });
    if (media.length > 1 && media.some((m) => kindOf(m) === 'animation')) {
      missing.push({ field: `value[${part}].image`, reason: 'Telegram cannot put a GIF in an album; post it on its own.' });
    }
    return missing;
  },
  async connectAccount(ctx): Promise<P.ConnectedAccount> {
    const { chatId } = telegramConfig(ctx.config);
    const bot = await callBot<{ id: number; username?: string }>(ctx, 'getMe', {}, { write: false });
    const chat = await callBot<Chat>(ctx, 'getChat', { chat_id: chatId }, { write: false });
    const member = await callBot<{ status: string; can_post_messages?: boolean }>(
      ctx,
      'getChatMember',
      { chat_id: chat.id, user_id: bot.id },
      { write: false },
    );
    const where = chat.title ?? chat.username ?? chatId;
    if (member.status === 'left' || member.status === 'kicked')
      throw new ProviderError('rejected', `The bot is not a member of "${where}"; add it first.`);
    if (
      chat.type === 'channel' &&
      member.status !== 'creator' &&
      (member.status !== 'administrator' || member.can_post_messages === false)
    ) {
      throw new ProviderError('rejected', `The bot must be an administrator of the channel "${where}" with the right to post messages.`);
    }
    const name = chat.title ?? ([chat.first_name, chat.last_name].filter(Boolean).join(' ') || String(chat.id));
    return { internalId: String(chat.id), name, handle: chat.username ?? null, picture: null };
  },
  /** The chat is kept by its numeric id, which stays when a public chat changes its @username. */
  async completeConfig(ctx, account) {
    return { ...ctx.config, chatId: account.internalId };
  },
  publish: send,
  comment: send,
};
