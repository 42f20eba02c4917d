import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
};

type Failure = { status: number; body: unknown; headers?: Record<string, string> };
/** Applies the next message create, then cuts the connection before answering (a lost answer). */
type Drop = { drop: true };

/**
 * A local server speaking the parts of Discord's HTTP API Herald uses (v10): channel webhooks
 * (execute with ?wait=true, get), bot messages with nonce/enforce_nonce and message_reference,
 * multipart files[n] with payload_json, the bot's guilds and channels, and Discord's error
 * shapes (400 Invalid Form Body, 401, 404 Unknown Webhook, 429 with retry_after).
 */
export async function startFakeDiscord() {
  const botToken = 'MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.abcdefghijklmnopqrstuvwxyz0123';
  const channelId = '112233445566778899';
  const guildId = '998877665544332211';
  const webhookId = '223344556677889900';
  const webhookToken = 'hook-token_ABCDEFGHIJ';
  const messages: DiscordMessage[] = [];
  const failures: Array<Failure | Drop> = [];
  let next = 1_000_000_000_000_000_000n;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };

  async function readMessage(req: http.IncomingMessage, raw: Buffer): Promise<{ payload: Record<string, unknown>; files: Map<string, File> }> {
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) return { payload: JSON.parse(raw.toString('utf8')), files: new Map() };
    const form = await new Request('http://discord.test/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData();
    const files = new Map<string, File>();
    for (const [name, value] of form.entries()) if (typeof value !== 'string') files.set(name, value);
    return { payload: JSON.parse(String(form.get('payload_json'))), files };
  }

  async function create(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse, origin: { webhook: boolean }, drop = false) {
    const { payload, files } = await readMessage(req, raw);
    const content = String(payload.content ?? '');
    if ([...content].length > 2000) {
      return send(res, 400, { code: 50035, message: 'Invalid Form Body', errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } });
    }
    if (payload.enforce_nonce && payload.nonce) {
      const same = messages.find((m) => m.nonce === payload.nonce);
      if (same) return send(res, 200, view(same));
    }
    const reference = payload.message_reference as { message_id: string } | undefined;
    if (reference && !messages.some((m) => m.id === reference.message_id)) {
      return send(res, 400, { code: 50035, message: 'Invalid Form Body', errors: { message_reference: { _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }] } } });
    }
    const declared = (payload.attachments ?? []) as Array<{ id: number; filename: string; description?: string }>;
    const attachments = await Promise.all(
      declared.map(async (a) => {
        const file = files.get(`files[${a.id}]`);
        if (!file) throw new Error(`files[${a.id}] missing`);
        const bytes = Buffer.from(await file.arrayBuffer());
        return { id: String(next++), filename: a.filename, size: bytes.byteLength, content_type: file.type, bytes, ...(a.description && { description: a.description }) };
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
    send(res, 200, view(message));
  }

  const view = (m: DiscordMessage) => ({ ...m, attachments: m.attachments.map(({ bytes: _bytes, ...a }) => ({ ...a, url: `https://cdn.discordapp.com/attachments/${channelId}/${a.id}/${a.filename}` })) });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url!, 'http://discord.test');
      void (async () => {
        const failure = failures.shift();
        const drop = failure !== undefined && 'drop' in failure;
        if (failure && !('drop' in failure)) return send(res, failure.status, failure.body, failure.headers);
        const hook = /^\/api(?:\/v10)?\/webhooks\/(\d+)\/([\w-]+)$/.exec(url.pathname);
        if (hook) {
          if (hook[1] !== webhookId || hook[2] !== webhookToken) return send(res, 404, { message: 'Unknown Webhook', code: 10015 });
          if (req.method === 'GET') return send(res, 200, { id: webhookId, type: 1, name: 'Herald hook', avatar: 'abc123', channel_id: channelId, guild_id: guildId });
          if (url.searchParams.get('wait') !== 'true') return send(res, 204, undefined);
          return create(req, raw, res, { webhook: true }, drop);
        }
        if (!url.pathname.startsWith('/api/v10/')) return send(res, 404, { message: '404: Not Found', code: 0 });
        if (req.headers.authorization !== `Bot ${botToken}`) return send(res, 401, { message: '401: Unauthorized', code: 0 });
        const path = url.pathname.slice('/api/v10'.length);
        if (req.method === 'GET' && path === '/users/@me') return send(res, 200, { id: '445566778899001122', username: 'herald-bot', avatar: 'feed42', bot: true });
        if (req.method === 'GET' && path === '/users/@me/guilds') return send(res, 200, [{ id: guildId, name: 'Herald HQ' }]);
        if (req.method === 'GET' && path === `/guilds/${guildId}/channels`) {
          return send(res, 200, [
            { id: channelId, name: 'announcements', type: 0 },
            { id: '1', name: 'Voice', type: 2 },
            { id: '2', name: 'news', type: 5 },
          ]);
        }
        if (req.method === 'GET' && path === `/channels/${channelId}`) return send(res, 200, { id: channelId, name: 'announcements', type: 0, guild_id: guildId });
        if (req.method === 'POST' && path === `/channels/${channelId}/messages`) return create(req, raw, res, { webhook: false }, drop);
        if (path.startsWith('/channels/')) return send(res, 404, { message: 'Unknown Channel', code: 10003 });
        send(res, 404, { message: '404: Not Found', code: 0 });
      })().catch((error: unknown) => send(res, 500, { message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    apiBase: `${base}/api/v10`,
    botToken,
    channelId,
    guildId,
    webhookUrl: `${base}/api/webhooks/${webhookId}/${webhookToken}`,
    messages,
    /** The next request gets this answer instead. */
    failNext: (status: number, body: unknown, headers?: Record<string, string>) => failures.push({ status, body, ...(headers && { headers }) }),
    /** The next message is created but its answer is lost (the connection is cut). */
    dropNextAnswer: () => failures.push({ drop: true }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
