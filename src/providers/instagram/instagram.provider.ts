import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { longLivedUserToken, loginUrl, managedPage, managedPages, type ManagedPage } from '../facebook/facebook.login.ts';
import { mediaUrl } from '../facebook/facebook.provider.ts';
import { GRAPH_QUOTA_RETRY_MS, graph, longLivedRenewal, longLivedSignIn, readGraphError, type GraphHost } from '../graph-api.ts';
import { field, oauthPlatform, storedTokens, waitFor } from '../oauth-api.ts';
import type { PlatformAnswer, PlatformRequest } from '../platform-call.ts';
import { appUnavailable, platformApp, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readConfig, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import { instagramMetrics } from './instagram.metrics.ts';
import {
  IMAGE_TYPES,
  INSTAGRAM_RULES,
  VIDEO_TYPES,
  instagramProblems,
  instagramSettingsSchema,
  coverOf,
  instagramShape,
  postedMedia,
  tagsOn,
  type InstagramSettings,
} from './instagram.rules.ts';

/** Facebook Login: a professional account linked to a page the person manages. */
const FACEBOOK_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'instagram_manage_insights',
  'pages_show_list',
  'pages_read_engagement',
];
/** Instagram Login (Business Login for Instagram). */
const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
];
/** Instagram Login's long-lived tokens live 60 days; renewed when a week is left (they must be a day old). */
const REFRESH_MARGIN_MS = 7 * 24 * 3600_000;
/**
 * Waits between checks of a container Instagram is processing: at once, then quickly for images,
 * then once a minute as Instagram asks, about six minutes in all.
 */
export const POLL_DELAYS_MS = [0, 2000, 3000, 5000, 10_000, 20_000, 20_000, 60_000, 60_000, 60_000, 60_000, 60_000];

export const instagramConfigSchema = z.object({
  accessToken: z.string().min(10).max(4000),
  /** Instagram Login's tokens expire (60 days); a page token through Facebook Login does not. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  /** The Instagram professional account's id (the `{ig-user-id}` of the publishing endpoints). */
  userId: z.string().regex(/^\d{1,30}$/),
  username: z.string().min(1).max(100),
  /** Through Facebook Login: the page the account is linked to. */
  pageId: z
    .string()
    .regex(/^\d{1,30}$/)
    .optional(),
});
type InstagramConfig = z.infer<typeof instagramConfigSchema>;

export function instagramConfig(config: Record<string, unknown>): InstagramConfig {
  return readConfig(
    instagramConfigSchema,
    config,
    'Instagram',
    () => "The Instagram channel's credentials are incomplete; connect it again.",
  );
}

type Api = Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>;

/** Calls the Graph API the channel was connected through, naming Instagram in messages. */
export function igGraph(ctx: Api, host: GraphHost, path: string, options: PlatformRequest = {}): Promise<PlatformAnswer> {
  return graph(ctx, host, path, { ...options, as: 'Instagram' });
}

// ---- Facebook Login: an account linked to a page ----

function linkedAccount(page: ManagedPage): P.SignInResult {
  const ig = page.instagram!;
  const config: InstagramConfig = { accessToken: page.accessToken, userId: ig.id, username: ig.username, pageId: page.id };
  return { config, account: { internalId: ig.id, name: ig.name ?? ig.username, handle: ig.username, picture: ig.picture } };
}

const facebookSignIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    return { url: loginUrl(ctx, FACEBOOK_SCOPES, state), pending: {} };
  },
  async finish(ctx, { code }) {
    const userToken = await longLivedUserToken(ctx, code);
    const linked = (await managedPages(ctx, userToken)).filter((p) => p.instagram);
    if (linked.length === 0)
      throw new ProviderError(
        'rejected',
        'None of the Facebook pages you shared with Herald has an Instagram professional account linked to it. Link the account to a page (Instagram: Settings → Account type and tools), or connect with Instagram Login (`instagram-standalone`).',
      );
    if (linked.length === 1) return linkedAccount(linked[0]!);
    return {
      choose: {
        prompt: 'Several of your Facebook pages have an Instagram account. Which account should Herald post to?',
        options: linked.slice(0, 100).map((p) => ({ id: p.instagram!.id, label: `@${p.instagram!.username} (${p.name})` })),
        pending: { userToken, accounts: linked.map((p) => ({ ig: p.instagram!.id, page: p.id })) },
      },
    };
  },
  async choose(ctx, { choice, pending }) {
    const accounts = Array.isArray(pending.accounts) ? (pending.accounts as Array<{ ig: string; page: string }>) : [];
    const picked = accounts.find((a) => a.ig === choice);
    if (!picked) throw new ProviderError('rejected', 'That account was not one of the choices; start connecting again.');
    const page = await managedPage(ctx, String(pending.userToken), picked.page);
    if (page.instagram?.id !== choice)
      throw new ProviderError('rejected', 'That Instagram account is no longer linked to its Facebook page; start connecting again.');
    return linkedAccount(page);
  },
};

