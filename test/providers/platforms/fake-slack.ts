import { parseBody, ScriptedAnswers, startFakeHttp, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

export type SlackMessage = {
  ts: string;
  channel: string;
  text: string;
  thread_ts?: string;
  blocks?: Array<Record<string, unknown>>;
  /** Set by a test: people's reactions, as Slack lists them. */
  reactions?: Array<{ name: string; count: number; users: string[] }>;
};
type SlackFile = { id: string; name: string; alt?: string; length: number; bytes?: Buffer; completed: boolean };

/**
 * A local server speaking the Slack Web API methods Herald uses: auth.test, conversations.info,
 * conversations.list, chat.postMessage (thread_ts, blocks with slack_file images), and the
 * external upload flow (files.getUploadURLExternal → POST the bytes → files.completeUploadExternal),
 * and the numbers: reactions.get (the message with its reactions and, on a thread's parent,
 * reply_count) and conversations.info's num_members. Refusals are `200 {ok:false, error}`
 * (`missing_scope` with `needed` and `provided` for a scope the token lacks); rate limits are
 * 429 with Retry-After.
 */
export async function startFakeSlack() {
  const botToken = 'xoxb-1234567890-0987654321-abcdefghijklmnop';
  const channel = 'C0HERALD01';
  const messages: SlackMessage[] = [];
  const files = new Map<string, SlackFile>();
  const failures = new ScriptedAnswers<FakeCall>();
  /** The bot token's scopes; a test removes one to see the refusal. */
  const scopes = new Set(['chat:write', 'files:write', 'channels:read', 'groups:read', 'reactions:read']);
  const state = { members: 12 };
  /** While set, reactions.get calls wait here until `release` (a slow platform); `waiting` resolves at the first one held. */
  const hold: { on: boolean; held: Array<() => void>; waiting: Promise<void>; arrived: () => void } = {
    on: false,
    held: [],
    waiting: Promise.resolve(),
    arrived: () => {},
  };
  let seq = 0;
  const lacking = (scope: string) =>
    scopes.has(scope) ? undefined : send(200, { ok: false, error: 'missing_scope', needed: scope, provided: [...scopes].join(',') });
  /** A message as Slack's read methods give it: a thread's parent carries its reply count. */
  const read = (m: SlackMessage) => {
    const replies = messages.filter((r) => r.thread_ts === m.ts);
    return {
      type: 'message',
      ts: m.ts,
      text: m.text,
      ...(m.thread_ts && { thread_ts: m.thread_ts }),
      ...(replies.length > 0 && { thread_ts: m.ts, reply_count: replies.length, reply_users_count: 1 }),
      ...(m.reactions?.length && { reactions: m.reactions }),
    };
  };

  const send = (status: number, body: unknown): FakeReply => ({ status, body });
  /** A method's arguments: a JSON body, or the query and a URL-encoded form. */
  const args = async (call: FakeCall): Promise<Record<string, unknown>> => {
    const { fields } = await parseBody(call);
    return String(call.headers['content-type'] ?? '').startsWith('application/json')
      ? fields
      : { ...Object.fromEntries(call.url.searchParams), ...fields };
  };

  const fake = await startFakeHttp(
    async (call) => {
      const { raw, url } = call;
      const upload = /^\/upload\/(F\w+)$/.exec(url.pathname);
      if (upload) {
        const file = files.get(upload[1]!);
        if (!file || raw.byteLength !== file.length) return send(400, { ok: false });
        file.bytes = raw;
        return { status: 200, body: `OK - ${raw.byteLength}`, headers: { 'content-type': 'text/plain' } };
      }
      const failure = failures.take(call);
      if (failure) return failure;
      if (call.headers.authorization !== `Bearer ${botToken}`) return send(200, { ok: false, error: 'invalid_auth' });
      const method = url.pathname.replace(/^\/api\//, '');
      const a = await args(call);
      switch (method) {
        case 'auth.test':
          return send(200, {
            ok: true,
            url: 'https://herald-hq.slack.com/',
            team: 'Herald HQ',
            user: 'herald',
            team_id: 'T0001',
            user_id: 'U0001',
            bot_id: 'B0001',
          });
        case 'conversations.info':
          if (a.channel !== channel) return send(200, { ok: false, error: 'channel_not_found' });
          return send(200, {
            ok: true,
            channel: {
              id: channel,
              name: 'launches',
              is_private: false,
              ...(a.include_num_members === 'true' && { num_members: state.members }),
            },
          });
        case 'reactions.get': {
          if (hold.on) {
            hold.arrived();
            await new Promise<void>((resolve) => hold.held.push(resolve));
          }
          const refused = lacking('reactions:read');
          if (refused) return refused;
          if (a.channel !== channel) return send(200, { ok: false, error: 'channel_not_found' });
          const message = messages.find((m) => m.ts === a.timestamp);
          if (!message) return send(200, { ok: false, error: 'message_not_found' });
          return send(200, { ok: true, type: 'message', channel, message: read(message) });
        }
        case 'conversations.list': {
          const page =
            a.cursor === 'page2'
              ? [{ id: 'C0OTHER002', name: 'random', is_member: false, is_private: false }]
              : [{ id: channel, name: 'launches', is_member: true, is_private: false }];
          return send(200, { ok: true, channels: page, response_metadata: { next_cursor: a.cursor === 'page2' ? '' : 'page2' } });
        }
        case 'chat.getPermalink': {
          const message = messages.find((m) => m.ts === a.message_ts);
          if (!message) return send(200, { ok: false, error: 'message_not_found' });
          const path = `https://herald-hq.slack.com/archives/${message.channel}/p${message.ts.replace('.', '')}`;
          return send(200, {
            ok: true,
            channel: message.channel,
            permalink: message.thread_ts ? `${path}?thread_ts=${message.thread_ts}&cid=${message.channel}` : path,
          });
        }
        case 'files.getUploadURLExternal': {
          const id = `F${String(++seq).padStart(8, '0')}`;
          files.set(id, {
            id,
            name: String(a.filename),
            length: Number(a.length),
            ...(a.alt_text !== undefined && { alt: String(a.alt_text) }),
            completed: false,
          });
          return send(200, { ok: true, upload_url: `${base}/upload/${id}`, file_id: id });
        }
        case 'files.completeUploadExternal': {
          const list = JSON.parse(String(a.files)) as Array<{ id: string }>;
          for (const f of list) {
            const file = files.get(f.id);
            if (!file?.bytes) return send(200, { ok: false, error: 'file_not_found' });
            file.completed = true;
          }
          return send(200, { ok: true, files: list.map((f) => ({ id: f.id })) });
        }
        case 'chat.postMessage': {
          if (a.channel !== channel) return send(200, { ok: false, error: 'channel_not_found' });
          const blocks = a.blocks as SlackMessage['blocks'];
          for (const block of blocks ?? []) {
            const id = (block.slack_file as { id?: string } | undefined)?.id;
            if (block.type === 'image' && !(id && files.get(id)?.completed)) return send(200, { ok: false, error: 'invalid_blocks' });
          }
          if (a.thread_ts && !messages.some((m) => m.ts === a.thread_ts && !m.thread_ts))
            return send(200, { ok: false, error: 'thread_not_found' });
          const ts = `1700000000.${String(++seq).padStart(6, '0')}`;
          const message: SlackMessage = {
            ts,
            channel,
            text: String(a.text),
            ...(a.thread_ts ? { thread_ts: String(a.thread_ts) } : {}),
            ...(blocks && { blocks }),
          };
          messages.push(message);
          return send(200, { ok: true, channel, ts, message });
        }
        default:
          return send(200, { ok: false, error: 'unknown_method' });
      }
    },
    { contentType: 'application/json; charset=utf-8' },
  );
  const base = fake.url;
  return {
    apiBase: `${base}/api`,
    botToken,
    channel,
    messages,
    files,
    scopes,
    /** Holds every reactions.get until `releaseReadings`; resolves once the first one is held. */
    holdReadings: () => {
      hold.on = true;
      hold.waiting = new Promise<void>((resolve) => (hold.arrived = resolve));
      return hold.waiting;
    },
    releaseReadings: () => {
      hold.on = false;
      hold.held.splice(0).forEach((resolve) => resolve());
    },
    /** The channel's member count conversations.info reports. */
    setMembers: (n: number) => void (state.members = n),
    failNext: (status: number, body: unknown, headers?: Record<string, string>) =>
      failures.next({ status, body, ...(headers && { headers }) }),
    close: fake.close,
  };
}
