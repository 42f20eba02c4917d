// A local server speaking the Telegram Bot API (https://core.telegram.org/bots/api) for the
// methods Herald uses: JSON and multipart bodies, HTML parse mode with Telegram's tag set,
// its length limits, replies, its error answers ({ok:false, error_code, description, parameters}),
// and getChatMemberCount (the only number the Bot API gives).
import { FakeHttpServer, parseBody, type FakeCall } from '../../helpers/fake-http.ts';

export type FakeMessage = {
  message_id: number;
  chat: { id: number; type: string; title?: string; username?: string };
  date: number;
  text?: string;
  caption?: string;
  /** What the chat shows: the text after parsing the HTML (entities decoded, tags gone). */
  shown: string;
  /** The tags the HTML used (b, i, a…). */
  tags: string[];
  photo?: Array<{ file_id: string; file_size: number }>;
  video?: { file_id: string; file_size: number };
  media_group_id?: string;
  reply_to_message?: { message_id: number };
  uploads: Array<{ name: string; type: string; size: number }>;
};

type Answer = { status: number; body: Record<string, unknown> };
/** What an override installed with `on` sees of a call. */
type Call = { method: string; params: Record<string, unknown> };

const ALLOWED_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  'ins',
  's',
  'strike',
  'del',
  'span',
  'tg-spoiler',
  'a',
  'code',
  'pre',
  'blockquote',
  'tg-emoji',
]);

function fail(status: number, description: string, parameters?: Record<string, unknown>): Answer {
  return { status, body: { ok: false, error_code: status, description, ...(parameters && { parameters }) } };
}