// ---- Instagram Login ----

const INSTAGRAM_LOGIN = oauthPlatform('Instagram', readGraphError);

/** Instagram Login's three hosts; under an overridden API base, all of them are that origin. */
function instagramHosts(platformApps: PlatformApps): { authorize: string; token: string; graph: string } {
  const app = platformApp(platformApps, 'instagram');
  const overridden = platformApps.apps.instagram.apiBase;
  return { authorize: app.signInBase, token: overridden ?? 'https://api.instagram.com', graph: app.apiBase };
}

const instagramGraphBase = (platformApps: PlatformApps) => instagramHosts(platformApps).graph;

async function instagramAccount(ctx: Api, token: string): Promise<P.ConnectedAccount & { username: string }> {
  const { json } = await graph(ctx, 'instagram', '/me?fields=user_id,username,name,profile_picture_url,account_type', { token });
  const id = field(json, 'user_id') ?? field(json, 'id');
  const username = field(json, 'username');
  if ((typeof id !== 'string' && typeof id !== 'number') || typeof username !== 'string')
    throw new ProviderError('rejected', 'Instagram did not say whose account this is.');
  const type = field(json, 'account_type');
  if (typeof type === 'string' && !['BUSINESS', 'MEDIA_CREATOR', 'CREATOR'].includes(type))
    throw new ProviderError(
      'rejected',
      `@${username} is a personal Instagram account; Instagram lets apps publish only to professional (business or creator) accounts. Switch it in Instagram's settings and connect again.`,
    );
  const name = field(json, 'name');
  const picture = field(json, 'profile_picture_url');
  return {
    internalId: String(id),
    name: typeof name === 'string' && name ? name : username,
    handle: username,
    picture: typeof picture === 'string' ? picture : null,
    username,
  };
}

const instagramSignIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const app = platformApp(ctx.platformApps, 'instagram');
    const url = new URL('/oauth/authorize', instagramHosts(ctx.platformApps).authorize);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: ctx.redirectUri,
      response_type: 'code',
      scope: INSTAGRAM_SCOPES.join(','),
      state,
    }).toString();
    return { url: url.toString(), pending: {} };
  },
  async finish(ctx: P.SignInContext, { code }) {
    const token = await longLivedSignIn(
      ctx,
      INSTAGRAM_LOGIN,
      {
        app: platformApp(ctx.platformApps, 'instagram'),
        codeUrl: `${instagramHosts(ctx.platformApps).token}/oauth/access_token`,
        exchangeUrl: `${instagramGraphBase(ctx.platformApps)}/access_token`,
        grantType: 'ig_exchange_token',
        // Answered as `{access_token, user_id}` or, by newer apps, `{data: [{access_token, user_id, permissions}]}`.
        shortToken: (json) => field(json, 'access_token') ?? field(json, 'data', '0', 'access_token'),
      },
      code,
    );
    const { username, ...account } = await instagramAccount(ctx, token.accessToken);
    const config: InstagramConfig = {
      ...storedTokens(token),
      userId: account.internalId,
      username,
    };
    return { config, account };
  },
};

// ---- Publishing ----

function altText(settings: InstagramSettings, item: Pick<P.PublishMedia, 'id' | 'url'>): string | undefined {
  return settings.alt?.[item.id] ?? settings.alt?.[item.url];
}

/** Refuses a publish when the rolling 24-hour publishing limit is used up: a delay, retried later. */
async function checkQuota(ctx: P.ProviderContext, host: GraphHost, config: InstagramConfig): Promise<void> {
  const { json } = await igGraph(ctx, host, `/${config.userId}/content_publishing_limit?fields=config,quota_usage`, {
    token: config.accessToken,
  });
  const used = Number(field(json, 'data', '0', 'quota_usage'));
  const total = Number(field(json, 'data', '0', 'config', 'quota_total'));
  if (Number.isFinite(used) && Number.isFinite(total) && total > 0 && used >= total) {
    throw new ProviderError(
      'rate_limited',
      `This Instagram account published its ${total} posts of the last 24 hours through the API; Herald tries again in an hour.`,
      { retryAfterMs: GRAPH_QUOTA_RETRY_MS },
    );
  }
}

