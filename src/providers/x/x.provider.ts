import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { grouped } from '../../lib/numbers.ts';
import { htmlToPlainText } from '../../content/html.ts';
import { callPlatform, readMedia, retryAfterMs, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { oauthPlatform, refreshTokenRenewal, field, pause, readTokens, storedTokens } from '../oauth-api.ts';
import { appUnavailable, platformApp, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readConfig } from '../provider.ts';
import type * as P from '../provider.ts';
import { xMetrics } from './x.metrics.ts';
import { countXText } from './x.text.ts';

const LIMIT = 280;
/** What X allows accounts with long posts (X Premium). */
const LONG_LIMIT = 25_000;
export const X_SCOPES = 'tweet.read tweet.write users.read media.write offline.access';
/** Access tokens live two hours; they are renewed when less than this is left. */
const REFRESH_MARGIN_MS = 10 * 60_000;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
/** Bytes per APPEND of a chunked upload (X takes up to 5 MB). */
const CHUNK_BYTES = 4 * 1024 * 1024;
const MAX_POLLS = 60;
/** X's limit on a media description (POST /2/media/metadata, `alt_text.text`). */
export const X_ALT_MAX = 1000;

export const xConfigSchema = z.object({
  accessToken: z.string().min(10).max(2000),
  refreshToken: z.string().min(10).max(2000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  userId: z.string().regex(/^\d{1,25}$/),
  username: z.string().min(1).max(50),
});
type XConfig = z.infer<typeof xConfigSchema>;

const settingsSchema = z.object({
  longPosts: z
    .boolean()
    .optional()
    .describe(
      `The account may post up to ${grouped(LONG_LIMIT)} characters (X Premium); otherwise ${LIMIT}, counted as X counts (URLs 23, CJK and emoji 2).`,
    ),
  replySettings: z
    .enum(['following', 'mentionedUsers', 'subscribers', 'verified'])
    .optional()
    .describe('Who may reply to the post (default: everyone).'),
  alt: z
    .record(z.string(), z.string().max(X_ALT_MAX, `X takes descriptions of up to ${grouped(X_ALT_MAX)} characters.`))
    .optional()
    .describe(
      `Descriptions (alt text) for images and GIFs, keyed by the media id (or its URL), up to ${grouped(X_ALT_MAX)} characters each; X takes none for videos.`,
    ),
});
type Settings = z.infer<typeof settingsSchema>;

function altText(settings: Settings, item: Pick<P.PublishMedia, 'id' | 'url'>): string | undefined {
  return settings.alt?.[item.id] ?? settings.alt?.[item.url];
}

export function xConfig(config: Record<string, unknown>): XConfig {
  return readConfig(xConfigSchema, config, 'X', () => "The X channel's credentials are incomplete; connect it again.");
}

/** X's error answers: `{title, detail, type}` (v2), `{errors:[{message}]}`, or OAuth's `{error, error_description}`. */
function readXError(answer: PlatformAnswer) {
  const json = answer.json;
  const reason = [
    field(json, 'detail'),
    field(json, 'errors', '0', 'message'),
    field(json, 'error_description'),
    field(json, 'title'),
    field(json, 'error'),
  ].find((v) => typeof v === 'string') as string | undefined;
  const reset = Number(answer.headers.get('x-rate-limit-reset'));
  const retry =
    retryAfterMs(answer.headers.get('retry-after')) ??
    (Number.isFinite(reset) && reset > 0 ? Math.max(1000, reset * 1000 - Date.now()) : undefined);
  if (answer.status === 403 && reason && /duplicate/i.test(reason)) {
    return {
      kind: 'rejected' as const,
      reason: `X refuses a post whose text is the same as a recent one of this account (${reason}); change the text.`,
    };
  }
  return { reason, retryAfterMs: retry };
}

const X = oauthPlatform('X', readXError);

export function call(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  path: string,
  options: PlatformRequest,
): Promise<PlatformAnswer> {
  return callPlatform(ctx, X, `${platformApp(ctx.platformApps, 'x').apiBase}${path}`, options);
}

function basicAuth(platformApps: PlatformApps): string {
  const app = platformApp(platformApps, 'x');
  return `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;
}

/** Exchanges a code or a refresh token at X's token endpoint (a confidential client: HTTP Basic). */
async function tokenRequest(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, form: Record<string, string>, now: Date) {
  const { json } = await call(ctx, '/2/oauth2/token', {
    form: { ...form, client_id: platformApp(ctx.platformApps, 'x').clientId },
    headers: { authorization: basicAuth(ctx.platformApps) },
  });
  return readTokens('X', json, now);
}

async function whoAmI(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  token: string,
): Promise<P.ConnectedAccount & { username: string }> {
  const { json } = await call(ctx, '/2/users/me?user.fields=profile_image_url', { token });
  const id = field(json, 'data', 'id');
  const username = field(json, 'data', 'username');
  if (typeof id !== 'string' || typeof username !== 'string') throw new ProviderError('rejected', 'X did not say whose account this is.');
  const name = field(json, 'data', 'name');
  const picture = field(json, 'data', 'profile_image_url');
  return {
    internalId: id,
    name: typeof name === 'string' && name ? name : username,
    handle: `@${username}`,
    picture: typeof picture === 'string' ? picture : null,
    username,
  };
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const verifier = randomBytes(32).toString('base64url');
    const url = new URL('/i/oauth2/authorize', platformApp(ctx.platformApps, 'x').signInBase);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: platformApp(ctx.platformApps, 'x').clientId,
      redirect_uri: ctx.redirectUri,
      scope: X_SCOPES,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { url: url.toString(), pending: { verifier } };
  },
  async finish(ctx, { code, pending }) {
    const tokens = await tokenRequest(
      ctx,
      { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri, code_verifier: String(pending.verifier) },
      new Date(),
    );
    const { username, ...account } = await whoAmI(ctx, tokens.accessToken);
    const config: XConfig = {
      ...storedTokens(tokens),
      userId: account.internalId,
      username,
    };
    return { config, account };
  },
};

async function waitProcessed(ctx: P.ProviderContext, token: string, mediaId: string, info: unknown, name: string): Promise<void> {
  let processing = info;
  for (let poll = 0; processing && poll < MAX_POLLS; poll++) {
    const state = field(processing, 'state');
    if (state === 'succeeded') return;
    if (state === 'failed') {
      const why = field(processing, 'error', 'message');
      throw new ProviderError('rejected', `X could not process ${name}${typeof why === 'string' ? `: ${why}` : ''}.`);
    }
    const after = Number(field(processing, 'check_after_secs'));
    await pause(Math.min(30, Number.isFinite(after) && after > 0 ? after : 1) * 1000, ctx.signal);
    const { json } = await call(ctx, `/2/media/upload?command=STATUS&media_id=${encodeURIComponent(mediaId)}`, { token });
    processing = field(json, 'data', 'processing_info');
  }
  if (processing) throw new ProviderError('transient', `X is still processing ${name}; the publish will be tried again.`);
}

function multipart(fields: Record<string, string>, file: { bytes: Uint8Array; type: string; name: string }): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('media', new Blob([file.bytes], { type: file.type }), file.name);
  return form;
}

/** Uploads one file (see `uploadFile`) and gives it its description, if it has one. */
async function upload(ctx: P.ProviderContext, token: string, item: P.PublishMedia, alt: string | undefined): Promise<string> {
  const id = await uploadFile(ctx, token, item);
  if (alt) await call(ctx, '/2/media/metadata', { token, json: { id, metadata: { alt_text: { text: alt } } } });
  return id;
}

/** Uploads one file: images in one request, videos and GIFs in chunks (initialize, append, finalize), then waits for processing. */
async function uploadFile(ctx: P.ProviderContext, token: string, item: P.PublishMedia): Promise<string> {
  const bytes = await readMedia(item);
  const video = item.mimeType.startsWith('video/');
  const gif = item.mimeType === 'image/gif';
  if (!video && !gif) {
    const form = multipart({ media_category: 'tweet_image', media_type: item.mimeType }, { bytes, type: item.mimeType, name: item.name });
    const { json } = await call(ctx, '/2/media/upload', { token, multipart: form });
    const id = field(json, 'data', 'id');
    if (typeof id !== 'string') throw new ProviderError('transient', `X did not return an id for ${item.name}.`);
    await waitProcessed(ctx, token, id, field(json, 'data', 'processing_info'), item.name);
    return id;
  }
  const init = await call(ctx, '/2/media/upload/initialize', {
    token,
    json: { media_type: item.mimeType, total_bytes: bytes.length, media_category: video ? 'tweet_video' : 'tweet_gif' },
  });
  const id = field(init.json, 'data', 'id');
  if (typeof id !== 'string') throw new ProviderError('transient', `X did not start the upload of ${item.name}.`);
  for (let offset = 0, segment = 0; offset < bytes.length; offset += CHUNK_BYTES, segment++) {
    const form = multipart(
      { segment_index: String(segment) },
      { bytes: bytes.subarray(offset, offset + CHUNK_BYTES), type: 'application/octet-stream', name: 'chunk' },
    );
    await call(ctx, `/2/media/upload/${encodeURIComponent(id)}/append`, { token, multipart: form });
  }
  const finalized = await call(ctx, `/2/media/upload/${encodeURIComponent(id)}/finalize`, { token, method: 'POST' });
  await waitProcessed(ctx, token, id, field(finalized.json, 'data', 'processing_info'), item.name);
  return id;
}

function limitFor(settings: Record<string, unknown>): number {
  return settings.longPosts === true ? LONG_LIMIT : LIMIT;
}

async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = xConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const length = countXText(input.text);
  if (length > limitFor(settings))
    throw new ProviderError('rejected', `The post counts ${length} as X counts it; the account allows ${limitFor(settings)}.`);
  const mediaIds: string[] = [];
  for (const item of input.media) mediaIds.push(await upload(ctx, config.accessToken, item, altText(settings, item)));
  const { json } = await call(ctx, '/2/tweets', {
    token: config.accessToken,
    write: true,
    json: {
      text: input.text,
      ...(mediaIds.length && { media: { media_ids: mediaIds } }),
      ...(input.parent && { reply: { in_reply_to_tweet_id: input.parent.id } }),
      ...(input.part === 0 && settings.replySettings && { reply_settings: settings.replySettings }),
    },
  });
  const id = field(json, 'data', 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'X accepted the post without saying its id.');
  return { id, url: `https://x.com/${config.username}/status/${id}` };
}

/** Posts to an X account signed in through the operator's X app (OAuth 2.0 with PKCE). */
export const xProvider: P.Provider = {
  identifier: 'x',
  name: 'X',
  textLimit: { max: LONG_LIMIT, unit: 'characters' },
  textLimitFor: ({ settings }) => ({ max: limitFor(settings), unit: 'characters' }),
  countText: countXText,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: xConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: 4, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: 512 * 1024 * 1024, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"x"}`: the answer\'s `url` opens X\'s sign-in, and the channel is created when the person approves. The server\'s operator registers the X app (X_CLIENT_ID, X_CLIENT_SECRET).',
  tools: {},
  unavailable: (platformApps) => appUnavailable(platformApps, 'x'),
  validate({ text, media, settings, part }): P.MissingItem[] {
    const missing: P.MissingItem[] = [];
    const length = countXText(text);
    const limit = limitFor(settings);
    if (length > limit)
      missing.push({
        field: `value[${part}].content`,
        reason: `The post counts ${length} as X counts it (URLs 23, CJK and emoji 2); the limit is ${limit}${limit === LIMIT ? ' (set `longPosts` for accounts allowed longer posts)' : ''}.`,
      });
    const videos = media.filter((m) => m.mimeType.startsWith('video/') || m.mimeType === 'image/gif').length;
    if (videos > 0 && media.length > 1)
      missing.push({ field: `value[${part}].image`, reason: 'X attaches one video or GIF alone, or up to four images.' });
    const parsed = settingsSchema.safeParse(settings);
    media.forEach((item, i) => {
      if (parsed.success && item.mimeType.startsWith('video/') && altText(parsed.data, item)) {
        missing.push({
          field: `settings.alt`,
          reason: `X takes descriptions for images and GIFs only; remove the one for the video (value[${part}].image[${i}]).`,
        });
      }
    });
    return missing;
  },
  signIn,
  renewal: refreshTokenRenewal('X', { marginMs: REFRESH_MARGIN_MS, read: xConfig, tokenRequest }),
  metrics: xMetrics,
  publish: send,
  comment: send,
};