/** Parses Telegram HTML the way the Bot API does: unknown tags and bad entities are refused. */
function parseHtml(html: string): { shown: string; tags: string[] } | { error: string } {
  const tags: string[] = [];
  const stack: string[] = [];
  const tagRe = /<(\/?)([a-z-]+)([^>]*)>/gi;
  for (const m of html.matchAll(tagRe)) {
    const name = m[2]!.toLowerCase();
    if (!ALLOWED_TAGS.has(name))
      return { error: `Bad Request: can't parse entities: Unsupported start tag "${name}" at byte offset ${m.index}` };
    if (m[1]) {
      if (stack.pop() !== name)
        return {
          error: `Bad Request: can't parse entities: Unmatched end tag at byte offset ${m.index}, expected "</${stack.at(-1) ?? ''}>", found "</${name}>"`,
        };
    } else {
      stack.push(name);
      tags.push(name);
    }
  }
  if (stack.length) return { error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${stack.at(-1)}"` };
  const stripped = html.replace(tagRe, '');
  if (/&(?!(amp|lt|gt|quot|#\d+|#x[0-9a-f]+);)/i.test(stripped)) return { error: "Bad Request: can't parse entities: Unsupported entity" };
  const shown = stripped
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_x, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&amp;/g, '&');
  return { shown, tags };
}

export class FakeBotApi extends FakeHttpServer<Call, Answer> {
  /** Members by chat id (1, the bot, when not set). */
  readonly memberCounts = new Map<number, number>();
  readonly token = '4242424242:AAH-fake-token-for-herald-tests_0123';
  readonly bot = { id: 4242424242, is_bot: true, first_name: 'Herald Bot', username: 'herald_test_bot' };
  readonly chats = new Map<number, { id: number; type: string; title?: string; username?: string; member: Record<string, unknown> }>();
  readonly messages: FakeMessage[] = [];
  readonly calls: Array<{ method: string; params: Record<string, unknown> }> = [];
  readonly updates: Array<Record<string, unknown>> = [];
  #nextMessage = 100;

  constructor() {
    super();
    this.addChat(
      { id: -1001234567890, type: 'channel', title: 'Herald News', username: 'heraldnews' },
      { status: 'administrator', can_post_messages: true },
    );
    this.addChat({ id: -1009876543210, type: 'supergroup', title: 'Private Group' }, { status: 'member' });
    this.addChat({ id: -1005555555555, type: 'channel', title: 'Not Ours' }, { status: 'left' });
  }

  addChat(chat: { id: number; type: string; title?: string; username?: string }, member: Record<string, unknown>): void {
    this.chats.set(chat.id, { ...chat, member });
    this.updates.push({
      update_id: this.updates.length + 1,
      my_chat_member: { chat, from: { id: 1 }, date: 0, new_chat_member: { user: this.bot, ...member } },
    });
  }

  protected async serve(call: FakeCall): Promise<Answer> {
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(call.path);
    if (!match) return fail(404, 'Not Found');
    const [, token, method] = match;
    // Multipart form data carries line breaks as CRLF; the Bot API reads them as newlines, and
    // reads fields holding JSON (reply_parameters, media) as JSON.
    const { fields: params, files } = await parseBody(call, (value) =>
      /^[[{]/.test(value) ? JSON.parse(value) : value.replace(/\r\n/g, '\n'),
    );
    this.calls.push({ method: method!, params });
    if (token !== this.token) return fail(401, 'Unauthorized');
    return this.scripted.take({ method: method!, params }) ?? this.#call(method!, params, files);
  }

  #chat(id: unknown) {
    const key = String(id);
    if (key.startsWith('@')) return [...this.chats.values()].find((c) => c.username === key.slice(1));
    return this.chats.get(Number(key));
  }

  #call(method: string, p: Record<string, unknown>, files: Map<string, File>): Answer {
    const ok = (result: unknown): Answer => ({ status: 200, body: { ok: true, result } });
    switch (method) {
      case 'getMe':
        return ok(this.bot);
      case 'getUpdates':
        return ok(this.updates);
      case 'getChat': {
        const chat = this.#chat(p.chat_id);
        if (!chat) return fail(400, 'Bad Request: chat not found');
        const { member: _m, ...rest } = chat;
        return ok(rest);
      }
      case 'getChatMemberCount': {
        const chat = this.#chat(p.chat_id);
        if (!chat) return fail(400, 'Bad Request: chat not found');
        return ok(this.memberCounts.get(chat.id) ?? 1);
      }
      case 'getChatMember': {
        const chat = this.#chat(p.chat_id);
        if (!chat) return fail(400, 'Bad Request: chat not found');
        return ok({ user: this.bot, ...chat.member });
      }
      case 'sendMessage':
      case 'sendPhoto':
      case 'sendVideo':
      case 'sendAnimation':
      case 'sendMediaGroup':
        return this.#send(method, p, files);
      default:
        return fail(404, 'Not Found: method not found');
    }
  }

  #send(method: string, p: Record<string, unknown>, files: Map<string, File>): Answer {
    const chat = this.#chat(p.chat_id);
    if (!chat) return fail(400, 'Bad Request: chat not found');
    if (chat.member.status === 'left' || chat.member.status === 'kicked')
      return fail(403, 'Forbidden: bot is not a member of the channel chat');
    const reply = p.reply_parameters as { message_id?: number; allow_sending_without_reply?: boolean } | undefined;
    if (
      reply?.message_id !== undefined &&
      !this.messages.some((m) => m.message_id === reply.message_id && m.chat.id === chat.id) &&
      !reply.allow_sending_without_reply
    ) {
      return fail(400, 'Bad Request: message to be replied not found');
    }
    const base = {
      chat: { id: chat.id, type: chat.type, ...(chat.title && { title: chat.title }), ...(chat.username && { username: chat.username }) },
      date: Math.floor(Date.now() / 1000),
    };
    const replyTo = reply?.message_id !== undefined ? { reply_to_message: { message_id: reply.message_id } } : {};
    const parse = (html: string | undefined, limit: number, what: string) => {
      if (html === undefined) return { shown: '', tags: [] };
      const parsed = p.parse_mode === 'HTML' ? parseHtml(html) : { shown: html, tags: [] };
      if ('error' in parsed) return parsed;
      if (parsed.shown.length > limit) return { error: `Bad Request: ${what} is too long` };
      return parsed;
    };
    const upload = (field: string) => {
      const file = files.get(field);
      return file ? { name: file.name, type: file.type, size: file.size } : undefined;
    };
    if (method === 'sendMessage') {
      if (typeof p.text !== 'string' || p.text.trim() === '') return fail(400, 'Bad Request: message text is empty');
      const parsed = parse(p.text, 4096, 'message');
      if ('error' in parsed) return fail(400, parsed.error);
      return this.#store({ ...base, ...replyTo, message_id: 0, text: parsed.shown, shown: parsed.shown, tags: parsed.tags, uploads: [] });
    }
    const caption = parse(p.caption as string | undefined, 1024, 'message caption');
    if ('error' in caption) return fail(400, caption.error);
    if (method === 'sendMediaGroup') {
      const media = p.media as Array<{ type: string; media: string; caption?: string; parse_mode?: string }>;
      if (!Array.isArray(media) || media.length < 2 || media.length > 10)
        return fail(400, 'Bad Request: wrong number of media in the album');
      const groupId = String(Date.now()) + this.#nextMessage;
      const stored: FakeMessage[] = [];
      for (const item of media) {
        const file = upload(item.media.replace('attach://', ''));
        if (!file) return fail(400, 'Bad Request: wrong file identifier/HTTP URL specified');
        const parsed =
          item.caption !== undefined
            ? item.parse_mode === 'HTML'
              ? parseHtml(item.caption)
              : { shown: item.caption, tags: [] }
            : { shown: '', tags: [] };
        if ('error' in parsed) return fail(400, parsed.error);
        stored.push(
          this.#keep({
            ...base,
            ...replyTo,
            message_id: 0,
            media_group_id: groupId,
            ...(item.caption !== undefined && { caption: parsed.shown }),
            shown: parsed.shown,
            tags: parsed.tags,
            uploads: [file],
            ...this.#fileFields(item.type, file.size),
          }),
        );
      }
      return { status: 200, body: { ok: true, result: stored.map((m) => this.#public(m)) } };
    }
    const field = { sendPhoto: 'photo', sendVideo: 'video', sendAnimation: 'animation' }[method]!;
    const file = upload(field);
    if (!file) return fail(400, `Bad Request: there is no ${field} in the request`);
    return this.#store({
      ...base,
      ...replyTo,
      message_id: 0,
      ...(p.caption !== undefined && { caption: caption.shown }),
      shown: caption.shown,
      tags: caption.tags,
      uploads: [file],
      ...this.#fileFields(field, file.size),
    });
  }

  #fileFields(type: string, size: number) {
    const file_id = `file-${this.#nextMessage}-${size}`;
    return type === 'photo' ? { photo: [{ file_id, file_size: size }] } : { video: { file_id, file_size: size } };
  }

  #keep(message: FakeMessage): FakeMessage {
    message.message_id = this.#nextMessage++;
    this.messages.push(message);
    return message;
  }

  #store(message: FakeMessage): Answer {
    return { status: 200, body: { ok: true, result: this.#public(this.#keep(message)) } };
  }

  #public(m: FakeMessage) {
    const { shown: _s, tags: _t, uploads: _u, ...rest } = m;
    return rest;
  }

  /** A message as a person would see it in the chat. */
  find(id: string | number): FakeMessage | undefined {
    return this.messages.find((m) => m.message_id === Number(id));
  }
}