async function container(
  ctx: P.ProviderContext,
  host: GraphHost,
  config: InstagramConfig,
  params: Record<string, string>,
): Promise<string> {
  const { json } = await igGraph(ctx, host, `/${config.userId}/media`, { token: config.accessToken, form: params });
  const id = field(json, 'id');
  if (typeof id !== 'string') throw new ProviderError('transient', 'Instagram did not create the media container.');
  return id;
}

/** A container's state: IN_PROGRESS, FINISHED, ERROR, EXPIRED or PUBLISHED, and Instagram's words when it failed. */
async function containerStatus(ctx: P.ProviderContext, host: GraphHost, config: InstagramConfig, id: string) {
  const { json } = await igGraph(ctx, host, `/${id}?fields=status_code,status`, { token: config.accessToken });
  const status = field(json, 'status');
  return { code: field(json, 'status_code'), status: typeof status === 'string' ? status : undefined };
}

/** Waits (on the engine's clock) until Instagram has fetched and processed a container's media. */
async function ready(ctx: P.ProviderContext, host: GraphHost, config: InstagramConfig, id: string): Promise<void> {
  for (const delay of POLL_DELAYS_MS) {
    if (delay) await waitFor(ctx, delay);
    const { code, status } = await containerStatus(ctx, host, config, id);
    if (code === 'FINISHED') return;
    if (code === 'ERROR')
      throw new ProviderError(
        'rejected',
        `Instagram could not prepare the media${status ? `: ${status.replace(/^Error:?\s*/i, '')}` : ''}.`,
      );
    if (code === 'EXPIRED')
      throw new ProviderError('rejected', 'The media container expired before it was published (Instagram keeps them 24 hours).');
  }
  throw new ProviderError('transient', 'Instagram is still processing the media; the publish will be tried again.');
}

/** An image's or a carousel item's container parameters: its URL, alt text and the people tagged on it (images only). */
function itemParams(ctx: P.ProviderContext, item: P.PublishMedia, settings: InstagramSettings, alone: boolean): Record<string, string> {
  const url = mediaUrl(ctx.platformApps, item);
  if (VIDEO_TYPES.includes(item.mimeType)) return { media_type: 'VIDEO', video_url: url };
  const alt = altText(settings, item);
  const tags = tagsOn(settings, item, alone).map(({ username, x, y }) => ({ username, x, y }));
  return { image_url: url, ...(alt && { alt_text: alt }), ...(tags.length > 0 && { user_tags: JSON.stringify(tags) }) };
}

/** Publishes a finished container; a lost answer is checked on the container before it is called unknown. */
async function publishContainer(ctx: P.ProviderContext, host: GraphHost, config: InstagramConfig, creation: string): Promise<string> {
  const call = () =>
    igGraph(ctx, host, `/${config.userId}/media_publish`, { token: config.accessToken, form: { creation_id: creation }, write: true });
  let answer: PlatformAnswer;
  try {
    answer = await call();
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== 'unknown_outcome') throw error;
    // Instagram has no idempotency key, but a container publishes once: still FINISHED means it was not published.
    const state = await containerStatus(ctx, host, config, creation).catch(() => null);
    if (state?.code !== 'FINISHED') throw error;
    answer = await call();
  }
  const id = field(answer.json, 'id');
  if (typeof id !== 'string') throw new ProviderError('unknown_outcome', "Instagram published without saying the post's id.");
  return id;
}

