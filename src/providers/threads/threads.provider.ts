import * as z from 'zod';
import { graphemes } from '../../content/graphemes.ts';
import { htmlToPlainText } from '../../content/html.ts';
import { callPlatform, type PlatformAnswer, type PlatformRequest } from '../platform-call.ts';
import { longLivedRenewal, longLivedSignIn } from '../graph-api.ts';
import { oauthPlatform, field, pause, storedTokens } from '../oauth-api.ts';
import { appUnavailable, baseUrlNotPublic, platformApp, type PlatformApps } from '../platform-apps.ts';
import { lengthProblem, ProviderError, readConfig } from '../provider.ts';
import type * as P from '../provider.ts';
import { threadsMetrics } from './threads.metrics.ts';

const LIMIT = 500;
const SCOPES = 'threads_basic,threads_content_publish,threads_manage_insights';
const VERSION = 'v1.0';
/** Long-lived tokens live 60 days; renewed when a week is left. */
const REFRESH_MARGIN_MS = 7 * 24 * 3600_000;
/** How long a publish waits when the day's quota is used up before trying again (the window is a rolling 24 hours). */
export const QUOTA_RETRY_MS = 3600_000;
const IMAGE_TYPES = ['image/jpeg', 'image/png'];
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
/** Videos, alone or in a carousel, last up to five minutes (Threads' media specifications). */
const VIDEO_SECONDS = [0, 300] as const;
/** Waits between checks of a container being processed: quick at first, then up to five seconds, about two minutes in all. */
const POLL_DELAYS_MS = [0, 250, 500, 1000, 2000, ...Array<number>(24).fill(5000)];

export const threadsConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  userId: z.string().regex(/^\d{1,30}$/),
  username: z.string().min(1).max(100),
});
type ThreadsConfig = z.infer<typeof threadsConfigSchema>;

const settingsSchema = z.object({
  replyControl: z
    .enum(['everyone', 'accounts_you_follow', 'mentioned_only'])
    .optional()
    .describe('Who may reply: `everyone` (default), `accounts_you_follow`, `mentioned_only`.'),
  alt: z.record(z.string(), z.string().max(1000)).optional().describe('Alt text for media, keyed by the media id (or its URL).'),
});
type Settings = z.infer<typeof settingsSchema>;

const EMOJI_RE = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

/** Counts text as Threads does: characters, except that an emoji counts its UTF-8 bytes. */
export function countThreadsText(text: string): number {
  let n = 0;
  for (const segment of graphemes(text)) n += EMOJI_RE.test(segment) ? Buffer.byteLength(segment, 'utf8') : [...segment].length;
  return n;
}

