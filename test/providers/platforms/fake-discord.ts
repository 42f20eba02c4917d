import type http from 'node:http';
import { parseBody, ScriptedAnswers, startFakeHttp, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

export type DiscordMessage = {
  id: string;
  channel_id: string;
  content: string;
  webhook_id?: string;
  username?: string;
  nonce?: string;
  message_reference?: { message_id: string };
  allowed_mentions?: unknown;
  attachments: Array<{ id: string; filename: string; size: number; content_type: string; description?: string; bytes: Buffer }>;
  /** Set by a test: the message's reactions, as Discord gives them. */
  reactions?: Array<{ emoji: { id: string | null; name: string }; count: number; count_details: { burst: number; normal: number } }>;
};

/** Applies the next message create, then cuts the connection before answering (a lost answer). */
type Drop = { drop: true };

/**
 * A local server speaking the parts of Discord's HTTP API Herald uses (v10): channel webhooks
 * (execute with ?wait=true, get), bot messages with nonce/enforce_nonce and message_reference,
 * multipart files[n] with payload_json, the bot's guilds and channels, a message read with its
 * reactions, a guild read with its approximate counts, and Discord's error shapes (400 Invalid
 * Form Body, 401, 403 Missing Access, 404 Unknown Webhook / Unknown Message, 429 with retry_after).
 */
export async function startFakeDiscord() {
  const botToken = 'MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123';
  const channelId = '112233445566778899';
  const guildId = '998877665544332211';
  const webhookId = '223344556677889900';
  const webhookToken = 'hook-token_ABCDEFGHIJ';
  const messages: DiscordMessage[] = [];
  const failures = new ScriptedAnswers<FakeCall, FakeReply | Drop>();
  let next = 1_000_000_000_000_000_000n;
  /** The guild's approximate member count, and whether the bot may read the channel's history. */
  const state = { members: 120, readHistory: true };

  const send = (status: number, body: unknown): FakeReply => ({ status, body });

  /** A message's fields: a JSON body, or multipart form data with payload_json and files[n]. */
  async function readMessage(call: FakeCall): Promise<{ payload: Record<string, unknown>; files: Map<string, File> }> {
    const { fields, files } = await parseBody(call);
    return { payload: 'payload_json' in fields ? JSON.parse(String(fields.payload_json)) : fields, files };
  }

  async function create(call: FakeCall, res: http.ServerResponse, origin: { webhook: boolean }, drop = false): Promise<FakeReply | void> {
    const { payload, files } = await readMessage(call);
    const content = String(payload.content ?? '');
    if ([...content].length > 2000) {
      return send(400, {
        code: 50035,
        message: 'Invalid Form Body',
        errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } },
      });
    }
    if (payload.enforce_nonce && payload.nonce) {
      const same = messages.find((m) => m.nonce === payload.nonce);
      if (same) return send(200, view(same));
    }
    const reference = payload.message_reference as { message_id: string } | undefined;
    if (reference && !messages.some((m) => m.id === reference.message_id)) {
      return send(400, {
        code: 50035,
        message: 'Invalid Form Body',
        errors: { message_reference: { _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }] } },
      });
    }
    const declared = (payload.attachments ?? []) as Array<{ id: number; filename: string; description?: string }>;
    const attachments = await Promise.all(
      declared.map(async (a) => {
        const file = files.get(`files[${a.id}]`);
        if (!file) throw new Error(`files[${a.id}] missing`);
        const bytes = Buffer.from(await file.arrayBuffer());
        return {
          id: String(next++),
          filename: a.filename,
          size: bytes.byteLength,
          content_type: file.type,
          bytes,
          ...(a.description && { description: a.description }),
        };
      }),
    );
    const message: DiscordMessage = {
      id: String(next++),
      channel_id: channelId,
      content,
      attachments,
      ...(origin.webhook && { webhook_id: webhookId }),
      ...(typeof payload.username === 'string' && { username: payload.username }),
      ...(typeof payload.nonce === 'string' && { nonce: payload.nonce }),
      ...(reference && { message_reference: { message_id: reference.message_id } }),
      allowed_mentions: payload.allowed_mentions,
    };
    messages.push(message);
    if (drop) return void res.socket?.destroy();
    return send(200, view(message));
  }

  const view = (m: DiscordMessage) => ({
    ...m,
    attachments: m.attachments.map(({ bytes: _bytes, ...a }) => ({
      ...a,
      url: `https://cdn.discordapp.com/attachments/${channelId}/${a.id}/${a.filename}`,
    })),
  });

  const fake = await startFakeHttp(async (call, res) => {
    const { method, url } = call;
    const failure = failures.take(call);
    const drop = failure !== undefined && 'drop' in failure;
    if (failure && !('drop' in failure)) return failure;
    const hook = /^\/api(?:\/v10)?\/webhooks\/(\d+)\/([\w-]+)$/.exec(url.pathname);
    if (hook) {
      if (hook[1] !== webhookId || hook[2] !== webhookToken) return send(404, { message: 'Unknown Webhook', code: 10015 });
      if (method === 'GET')
        return send(200, { id: webhookId, type: 1, name: 'Herald hook', avatar: 'abc123', channel_id: channelId, guild_id: guildId });
      if (url.searchParams.get('wait') !== 'true') return send(204, undefined);
      return create(call, res, { webhook: true }, drop);
    }
    if (!url.pathname.startsWith('/api/v10/')) return send(404, { message: '404: Not Found', code: 0 });
    if (call.headers.authorization !== `Bot ${botToken}`) return send(401, { message: '401: Unauthorized', code: 0 });
    const path = url.pathname.slice('/api/v10'.length);
    if (method === 'GET' && path === '/users/@me')
      return send(200, { id: '445566778899001122', username: 'herald-bot', avatar: 'feed42', bot: true });
    if (method === 'GET' && path === '/users/@me/guilds') return send(200, [{ id: guildId, name: 'Herald HQ' }]);
    if (method === 'GET' && path === `/guilds/${guildId}/channels`) {
      return send(200, [
        { id: channelId, name: 'announcements', type: 0 },
        { id: '1', name: 'Voice', type: 2 },
        { id: '2', name: 'news', type: 5 },
      ]);
    }
    if (method === 'GET' && path === `/channels/${channelId}`)
      return send(200, { id: channelId, name: 'announcements', type: 0, guild_id: guildId });
    if (method === 'GET' && path === `/guilds/${guildId}`) {
      const counts = url.searchParams.get('with_counts') === 'true';
      return send(200, {
        id: guildId,
        name: 'Herald HQ',
        ...(counts && { approximate_member_count: state.members, approximate_presence_count: 7 }),
      });
    }
    const read = new RegExp(`^/channels/${channelId}/messages/(\\d+)$`).exec(path);
    if (method === 'GET' && read) {
      if (!state.readHistory) return send(403, { message: 'Missing Access', code: 50001 });
      const message = messages.find((m) => m.id === read[1]);
      if (!message) return send(404, { message: 'Unknown Message', code: 10008 });
      return send(200, view(message));
    }
    if (method === 'POST' && path === `/channels/${channelId}/messages`) return create(call, res, { webhook: false }, drop);
    if (path.startsWith('/channels/')) return send(404, { message: 'Unknown Channel', code: 10003 });
    return send(404, { message: '404: Not Found', code: 0 });
  });
  const base = fake.url;
  return {
    base,
    apiBase: `${base}/api/v10`,
    botToken,
    channelId,
    guildId,
    webhookUrl: `${base}/api/webhooks/${webhookId}/${webhookToken}`,
    messages,
    state,
    /** The next request gets this answer instead. */
    failNext: (status: number, body: unknown, headers?: Record<string, string>) =>
      failures.next({ status, body, ...(headers && { headers }) }),
    /** The next message is created but its answer is lost (the connection is cut). */
    dropNextAnswer: () => failures.next({ drop: true }),
    close: fake.close,
  };
}
