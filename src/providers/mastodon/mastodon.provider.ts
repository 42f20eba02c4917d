import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { ProviderError } from '../provider.ts';
import type * as P from '../provider.ts';
import { callMastodon, instanceSchema, MASTODON_SCOPES, mastodonConfig, mastodonConfigSchema } from './mastodon.client.ts';
import { mastodonMetrics } from './mastodon.metrics.ts';
import { countMastodonText, URL_LENGTH } from './mastodon.text.ts';

const DEFAULT_LIMIT = 500;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'];
const VIDEO_TYPES = ['video/mp4', 'video/webm', 'video/quicktime'];
/** Waits between polls of a media file being processed: quick at first, then up to a few seconds, about two minutes in all. */
const POLL_DELAYS_MS = [250, 500, 1000, 2000, ...Array<number>(28).fill(4000)];

/** The instance's limit as learnt when the channel was connected; Mastodon's default until then. */
function limitOf(config: Record<string, unknown>): number {
  return typeof config.maxCharacters === 'number' ? config.maxCharacters : DEFAULT_LIMIT;
}

const settingsSchema = z.object({
  visibility: z
    .enum(['public', 'unlisted', 'private', 'direct'])
    .optional()
    .describe(
      'Who sees it: `public` (default), `unlisted` (not in public timelines), `private` (followers only), `direct` (mentioned people only).',
    ),
  spoilerText: z
    .string()
    .max(500)
    .optional()
    .describe('A content warning shown in place of the text until opened; it counts toward the limit.'),
  sensitive: z.boolean().optional().describe('Hide the media behind a warning (implied by a content warning).'),
  language: z
    .string()
    .regex(/^[a-z]{2,3}$/, 'an ISO 639 language code such as `en`')
    .optional()
    .describe('The language of the text (ISO 639, e.g. `en`).'),
  alt: z
    .record(z.string(), z.string().max(1500))
    .optional()
    .describe('Alt text for media, keyed by the media id (or its URL): `{"<media id>": "A red kite over a field"}`.'),
});

type Settings = z.infer<typeof settingsSchema>;
type Account = { id: string; username: string; acct: string; display_name: string; avatar?: string; url?: string };
type Status = { id: string; url: string | null; uri: string };
type Media = { id: string; url: string | null; type: string };
type InstanceInfo = { maxCharacters: number; urlLength: number; maxMedia: number };

const instances = new Map<string, { at: number; info: InstanceInfo }>();
const INSTANCE_TTL_MS = 10 * 60_000;

/** The instance's own limits (`GET /api/v2/instance`), kept for a few minutes per instance. */
async function instanceInfo(ctx: Pick<P.ProviderContext, 'outbound' | 'signal'>, instance: string): Promise<InstanceInfo> {
  const cached = instances.get(instance);
  if (cached && Date.now() - cached.at < INSTANCE_TTL_MS) return cached.info;
  const { data } = await callMastodon<{
    configuration?: { statuses?: { max_characters?: number; characters_reserved_per_url?: number; max_media_attachments?: number } };
  }>(ctx, instance, '/api/v2/instance');
  const statuses = data?.configuration?.statuses ?? {};
  const info = {
    maxCharacters: statuses.max_characters ?? DEFAULT_LIMIT,
    urlLength: statuses.characters_reserved_per_url ?? URL_LENGTH,
    maxMedia: statuses.max_media_attachments ?? 4,
  };
  instances.set(instance, { at: Date.now(), info });
  return info;
}

/** Forgets what was learnt about instances (tests). */
export function clearMastodonInstances(): void {
  instances.clear();
}

function altText(settings: Settings, media: Pick<P.PublishMedia, 'id' | 'url'>): string | undefined {
  return settings.alt?.[media.id] ?? settings.alt?.[media.url];
}

