import * as z from 'zod';
import { callPlatform, failureKind, readMedia, type Platform, type PlatformAnswer } from '../platform-call.ts';
import { isHttpsOrLoopback } from '../config-urls.ts';
import { markupConverter } from '../markup.ts';
import { slackMetrics } from './slack.metrics.ts';
import { ProviderError, readConfig, refuseInvalid, settingsIssues } from '../provider.ts';
import type * as P from '../provider.ts';

const SLACK_API = 'https://slack.com/api';
/** chat.postMessage truncates text past 40,000 characters. */
const TEXT_LIMIT = 40_000;
/** A section block's text holds at most 3,000 characters; a message at most 50 blocks. */
const SECTION_LIMIT = 3000;
const MAX_IMAGES = 10;
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'] as const;
const AUTH_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'token_expired',
  'account_inactive',
  'missing_scope',
  'no_permission',
  'ekm_access_denied',
]);
const TRANSIENT_ERRORS = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);
const EXPLAINED: Record<string, string> = {
  channel_not_found: 'the channel does not exist or the bot cannot see it',
  not_in_channel: 'the bot is not a member of the channel (invite it with /invite @your-bot)',
  is_archived: 'the channel is archived',
  msg_too_long: 'the message is too long',
  no_text: 'the message has no text',
  restricted_action: 'the workspace does not let this bot post there',
  invalid_blocks: 'Slack could not build the message (an image may not be ready or not readable by the bot)',
  thread_not_found: 'the message to reply to is gone',
};

export const slackConfigSchema = z.object({
  botToken: z
    .string()
    .trim()
    .regex(/^xox[bp]-[\w-]{10,}$/, 'a Slack bot token (xoxb-…) from OAuth & Permissions')
    .meta({ title: 'Bot token', writeOnly: true })
    .describe(
      'The Bot User OAuth Token (xoxb-…), with the chat:write and files:write scopes (channels:read, groups:read to list channels; reactions:read for analytics).',
    ),
  channel: z
    .string()
    .trim()
    .regex(/^[CGD][A-Z0-9]{6,}$/, 'a channel id such as C0123456789 (channel details → About → Channel ID)')
    .meta({ title: 'Channel ID' })
    .describe('The channel id (C…, or G… for older private channels); the bot must be a member.'),
  apiBase: z
    .string()
    .refine(isHttpsOrLoopback, 'an https URL (plain http only for a server on this machine)')
    .optional()
    .meta({ title: 'API host' })
    .describe(`Another API host (a gateway or a test server) instead of ${SLACK_API}.`),
});
type SlackConfig = z.infer<typeof slackConfigSchema>;

export const slackSettingsSchema = z.object({
  unfurlLinks: z.boolean().optional().describe("Whether Slack previews the links in the text (Slack's default: only for some links)."),
  alt: z.record(z.string(), z.string().max(2000)).optional().describe('Alt text for images, keyed by the media id or URL.'),
  broadcastReplies: z.boolean().optional().describe('Comments also appear in the channel, not only in the thread (reply_broadcast).'),
});
type SlackSettings = z.infer<typeof slackSettingsSchema>;

const listChannelsInput = z.object({
  includePrivate: z.boolean().default(true).describe('Also private channels the bot is in (needs groups:read).'),
});

/** Slack's mrkdwn: `&`, `<` and `>` are the characters Slack asks to escape; formatting in Slack's own syntax. */
export const htmlToSlack = markupConverter({
  bold: '*',
  italic: '_',
  strike: '~',
  code: '`',
  link: (text, href) => `<${href}|${text.replace(/\|/g, '¦')}>`,
  url: (href) => `<${href}>`,
  heading: (text) => `*${text}*`,
  bullet: '• ',
  characters: { '&': '&amp;', '<': '&lt;', '>': '&gt;' },
  codeCharacters: { '&': '&amp;', '<': '&lt;', '>': '&gt;' },
});

