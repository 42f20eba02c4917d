import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type SlackMessage = { ts: string; channel: string; text: string; thread_ts?: string; blocks?: Array<Record<string, unknown>> };
type SlackFile = { id: string; name: string; alt?: string; length: number; bytes?: Buffer; completed: boolean };
type Failure = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A local server speaking the Slack Web API methods Herald uses: auth.test, conversations.info,
 * conversations.list, chat.postMessage (thread_ts, blocks with slack_file images), and the
 * external upload flow (files.getUploadURLExternal → POST the bytes → files.completeUploadExternal).
 * Refusals are `200 {ok:false, error}`; rate limits are 429 with Retry-After.
 */
export async function startFakeSlack() {
  const botToken = 'xoxb-1234567890-0987654321-abcdefghijklmnop';
  const channel = 'C0HERALD01';
  const messages: SlackMessage[] = [];
  const files = new Map<string, SlackFile>();
  const failures: Failure[] = [];
  let seq = 0;
  let base = '';

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const args = (req: http.IncomingMessage, raw: Buffer, url: URL): Record<string, unknown> => {
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) return JSON.parse(raw.toString('utf8'));
    const out: Record<string, unknown> = Object.fromEntries(url.searchParams);
    if (type.startsWith('application/x-www-form-urlencoded')) Object.assign(out, Object.fromEntries(new URLSearchParams(raw.toString('utf8'))));
    return out;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url!, 'http://slack.test');
      const upload = /^\/upload\/(F\w+)$/.exec(url.pathname);
      if (upload) {
        const file = files.get(upload[1]!);
        if (!file || raw.byteLength !== file.length) return send(res, 400, { ok: false });
        file.bytes = raw;
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`OK - ${raw.byteLength}`);
      }
      const failure = failures.shift();
      if (failure) return send(res, failure.status, failure.body, failure.headers);
      if (req.headers.authorization !== `Bearer ${botToken}`) return send(res, 200, { ok: false, error: 'invalid_auth' });
      const method = url.pathname.replace(/^\/api\//, '');
      const a = args(req, raw, url);
      switch (method) {
        case 'auth.test':
          return send(res, 200, { ok: true, url: 'https://herald-hq.slack.com/', team: 'Herald HQ', user: 'herald', team_id: 'T0001', user_id: 'U0001', bot_id: 'B0001' });
        case 'conversations.info':
          if (a.channel !== channel) return send(res, 200, { ok: false, error: 'channel_not_found' });
          return send(res, 200, { ok: true, channel: { id: channel, name: 'launches', is_private: false } });
        case 'conversations.list': {
          const page = a.cursor === 'page2' ? [{ id: 'C0OTHER002', name: 'random', is_member: false, is_private: false }] : [{ id: channel, name: 'launches', is_member: true, is_private: false }];
          return send(res, 200, { ok: true, channels: page, response_metadata: { next_cursor: a.cursor === 'page2' ? '' : 'page2' } });
        }
        case 'chat.getPermalink': {
          const message = messages.find((m) => m.ts === a.message_ts);
          if (!message) return send(res, 200, { ok: false, error: 'message_not_found' });
          const path = `https://herald-hq.slack.com/archives/${message.channel}/p${message.ts.replace('.', '')}`;
          return send(res, 200, { ok: true, channel: message.channel, permalink: message.thread_ts ? `${path}?thread_ts=${message.thread_ts}&cid=${message.channel}` : path });
        }
        case 'files.getUploadURLExternal': {
          const id = `F${String(++seq).padStart(8, '0')}`;
          files.set(id, { id, name: String(a.filename), length: Number(a.length), ...(a.alt_text !== undefined && { alt: String(a.alt_text) }), completed: false });
          return send(res, 200, { ok: true, upload_url: `${base}/upload/${id}`, file_id: id });
        }
        case 'files.completeUploadExternal': {
          const list = JSON.parse(String(a.files)) as Array<{ id: string }>;
          for (const f of list) {
            const file = files.get(f.id);
            if (!file?.bytes) return send(res, 200, { ok: false, error: 'file_not_found' });
            file.completed = true;
          }
          return send(res, 200, { ok: true, files: list.map((f) => ({ id: f.id })) });
        }
        case 'chat.postMessage': {
          if (a.channel !== channel) return send(res, 200, { ok: false, error: 'channel_not_found' });
          const blocks = a.blocks as SlackMessage['blocks'];
          for (const block of blocks ?? []) {
            const id = (block.slack_file as { id?: string } | undefined)?.id;
            if (block.type === 'image' && !(id && files.get(id)?.completed)) return send(res, 200, { ok: false, error: 'invalid_blocks' });
          }
          if (a.thread_ts && !messages.some((m) => m.ts === a.thread_ts && !m.thread_ts)) return send(res, 200, { ok: false, error: 'thread_not_found' });
          const ts = `1700000000.${String(++seq).padStart(6, '0')}`;
          const message: SlackMessage = { ts, channel, text: String(a.text), ...(a.thread_ts ? { thread_ts: String(a.thread_ts) } : {}), ...(blocks && { blocks }) };
          messages.push(message);
          return send(res, 200, { ok: true, channel, ts, message });
        }
        default:
          return send(res, 200, { ok: false, error: 'unknown_method' });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiBase: `${base}/api`,
    botToken,
    channel,
    messages,
    files,
    failNext: (status: number, body: unknown, headers?: Record<string, string>) => failures.push({ status, body, ...(headers && { headers }) }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
