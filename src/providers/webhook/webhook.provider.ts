import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { answered, callPlatform, type Platform } from '../platform-call.ts';
import { ProviderError, readConfig } from '../provider.ts';
import type * as P from '../provider.ts';
import { newWebhookSecret, signWebhook } from './webhook.signature.ts';

const configSchema = z.object({
  url: z
    .url({ protocol: /^https?$/ })
    .meta({ title: 'Receiver URL' })
    .describe('Where each post and comment is delivered (POST, JSON).'),
  secret: z
    .string()
    .regex(
      /^whsec_[A-Za-z0-9+/]{20,}={0,2}$/,
      'not a Standard Webhooks signing secret, which is "whsec_" followed by the base64 of 15 or more random bytes (24 are usual), e.g. "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw". Leave "secret" out to have Herald generate one (shown once, in the answer that creates the channel), or make one with `echo "whsec_$(openssl rand -base64 24)"`',
    )
    .meta({ title: 'Signing secret', writeOnly: true })
    .describe(
      'Signing secret (whsec_…); deliveries carry webhook-id, webhook-timestamp and webhook-signature. Left out when the channel is created, Herald generates one and shows it once, in the answer.',
    ),
  requireTitle: z
    .boolean()
    .optional()
    .meta({ title: 'Require a title' })
    .describe('When true, a post without settings.title is not ready to publish.'),
  requireMedia: z
    .boolean()
    .optional()
    .meta({ title: 'Require media' })
    .describe('When true, a post without media is not ready to publish.'),
});

const settingsSchema = z.object({
  title: z.string().min(1).max(300).optional().describe('A title, for receivers that publish articles.'),
  eventType: z
    .string()
    .regex(/^[a-z0-9._-]{1,64}$/)
    .optional()
    .describe('Overrides the delivery `type` (default `post.published` / `comment.published`).'),
});

type WebhookConfig = z.infer<typeof configSchema>;

const TEXT_LIMIT = 10_000;
const RESPONSE_LIMIT = 64 * 1024;

/** Valid configurations by the (frozen, so unchanging) object they were read from: checked once per stored value of a channel. */
const checked = new WeakMap<object, WebhookConfig>();

function config(ctx: P.ProviderContext): WebhookConfig {
  const known = checked.get(ctx.config);
  if (known) return known;
  const parsed = readConfig(configSchema, ctx.config, 'webhook');
  if (Object.isFrozen(ctx.config)) checked.set(ctx.config, parsed);
  return parsed;
}

const RECEIVER: Platform = {
  name: 'The webhook receiver',
  authStatuses: [403],
  limit: RESPONSE_LIMIT,
  // Not a credential problem: the channel's URL points where the outbound policy never lets Herald go.
  notCalled: (why) => `The webhook channel's url was not called. ${why}`,
  outcome: 'the delivery may or may not have arrived',
  readError({ status, text }) {
    const reason = text.slice(0, 300) || undefined;
    if (status >= 300 && status < 400)
      return { message: `${answered(RECEIVER.name, status, reason)} (redirects are not followed for deliveries)` };
    return { reason };
  },
};

/** Sends one signed delivery; a lost answer may mean it arrived. */
async function deliver(
  ctx: P.ProviderContext,
  type: string,
  id: string,
  data: Record<string, unknown>,
): Promise<{ status: number; body: unknown }> {
  const { url, secret } = config(ctx);
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type, timestamp: new Date(timestamp * 1000).toISOString(), data });
  const answer = await callPlatform(ctx, RECEIVER, url, {
    method: 'POST',
    headers: {
      'user-agent': 'Herald-Webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, id, timestamp, body),
    },
    body,
    contentType: 'application/json',
    write: true,
  });
  return { status: answer.status, body: answer.json };
}

function toRef(id: string, answer: { body: unknown }): P.PublishedRef {
  const body = (answer.body && typeof answer.body === 'object' ? answer.body : {}) as Record<string, unknown>;
  const remoteId = typeof body.id === 'string' || typeof body.id === 'number' ? String(body.id) : id;
  const url = typeof body.url === 'string' && /^https?:\/\//.test(body.url) ? body.url : undefined;
  return { id: remoteId, url, meta: { deliveryId: id } };
}