const countText = (text: string) => [...text].length;

export function parseConfig(ctx: Pick<P.ProviderContext, 'config'>): SlackConfig {
  return readConfig(slackConfigSchema, ctx.config, 'Slack');
}

/** Slack's Web API, for one call: it answers 200 with `ok: false` and an error code for most refusals. */
function slack(
  what: string,
  succeeded = (answer: PlatformAnswer) => answer.status === 200 && (answer.json as { ok?: unknown } | null)?.ok === true,
): Platform {
  return {
    name: 'Slack',
    succeeded,
    readError(answer) {
      const status = answer.status;
      const error = String((answer.json as { error?: unknown } | null)?.error ?? '');
      // Slack's error codes say what the status (most often 200) does not.
      const byStatus = failureKind(status, [403]);
      if (byStatus === 'rate_limited' || error === 'ratelimited')
        return { kind: 'rate_limited', message: `Slack is rate limiting ${what}.` };
      if (byStatus === 'transient' || TRANSIENT_ERRORS.has(error))
        return { kind: 'transient', message: `Slack failed (${error || status}) on ${what}; it will be retried.` };
      // A scope the token lacks: Slack names it in `needed`; as a 403, a reading of numbers refused for a permission.
      const needed = (answer.json as { needed?: unknown } | null)?.needed;
      if (error === 'missing_scope')
        return {
          kind: 'auth',
          status: 403,
          message: `Slack refused the bot token (missing_scope${typeof needed === 'string' ? `: it needs ${needed}` : ''}) on ${what}.`,
        };
      if (byStatus === 'auth' || AUTH_ERRORS.has(error))
        return { kind: 'auth', message: `Slack refused the bot token (${error || status}) on ${what}.` };
      const code = error || `HTTP ${status}`;
      return { kind: 'rejected', message: `Slack refused ${what}: ${EXPLAINED[error] ? `${EXPLAINED[error]} (${code})` : code}.` };
    },
  };
}

type SlackRequest = {
  json?: Record<string, unknown>;
  form?: Record<string, string>;
  query?: Record<string, string>;
  write?: boolean;
  /** Error codes that are an answer, not a failure (`message_not_found` when reading numbers): given back with `ok: false`. */
  answers?: readonly string[];
};

/** One Web API method. */
export async function slackCall(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'config'>,
  method: string,
  request: SlackRequest,
  what: string,
): Promise<Record<string, unknown>> {
  const config = parseConfig(ctx);
  const url = new URL(`${(config.apiBase ?? SLACK_API).replace(/\/+$/, '')}/${method}`);
  for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
  const { json, form, write, answers } = request;
  const platform = answers
    ? slack(what, (answer) => {
        const body = answer.json as { ok?: unknown; error?: unknown } | null;
        return answer.status === 200 && (body?.ok === true || answers.includes(String(body?.error)));
      })
    : slack(what);
  const answer = await callPlatform(ctx, platform, url.toString(), {
    token: config.botToken,
    ...(json && { json, contentType: 'application/json; charset=utf-8' }),
    ...(form && { form }),
    ...(write && { write }),
  });
  return (answer.json ?? {}) as Record<string, unknown>;
}

/** Uploads one image (getUploadURLExternal → the bytes → completeUploadExternal, not shared to any channel) and gives its file id. */
async function uploadImage(ctx: P.ProviderContext, item: P.PublishMedia, alt: string | undefined): Promise<string> {
  const bytes = await readMedia(item);
  const ticket = await slackCall(
    ctx,
    'files.getUploadURLExternal',
    { form: { filename: item.name, length: String(bytes.byteLength), ...(alt && { alt_text: alt }) } },
    `uploading ${item.name}`,
  );
  const uploadUrl = String(ticket.upload_url ?? '');
  const fileId = String(ticket.file_id ?? '');
  if (!uploadUrl || !fileId) throw new ProviderError('transient', 'Slack gave no upload URL.');
  await callPlatform(
    ctx,
    slack(`uploading ${item.name}`, (answer) => answer.status === 200),
    uploadUrl,
    { body: new Uint8Array(bytes), contentType: item.mimeType },
  );
  await slackCall(
    ctx,
    'files.completeUploadExternal',
    { form: { files: JSON.stringify([{ id: fileId, title: item.name }]) } },
    `uploading ${item.name}`,
  );
  return fileId;
}