/** Threads refuses a post with more than five distinct links. */
const MAX_LINKS = 5;
function distinctLinks(text: string): number {
  return new Set(text.match(/https?:\/\/[^\s<>"]+/gi) ?? []).size;
}

export function threadsConfig(config: Record<string, unknown>): ThreadsConfig {
  return readConfig(threadsConfigSchema, config, 'Threads', () => "The Threads channel's credentials are incomplete; connect it again.");
}

/** Graph API errors: `{error: {message, code, error_subcode, is_transient, error_user_msg}}`. */
export function readThreadsError(answer: PlatformAnswer) {
  const error = field(answer.json, 'error');
  const code = Number(field(error, 'code'));
  const message = [field(error, 'error_user_msg'), field(error, 'message'), field(answer.json, 'error_message')].find(
    (v) => typeof v === 'string',
  ) as string | undefined;
  if (code === 190) return { reason: message, kind: 'auth' as const };
  if ([4, 17, 32, 613].includes(code)) return { reason: message, kind: 'rate_limited' as const };
  if (field(error, 'is_transient') === true) return { reason: message, kind: 'transient' as const };
  return { reason: message };
}

function base(platformApps: PlatformApps): string {
  return platformApp(platformApps, 'threads').apiBase;
}

const THREADS = oauthPlatform('Threads', readThreadsError);

/** The address of a Graph API path (`/{id}/...`) at the API version Herald speaks. */
export function threadsUrl(platformApps: PlatformApps, path: string): string {
  return `${base(platformApps)}/${VERSION}${path}`;
}

function graph(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  path: string,
  options: PlatformRequest,
): Promise<PlatformAnswer> {
  return callPlatform(ctx, THREADS, threadsUrl(ctx.platformApps, path), options);
}

async function whoAmI(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  token: string,
): Promise<P.ConnectedAccount & { username: string }> {
  const { json } = await graph(ctx, '/me?fields=id,username,name,threads_profile_picture_url', { token });
  const id = field(json, 'id');
  const username = field(json, 'username');
  if (typeof id !== 'string' || typeof username !== 'string')
    throw new ProviderError('rejected', 'Threads did not say whose account this is.');
  const name = field(json, 'name');
  const picture = field(json, 'threads_profile_picture_url');
  return {
    internalId: id,
    name: typeof name === 'string' && name ? name : username,
    handle: username,
    picture: typeof picture === 'string' ? picture : null,
    username,
  };
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const url = new URL('/oauth/authorize', platformApp(ctx.platformApps, 'threads').signInBase);
    url.search = new URLSearchParams({
      client_id: platformApp(ctx.platformApps, 'threads').clientId,
      redirect_uri: ctx.redirectUri,
      scope: SCOPES,
      response_type: 'code',
      state,
    }).toString();
    return { url: url.toString(), pending: {} };
  },
  async finish(ctx, { code }) {
    const token = await longLivedSignIn(
      ctx,
      THREADS,
      {
        app: platformApp(ctx.platformApps, 'threads'),
        codeUrl: `${base(ctx.platformApps)}/oauth/access_token`,
        exchangeUrl: `${base(ctx.platformApps)}/access_token`,
        grantType: 'th_exchange_token',
      },
      code,
    );
    const { username, ...account } = await whoAmI(ctx, token.accessToken);
    const config: ThreadsConfig = {
      ...storedTokens(token),
      userId: account.internalId,
      username,
    };
    return { config, account };
  },
};

/** Herald's own media URL for a file, absolute (Threads fetches it). */
function mediaUrl(platformApps: PlatformApps, item: P.PublishMedia): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

/** Refuses a publish when the rolling 24-hour quota (posts, or replies) is used up: a delay, retried later. */
async function checkQuota(ctx: P.ProviderContext, config: ThreadsConfig, reply: boolean): Promise<void> {
  const { json } = await graph(ctx, `/${config.userId}/threads_publishing_limit?fields=quota_usage,config,reply_quota_usage,reply_config`, {
    token: config.accessToken,
  });
  const limits = field(json, 'data', '0');
  const used = Number(field(limits, reply ? 'reply_quota_usage' : 'quota_usage'));
  const total = Number(field(limits, reply ? 'reply_config' : 'config', 'quota_total'));
  if (Number.isFinite(used) && Number.isFinite(total) && used >= total) {
    throw new ProviderError(
      'rate_limited',
      `This Threads account used its ${total} ${reply ? 'replies' : 'posts'} of the last 24 hours; Herald tries again in an hour.`,
      { retryAfterMs: QUOTA_RETRY_MS },
    );
  }
}

async function container(ctx: P.ProviderContext, config: ThreadsConfig, params: Record<string, string>): Promise<string> {
  const { json } = await graph(ctx, `/${config.userId}/threads`, { token: config.accessToken, form: params });
  const id = field(json, 'id');
  if (typeof id !== 'string') throw new ProviderError('transient', 'Threads did not create the media container.');
  return id;
}

/** Waits until Threads has fetched and processed a container's media. */
async function ready(ctx: P.ProviderContext, config: ThreadsConfig, id: string): Promise<void> {
  for (const delay of POLL_DELAYS_MS) {
    if (delay) await pause(delay, ctx.signal);
    const { json } = await graph(ctx, `/${id}?fields=status,error_message`, { token: config.accessToken });
    const status = field(json, 'status');
    if (status === 'FINISHED') return;
    if (status === 'ERROR' || status === 'EXPIRED') {
      const why = field(json, 'error_message');
      throw new ProviderError('rejected', `Threads could not prepare the post${typeof why === 'string' ? `: ${why}` : ''}.`);
    }
  }
  throw new ProviderError('transient', 'Threads is still processing the media; the publish will be tried again.');
}

function mediaParams(platformApps: PlatformApps, item: P.PublishMedia, settings: Settings): Record<string, string> {
  const alt = settings.alt?.[item.id] ?? settings.alt?.[item.url];
  const video = item.mimeType.startsWith('video/');
  return {
    media_type: video ? 'VIDEO' : 'IMAGE',
    [video ? 'video_url' : 'image_url']: mediaUrl(platformApps, item),
    ...(alt && { alt_text: alt }),
  };
}

async function send(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = threadsConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const length = countThreadsText(input.text);
  if (length > LIMIT)
    throw new ProviderError(
      'rejected',
      `The post counts ${length} characters as Threads counts them (an emoji counts its UTF-8 bytes); Threads allows ${LIMIT}.`,
    );
  if (input.media.length > 0) {
    const notPublic = baseUrlNotPublic(ctx.platformApps);
    if (notPublic) throw new ProviderError('rejected', notPublic);
  }
  await checkQuota(ctx, config, input.part > 0);
  const common: Record<string, string> = {
    ...(input.text && { text: input.text }),
    ...(input.parent && { reply_to_id: input.parent.id }),
    ...(settings.replyControl && { reply_control: settings.replyControl }),
  };
  let creation: string;
  if (input.media.length === 0) {
    creation = await container(ctx, config, { media_type: 'TEXT', ...common });
  } else if (input.media.length === 1) {
    creation = await container(ctx, config, { ...mediaParams(ctx.platformApps, input.media[0]!, settings), ...common });
  } else {
    const children: string[] = [];
    for (const item of input.media)
      children.push(await container(ctx, config, { ...mediaParams(ctx.platformApps, item, settings), is_carousel_item: 'true' }));
    for (const child of children) await ready(ctx, config, child);
    creation = await container(ctx, config, { media_type: 'CAROUSEL', children: children.join(','), ...common });
  }
  await ready(ctx, config, creation);
  const { json } = await graph(ctx, `/${config.userId}/threads_publish`, {
    token: config.accessToken,
    form: { creation_id: creation },
    write: true,
  });
  const id = field(json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', "Threads published without saying the post's id.");
  let url = `https://www.threads.net/@${config.username}`;
  try {
    const { json: post } = await graph(ctx, `/${id}?fields=permalink`, { token: config.accessToken });
    const permalink = field(post, 'permalink');
    if (typeof permalink === 'string') url = permalink;
  } catch {
    // The post is published; only its address could not be read.
  }
  return { id, url };
}

/** Posts to a Threads account signed in through the operator's Meta app. */
export const threadsProvider: P.Provider = {
  identifier: 'threads',
  name: 'Threads',
  textLimit: { max: LIMIT, unit: 'characters' },
  countText: countThreadsText,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: threadsConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: 20, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: 1024 * 1024 * 1024, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"threads"}`: the answer\'s `url` opens Threads\' sign-in, and the channel is created when the person approves. The server\'s operator registers the Threads app (THREADS_APP_ID, THREADS_APP_SECRET); media is fetched by Threads from Herald, so BASE_URL must be public.',
  tools: {},
  unavailable: (platformApps) => appUnavailable(platformApps, 'threads'),
  validate({ text, media, part, platformApps }): P.MissingItem[] {
    const missing: P.MissingItem[] = [];
    const links = distinctLinks(text);
    if (links > MAX_LINKS)
      missing.push({
        field: `value[${part}].content`,
        reason: `The post has ${links} different links; Threads takes at most ${MAX_LINKS}.`,
      });
    media.forEach((m, i) => {
      const problem = VIDEO_TYPES.includes(m.mimeType) ? lengthProblem(m, VIDEO_SECONDS, 'Threads takes videos') : null;
      if (problem) missing.push({ field: `value[${part}].image[${i}]`, reason: problem });
    });
    if (media.length > 0) {
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: `value[${part}].image`, reason: notPublic });
    }
    return missing;
  },
  signIn,
  metrics: threadsMetrics,
  renewal: longLivedRenewal(THREADS, { marginMs: REFRESH_MARGIN_MS, grantType: 'th_refresh_token', base, read: threadsConfig }),
  publish: send,
  comment: send,
};