/** Uploads one file and waits until the instance has processed it. */
async function upload(
  ctx: P.ProviderContext,
  instance: string,
  token: string,
  item: P.PublishMedia,
  description: string | undefined,
): Promise<string> {
  const form = new FormData();
  form.set('file', new Blob([await item.read()], { type: item.mimeType }), item.name);
  if (description) form.set('description', description);
  const { status, data } = await callMastodon<Media>(ctx, instance, '/api/v2/media', { body: form, token, write: true });
  if (status === 200 && data.url) return data.id;
  for (const delay of POLL_DELAYS_MS) {
    await sleep(delay, undefined, ctx.signal ? { signal: ctx.signal } : {});
    const polled = await callMastodon<Media>(ctx, instance, `/api/v1/media/${encodeURIComponent(data.id)}`, { token });
    if (polled.status === 200 && polled.data.url) return data.id;
  }
  throw new ProviderError('transient', `The instance is still processing ${item.name}; the publish will be tried again.`);
}

async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const { instance, accessToken } = mastodonConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const info = await instanceInfo(ctx, instance);
  const length =
    countMastodonText(input.text, info.urlLength) + (settings.spoilerText ? countMastodonText(settings.spoilerText, info.urlLength) : 0);
  if (length > info.maxCharacters)
    throw new ProviderError('rejected', `The status is ${length} characters long; ${new URL(instance).host} allows ${info.maxCharacters}.`);
  if (input.media.length > info.maxMedia)
    throw new ProviderError('rejected', `${new URL(instance).host} takes at most ${info.maxMedia} media per status.`);
  const mediaIds: string[] = [];
  for (const item of input.media) mediaIds.push(await upload(ctx, instance, accessToken, item, altText(settings, item)));
  const { data } = await callMastodon<Status>(ctx, instance, '/api/v1/statuses', {
    token: accessToken,
    write: true,
    // The instance keeps the key for about an hour: a retry of the same part returns the first status.
    headers: { 'idempotency-key': `herald-${input.postId}-${input.part}` },
    body: {
      status: input.text,
      ...(mediaIds.length && { media_ids: mediaIds }),
      visibility: settings.visibility ?? 'public',
      ...(settings.spoilerText && { spoiler_text: settings.spoilerText }),
      ...((settings.sensitive ?? Boolean(settings.spoilerText)) && mediaIds.length && { sensitive: true }),
      ...(settings.language && { language: settings.language }),
      ...(input.parent && { in_reply_to_id: input.parent.id }),
    },
  });
  return { id: data.id, url: data.url ?? data.uri, meta: { instance } };
}

function toAccount(instance: string, account: Account): P.ConnectedAccount {
  const host = new URL(instance).host;
  return {
    internalId: `${host}/${account.id}`,
    name: account.display_name || account.username,
    handle: `${account.username}@${host}`,
    picture: account.avatar ?? null,
  };
}

async function whoAmI(ctx: Pick<P.ProviderContext, 'outbound' | 'signal'>, instance: string, token: string): Promise<P.ConnectedAccount> {
  const { data } = await callMastodon<Account>(ctx, instance, '/api/v1/accounts/verify_credentials', { token });
  return toAccount(instance, data);
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({ instance: instanceSchema.meta({ title: 'Server' }) }),
  async start(ctx, { start, state }) {
    const instance = start.instance as string;
    const app =
      (await ctx.apps.get('mastodon', instance, ctx.redirectUri)) ??
      (await (async () => {
        const { data } = await callMastodon<{ client_id: string; client_secret: string }>(ctx, instance, '/api/v1/apps', {
          body: { client_name: 'Herald', redirect_uris: ctx.redirectUri, scopes: MASTODON_SCOPES },
        });
        if (!data?.client_id || !data.client_secret)
          throw new ProviderError('rejected', 'The instance did not register Herald as an application.');
        return ctx.apps.put('mastodon', instance, ctx.redirectUri, { clientId: data.client_id, clientSecret: data.client_secret });
      })());
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL('/oauth/authorize', instance);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: ctx.redirectUri,
      scope: MASTODON_SCOPES,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), pending: { instance, verifier } };
  },
  async finish(ctx, { code, pending }) {
    const instance = String(pending.instance);
    const app = await ctx.apps.get('mastodon', instance, ctx.redirectUri);
    if (!app) throw new ProviderError('rejected', "Herald's registration with this instance is gone; start connecting again.");
    const exchange = callMastodon<{ access_token: string }>(ctx, instance, '/oauth/token', {
      body: {
        grant_type: 'authorization_code',
        code,
        client_id: app.clientId,
        client_secret: app.clientSecret,
        redirect_uri: ctx.redirectUri,
        code_verifier: String(pending.verifier),
        scope: MASTODON_SCOPES,
      },
    });
    const { data } = await exchange.catch(async (error: unknown) => {
      // The instance forgot Herald's application (an admin removed it): register again next time.
      if (error instanceof ProviderError && error.options.status === 401) await ctx.apps.remove('mastodon', instance, ctx.redirectUri);
      throw error;
    });
    if (!data?.access_token) throw new ProviderError('rejected', 'The instance did not issue an access token.');
    const account = await whoAmI(ctx, instance, data.access_token);
    const info = await instanceInfo(ctx, instance);
    return { config: { instance, accessToken: data.access_token, maxCharacters: info.maxCharacters }, account };
  },
};