function send(host: GraphHost) {
  return async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
    const provider = host === 'facebook' ? instagramProvider : instagramStandaloneProvider;
    refuseInvalid(provider, ctx, input);
    const config = instagramConfig(ctx.config);
    const settings = instagramSettingsSchema.parse(input.settings);
    await checkQuota(ctx, host, config);
    const media = postedMedia(settings, input.media);
    const cover = coverOf(settings, input.media);
    const shape = instagramShape(settings, media);
    const common: Record<string, string> = {
      ...(input.text && shape !== 'story' && { caption: input.text }),
      ...(settings.collaborators?.length && shape !== 'story' && { collaborators: JSON.stringify(settings.collaborators) }),
      ...(settings.location && shape !== 'story' && { location_id: settings.location }),
    };
    const [first] = media;
    let creation: string;
    if (shape === 'story') {
      const url = mediaUrl(ctx.platformApps, first!);
      creation = await container(ctx, host, config, {
        media_type: 'STORIES',
        ...(VIDEO_TYPES.includes(first!.mimeType) ? { video_url: url } : { image_url: url }),
      });
    } else if (shape === 'reel') {
      creation = await container(ctx, host, config, {
        media_type: 'REELS',
        video_url: mediaUrl(ctx.platformApps, first!),
        share_to_feed: String(settings.shareToFeed ?? true),
        ...(cover
          ? { cover_url: mediaUrl(ctx.platformApps, cover) }
          : settings.coverOffsetMs !== undefined && { thumb_offset: String(settings.coverOffsetMs) }),
        ...common,
      });
    } else if (shape === 'image') {
      creation = await container(ctx, host, config, { ...itemParams(ctx, first!, settings, true), ...common });
    } else {
      const children: string[] = [];
      for (const item of media)
        children.push(await container(ctx, host, config, { ...itemParams(ctx, item, settings, false), is_carousel_item: 'true' }));
      for (const child of children) await ready(ctx, host, config, child);
      creation = await container(ctx, host, config, { media_type: 'CAROUSEL', children: children.join(','), ...common });
    }
    await ready(ctx, host, config, creation);
    const id = await publishContainer(ctx, host, config, creation);
    let url = `https://www.instagram.com/${config.username}/`;
    try {
      const { json } = await igGraph(ctx, host, `/${id}?fields=permalink`, { token: config.accessToken });
      const permalink = field(json, 'permalink');
      if (typeof permalink === 'string') url = permalink;
    } catch {
      // The post is published; only its address could not be read.
    }
    return { id, url };
  };
}

/** The first comment goes under the post; later parts reply under it (Instagram nests one level). */
function comment(host: GraphHost) {
  return async function (ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
    refuseInvalid(host === 'facebook' ? instagramProvider : instagramStandaloneProvider, ctx, input);
    const config = instagramConfig(ctx.config);
    const top = typeof input.parent?.meta?.comment === 'string' ? input.parent.meta.comment : undefined;
    const under = top ?? input.root?.id ?? input.parent?.id;
    if (!under) throw new ProviderError('rejected', 'The post this comment belongs under was not published.');
    const { json } = await igGraph(ctx, host, top ? `/${top}/replies` : `/${under}/comments`, {
      token: config.accessToken,
      form: { message: input.text },
      write: true,
    });
    const id = field(json, 'id');
    if (typeof id !== 'string') throw new ProviderError('unknown_outcome', 'Instagram took the comment without saying its id.');
    return { id, url: input.root?.url, meta: { comment: top ?? id } };
  };
}

// ---- Tools (Facebook Login: the Graph API of the page the account is linked to) ----

const placeQuery = z.object({
  query: z.string().trim().min(2).max(100).describe("Words of the place's name, e.g. `Herald Bakery Berlin`."),
});
const usernameQuery = z.object({
  username: z
    .string()
    .trim()
    .regex(/^@?[A-Za-z0-9._]{1,30}$/, 'an Instagram username')
    .describe('The Instagram username to look up (with or without @).'),
});

/** A permission or app feature the call needs (Graph 10, 200–299) is the operator's or the page's matter, not expired credentials. */
function toolRefusal(error: unknown, what: string): unknown {
  if (error instanceof ProviderError && error.kind === 'auth' && error.options.status === 403) {
    const reason = error.message.replace(/ \(the channel must be connected again to grant it\)/, '');
    return new ProviderError(
      'rejected',
      `Facebook refused ${what}, which needs a permission or feature the operator's Meta app (or this channel's sign-in) lacks: ${reason}`,
      { cause: error },
    );
  }
  return error;
}