/** The text in section blocks of at most 3,000 characters, cut between paragraphs where possible. */
function sections(text: string): Array<Record<string, unknown>> {
  const chunks: string[] = [];
  let current = '';
  for (const paragraph of text.split('\n\n')) {
    const joined = current ? `${current}\n\n${paragraph}` : paragraph;
    if (countText(joined) <= SECTION_LIMIT) {
      current = joined;
      continue;
    }
    if (current) chunks.push(current);
    const points = [...paragraph];
    while (points.length > SECTION_LIMIT) chunks.push(points.splice(0, SECTION_LIMIT).join(''));
    current = points.join('');
  }
  if (current.trim()) chunks.push(current);
  return chunks.map((chunk) => ({ type: 'section', text: { type: 'mrkdwn', text: chunk } }));
}

/** A message in the channel; a comment goes in the post's thread (thread_ts is the post's ts). */
async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = parseConfig(ctx);
  refuseInvalid(slackProvider, ctx, input);
  const settings: SlackSettings = slackSettingsSchema.parse(input.settings);
  const thread = input.part > 0 ? (input.root ?? input.parent) : undefined;
  if (input.part > 0 && !thread) throw new ProviderError('rejected', 'A Slack comment needs the post it belongs under.');
  const images: Array<Record<string, unknown>> = [];
  for (const item of input.media) {
    const alt = settings.alt?.[item.id] ?? settings.alt?.[item.url];
    const fileId = await uploadImage(ctx, item, alt);
    images.push({ type: 'image', slack_file: { id: fileId }, alt_text: alt || item.name });
  }
  const message = {
    channel: config.channel,
    text: input.text || input.media.map((m) => m.name).join(', '),
    mrkdwn: true,
    ...(images.length > 0 && { blocks: [...sections(input.text), ...images] }),
    ...(thread && { thread_ts: thread.id, ...(settings.broadcastReplies && { reply_broadcast: true }) }),
    ...(settings.unfurlLinks !== undefined && { unfurl_links: settings.unfurlLinks, unfurl_media: settings.unfurlLinks }),
  };
  const posted = await slackCall(ctx, 'chat.postMessage', { json: message, write: true }, 'the message');
  const ts = String(posted.ts ?? '');
  if (!ts) throw new ProviderError('unknown_outcome', "Slack answered without the message's ts.");
  const channel = String(posted.channel ?? config.channel);
  return { id: ts, url: await permalink(ctx, channel, ts), meta: { channel, ts, ...(thread && { threadTs: thread.id }) } };
}

/** The message's link; the message is already posted, so a failure here only leaves it without one. */
async function permalink(ctx: P.ProviderContext, channel: string, ts: string): Promise<string | undefined> {
  try {
    const answer = await slackCall(ctx, 'chat.getPermalink', { query: { channel, message_ts: ts } }, 'the message link');
    return typeof answer.permalink === 'string' && /^https:\/\//.test(answer.permalink) ? answer.permalink : undefined;
  } catch {
    return undefined;
  }
}

async function connectAccount(ctx: Omit<P.ProviderContext, 'channel'>): Promise<P.ConnectedAccount> {
  const config = parseConfig(ctx);
  const who = await slackCall(ctx, 'auth.test', { form: {} }, 'the bot token');
  const info = await slackCall(ctx, 'conversations.info', { query: { channel: config.channel } }, 'the channel');
  const channel = (info.channel ?? {}) as { id?: string; name?: string };
  return {
    internalId: channel.id ?? config.channel,
    name: channel.name ? `#${channel.name}` : config.channel,
    handle: typeof who.user === 'string' ? who.user : null,
    picture: null,
  };
}