/** Posts statuses to an account on any Mastodon instance (or a server speaking its API). */
export const mastodonProvider: P.Provider = {
  identifier: 'mastodon',
  name: 'Mastodon',
  // An upper bound: each instance sets its own limit (checked in `validate` and before sending).
  textLimit: { max: 100_000, unit: 'graphemes' },
  textLimitFor: ({ config }) => ({ max: limitOf(config), unit: 'graphemes' }),
  countText: (text) => countMastodonText(text),
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: mastodonConfigSchema,
  configUrls: ['instance'],
  mediaRules: { maxItems: 4, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: 99 * 1024 * 1024, required: false },
  idempotentWrites: true,
  metrics: mastodonMetrics,
  connectHelp:
    'Connect with `{"provider":"mastodon","instance":"mastodon.social"}`: the answer\'s `url` opens the instance\'s sign-in, and the channel is created when the person approves. With a token made in Preferences → Development (scopes read:accounts, write:statuses, write:media), send `{"provider":"mastodon","instance":"…","accessToken":"…"}` instead; operators use the same fields with `herald admin channel create --provider mastodon --config`.',
  tools: {},
  validate({ text, media, settings, config, part }): P.MissingItem[] {
    const missing: P.MissingItem[] = [];
    // Learnt when the channel was connected through the API or a sign-in. A channel made otherwise (the
    // operator's command) has Mastodon's documented default until it is reconnected; the instance is
    // asked again before sending either way.
    const known = typeof config.maxCharacters === 'number';
    const limit = limitOf(config);
    const spoiler = typeof settings.spoilerText === 'string' ? settings.spoilerText : '';
    const length = countMastodonText(text) + (spoiler ? countMastodonText(spoiler) : 0);
    if (length > limit) {
      const allows = known
        ? `the instance allows ${limit}`
        : `Mastodon allows ${limit} unless the instance says otherwise (this channel has not learnt its instance's limit: reconnect it to learn it)`;
      missing.push({
        field: `value[${part}].content`,
        reason: `The status${spoiler ? ' with its content warning' : ''} is ${length} characters; ${allows} (URLs count 23).`,
      });
    }
    const videos = media.filter((m) => m.mimeType.startsWith('video/')).length;
    if (videos > 0 && media.length > 1)
      missing.push({ field: `value[${part}].image`, reason: 'Mastodon attaches one video alone, or up to four images.' });
    return missing;
  },
  async connectAccount(ctx) {
    const { instance, accessToken } = mastodonConfig(ctx.config);
    return whoAmI(ctx, instance, accessToken);
  },
  /** Keeps the instance's character limit with the token, as a sign-in does. */
  async completeConfig(ctx) {
    const { instance } = mastodonConfig(ctx.config);
    return { ...ctx.config, maxCharacters: (await instanceInfo(ctx, instance)).maxCharacters };
  },
  signIn,
  publish: send,
  comment: send,
};