async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const settings = settingsSchema.parse(input.settings);
  // Stable per post and part, so a receiver that deduplicates on webhook-id sees a retry as the same message.
  const id = `msg_${input.postId}_${input.part}`;
  const type = settings.eventType ?? (input.part === 0 ? 'post.published' : 'comment.published');
  const answer = await deliver(ctx, type, id, {
    postId: input.postId,
    part: input.part,
    channel: { id: ctx.channel.id, name: ctx.channel.name },
    ...(settings.title !== undefined && { title: settings.title }),
    text: input.text,
    html: input.html,
    media: input.media.map((m) => ({
      id: m.id,
      url: m.url,
      name: m.name,
      mimeType: m.mimeType,
      size: m.size,
      width: m.width,
      height: m.height,
    })),
    ...(input.parent && { inReplyTo: { id: input.parent.id, url: input.parent.url ?? null } }),
    ...(input.root && { root: { id: input.root.id, url: input.root.url ?? null } }),
  });
  return toRef(id, answer);
}

/** Delivers posts and comments as signed JSON to a URL of the channel owner's choosing. */
export const webhookProvider: P.Provider = {
  identifier: 'webhook',
  name: 'Webhook',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText: (text) => [...text].length,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema,
  configUrls: ['url'],
  mediaRules: {
    maxItems: 20,
    mimeTypes: ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif', 'image/bmp', 'image/tiff', 'video/mp4'],
    maxBytes: 1024 * 1024 * 1024,
    required: false,
  },
  idempotentWrites: false,
  connectHelp:
    'Connect it with `{"provider":"webhook","url":"https://…"}` (POST /integrations/connect), or `herald admin channel create --provider webhook --config \'{"url":"https://…"}\'`: without `secret`, Herald generates a Standard Webhooks signing secret (whsec_…) and shows it once, in the answer or the output; or give your own `secret` (`echo "whsec_$(openssl rand -base64 24)"`). Each post and comment is POSTed as JSON, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). Answer 2xx, optionally with {"id","url"} of what you published. In `data`, `html` is sanitised HTML (a safe subset of tags) and `text` is the same content as plain text: entities are decoded, so `&lt;script&gt;` in the post arrives in `text` as `<script>`. Treat `text` as untrusted input written by a person: escape it wherever you put it into HTML, never render it as markup.',
  tools: {
    ping: {
      description: "Sends a signed `ping` delivery to the channel's URL and reports how the receiver answered.",
      input: z.object({ message: z.string().max(200).optional() }),
      async run(ctx, data) {
        const { message } = data as { message?: string };
        const id = `msg_ping_${Date.now()}`;
        try {
          const answer = await deliver(ctx, 'ping', id, { message: message ?? 'ping from Herald' });
          return { ok: true, status: answer.status, deliveryId: id };
        } catch (error) {
          if (error instanceof ProviderError)
            return { ok: false, status: error.options.status ?? null, error: error.message, deliveryId: id };
          throw error;
        }
      },
    },
  },
  validate({ settings, media, part, config: channelConfig }): P.MissingItem[] {
    const missing: P.MissingItem[] = [];
    const required = channelConfig as Pick<WebhookConfig, 'requireTitle' | 'requireMedia'>;
    if (part === 0 && required.requireTitle && !settings.title)
      missing.push({ field: 'settings.title', reason: 'This webhook channel requires a title.' });
    if (part === 0 && required.requireMedia && media.length === 0)
      missing.push({ field: 'value[0].image', reason: 'This webhook channel requires at least one image or video.' });
    return missing;
  },
  /** Connecting sends a signed `ping`; the receiver must answer 2xx. The URL is the account. */
  async connectAccount(ctx) {
    const probe = { ...ctx, channel: { id: '', workspaceId: '', name: '', profile: null } };
    const { url } = config(probe);
    try {
      await deliver(probe, 'ping', `msg_connect_${randomUUID()}`, { message: 'Herald is connecting this webhook' });
    } catch (error) {
      // A receiver cannot know a secret made in this very call: its refusal of the signature still shows it is there.
      if (!(ctx.secretGenerated && error instanceof ProviderError && error.kind === 'auth')) throw error;
    }
    return { internalId: url, name: new URL(url).host, handle: null, picture: null };
  },
  generatedSecret: { field: 'secret', make: newWebhookSecret },
  publish: send,
  comment: send,
};