const facebookLoginTools: P.Provider['tools'] = {
  locations: {
    description:
      "Places to tag a post or reel with (settings.location): Facebook pages that have a location, found by name through the Pages Search API (the operator's Meta app needs the Page Public Metadata Access feature). Each with its id, name, address and coordinates.",
    input: placeQuery,
    async run(ctx, data) {
      const { query } = placeQuery.parse(data);
      const config = instagramConfig(ctx.config);
      const params = new URLSearchParams({ q: query, fields: 'id,name,location,link', limit: '25' });
      const { json } = await graph(ctx, 'facebook', `/pages/search?${params.toString()}`, { token: config.accessToken }).catch(
        (error: unknown) => {
          throw toolRefusal(error, 'the places search');
        },
      );
      const pages = field(json, 'data');
      // Instagram refuses a page without a location (INVALID_LOCATION_ID), so only those with one are offered.
      return (Array.isArray(pages) ? pages : [])
        .filter((page) => {
          const location = field(page, 'location');
          return location && typeof location === 'object' && Object.keys(location).length > 0;
        })
        .map((page) => {
          const text = (...path: string[]) => {
            const value = field(page, 'location', ...path);
            return typeof value === 'string' ? value : null;
          };
          const number = (key: string) => {
            const value = field(page, 'location', key);
            return typeof value === 'number' ? value : null;
          };
          return {
            id: String(field(page, 'id')),
            name: String(field(page, 'name') ?? ''),
            street: text('street'),
            city: text('city'),
            country: text('country'),
            latitude: number('latitude'),
            longitude: number('longitude'),
          };
        });
    },
  },
  collaborator: {
    description:
      'Checks an Instagram username before inviting it as a collaborator (settings.collaborators), through Business Discovery: a professional (business or creator) account is found with its name and followers. Business Discovery does not show personal accounts: one not found may still be invited, and Instagram tells at publishing if it cannot be.',
    input: usernameQuery,
    async run(ctx, data) {
      const username = usernameQuery.parse(data).username.replace(/^@/, '');
      const config = instagramConfig(ctx.config);
      const fields = `business_discovery.username(${username}){id,username,name,profile_picture_url,followers_count,media_count}`;
      try {
        const { json } = await igGraph(ctx, 'facebook', `/${config.userId}?fields=${encodeURIComponent(fields)}`, {
          token: config.accessToken,
        });
        const found = field(json, 'business_discovery');
        const value = (key: string) => field(found, key) ?? null;
        return {
          username: String(value('username') ?? username),
          found: true,
          professional: true,
          id: value('id'),
          name: value('name'),
          picture: value('profile_picture_url'),
          followers: value('followers_count'),
          posts: value('media_count'),
        };
      } catch (error) {
        const refused = toolRefusal(error, 'the account lookup');
        if (!(refused instanceof ProviderError) || refused.kind !== 'rejected' || refused !== error) throw refused;
        // Unknown, or not a professional account (Business Discovery's "cannot be found").
        return { username, found: false, professional: null, reason: refused.message };
      }
    },
  },
};

function validate(input: Parameters<P.Provider['validate']>[0]): P.MissingItem[] {
  return instagramProblems(input);
}

const common = {
  textLimit: { max: INSTAGRAM_RULES.caption.max, unit: 'characters' },
  countText: (text: string) => [...text].length,
  toText: htmlToPlainText,
  settingsSchema: instagramSettingsSchema,
  configSchema: instagramConfigSchema,
  configUrls: [],
  mediaRules: {
    maxItems: INSTAGRAM_RULES.carousel.max,
    mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES],
    maxBytes: INSTAGRAM_RULES.reel.maxBytes,
    required: true,
  },
  idempotentWrites: false,
  tools: {},
  validate,
} satisfies Partial<P.Provider>;

/** An Instagram professional account linked to a Facebook page, signed in through Facebook Login (graph.facebook.com). */
export const instagramProvider: P.Provider = {
  ...common,
  identifier: 'instagram',
  name: 'Instagram',
  connectHelp:
    'Connect with `{"provider":"instagram"}` and sign in with Facebook: Herald lists the Instagram professional accounts linked to the pages the person manages (they pick one when there are several). The server\'s operator registers the Meta app (FACEBOOK_APP_ID, FACEBOOK_APP_SECRET); media is fetched by Instagram from Herald, so BASE_URL must be public.',
  unavailable: (platformApps) => appUnavailable(platformApps, 'facebook', 'Instagram through Facebook Login'),
  signIn: facebookSignIn,
  tools: facebookLoginTools,
  metrics: instagramMetrics('facebook'),
  publish: send('facebook'),
  comment: comment('facebook'),
};

/** An Instagram professional account signed in through Instagram Login (graph.instagram.com), no Facebook page needed. */
export const instagramStandaloneProvider: P.Provider = {
  ...common,
  identifier: 'instagram-standalone',
  name: 'Instagram (Instagram Login)',
  connectHelp:
    'Connect with `{"provider":"instagram-standalone"}` and sign in with Instagram (a business or creator account; no Facebook page needed). The server\'s operator registers the Instagram app (INSTAGRAM_APP_ID, INSTAGRAM_APP_SECRET); media is fetched by Instagram from Herald, so BASE_URL must be public.',
  unavailable: (platformApps) => appUnavailable(platformApps, 'instagram'),
  signIn: instagramSignIn,
  metrics: instagramMetrics('instagram'),
  renewal: longLivedRenewal(INSTAGRAM_LOGIN, {
    marginMs: REFRESH_MARGIN_MS,
    grantType: 'ig_refresh_token',
    base: instagramGraphBase,
    read: instagramConfig,
  }),
  publish: send('instagram'),
  comment: comment('instagram'),
};