/** Posts to a Slack channel as a bot; comments go in the post's thread. */
export const slackProvider: P.Provider = {
  identifier: 'slack',
  name: 'Slack',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText,
  toText: htmlToSlack,
  settingsSchema: slackSettingsSchema,
  configSchema: slackConfigSchema,
  configUrls: ['apiBase'],
  mediaRules: { maxItems: MAX_IMAGES, mimeTypes: IMAGE_TYPES, maxBytes: MAX_IMAGE_BYTES, required: false },
  // Slack has no idempotency key for chat.postMessage.
  idempotentWrites: false,
  connectHelp:
    'Create a Slack app (api.slack.com/apps → Create New App → From scratch), add the bot scopes chat:write and files:write (and channels:read, groups:read for listing channels; reactions:read for analytics) under OAuth & Permissions, install it to the workspace and copy the Bot User OAuth Token (xoxb-…). Invite the bot to the channel (/invite @your-app) and copy the channel id (channel details → About). Config: `{"botToken":"xoxb-…","channel":"C0123456789"}`; `apiBase` points at another API host.',
  tools: {
    listChannels: {
      description: 'Lists the channels the bot can see (id, name, whether it is a member and private), for `channel`.',
      input: listChannelsInput,
      async run(ctx, data) {
        const { includePrivate } = listChannelsInput.parse(data);
        const channels: Array<{ id: string; name: string; isMember: boolean; isPrivate: boolean }> = [];
        let cursor = '';
        // At most five pages of 200: enough for a picker, bounded work per request.
        for (let page = 0; page < 5; page++) {
          const answer = await slackCall(
            ctx,
            'conversations.list',
            {
              query: {
                types: includePrivate ? 'public_channel,private_channel' : 'public_channel',
                exclude_archived: 'true',
                limit: '200',
                ...(cursor && { cursor }),
              },
            },
            'listing channels',
          );
          for (const c of (answer.channels ?? []) as Array<{ id: string; name: string; is_member?: boolean; is_private?: boolean }>) {
            channels.push({ id: c.id, name: c.name, isMember: c.is_member === true, isPrivate: c.is_private === true });
          }
          cursor = String((answer.response_metadata as { next_cursor?: string } | undefined)?.next_cursor ?? '');
          if (!cursor) break;
        }
        return { channels };
      },
    },
  },
  validate({ text, media, settings, part }): P.MissingItem[] {
    const at = `value[${part}]`;
    const missing: P.MissingItem[] = [];
    const length = countText(text);
    if (length > TEXT_LIMIT)
      missing.push({ field: `${at}.content`, reason: `The text is ${length} characters long; Slack takes ${TEXT_LIMIT}.` });
    if (text.trim() === '' && media.length === 0)
      missing.push({ field: `${at}.content`, reason: 'A Slack message needs text or at least one image.' });
    if (media.length > MAX_IMAGES)
      missing.push({ field: `${at}.image`, reason: `${media.length} images; Herald sends at most ${MAX_IMAGES} per Slack message.` });
    media.forEach((item, i) => {
      if (!(IMAGE_TYPES as readonly string[]).includes(item.mimeType))
        missing.push({ field: `${at}.image[${i}]`, reason: `${item.name} is ${item.mimeType}; Slack image blocks take JPEG, PNG or GIF.` });
      else if (item.size > MAX_IMAGE_BYTES)
        missing.push({
          field: `${at}.image[${i}]`,
          reason: `${item.name} is ${item.size} bytes; Herald sends Slack images up to ${MAX_IMAGE_BYTES} bytes.`,
        });
    });
    missing.push(...settingsIssues(slackSettingsSchema, settings));
    return missing;
  },
  connectAccount,
  metrics: slackMetrics,
  publish: send,
  comment: send,
};
