import * as z from 'zod';
import { htmlToForumMarkdown } from '../markdown-text.ts';
import { field } from '../oauth-api.ts';
import { baseUrlNotPublic } from '../platform-apps.ts';
import type { PlatformAnswer, PlatformRequest } from '../platform-call.ts';
import { ProviderError } from '../provider.ts';
import type * as P from '../provider.ts';
import { callLemmy, lemmyConfig, lemmyConfigSchema, logIn, tokenExpiry } from './lemmy.client.ts';
import { lemmyMetrics } from './lemmy.metrics.ts';

/** Lemmy's limits (0.19 validation): titles 3 to 200 characters on one line, post bodies 50,000, comments 10,000. */
const TITLE_MIN = 3;
export const LEMMY_TITLE_MAX = 200;
const BODY_MAX = 50_000;
const COMMENT_MAX = 10_000;
/** A session token with an expiry is renewed (by signing in again) when less than this is left. */
const RENEW_MARGIN_MS = 10 * 60_000;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];

const communitySetting = z
  .string()
  .trim()
  .regex(/^!?[A-Za-z0-9_]{1,255}(@[A-Za-z0-9.-]+\.[A-Za-z]{2,}(:\d+)?)?$/, 'a community such as `technology` or `technology@lemmy.world`');

const settingsSchema = z.object({
  community: communitySetting.describe(
    "The community to post in: `name` on the account's instance or `name@instance` (the communities tool finds them).",
  ),
  title: z
    .string()
    .trim()
    .min(TITLE_MIN, `Lemmy takes titles of ${TITLE_MIN} to ${LEMMY_TITLE_MAX} characters.`)
    .max(LEMMY_TITLE_MAX, `Lemmy takes titles of ${TITLE_MIN} to ${LEMMY_TITLE_MAX} characters.`)
    .regex(/^[^\n\r]*$/, 'The title is one line.')
    .describe('The post title (3 to 200 characters, one line).'),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('A link the post points to (an attached image takes its place).'),
  nsfw: z.boolean().optional().describe('Mark the post NSFW.'),
});
type Settings = z.infer<typeof settingsSchema>;
/** The settings with every field optional, for the readiness check (built once, not per check). */
const optionalSettings = settingsSchema.partial();

/** `name@host` as the instance resolves it; a bare `name` is a community of the account's instance. */
function communityName(value: string): string {
  return value.trim().replace(/^!/, '');
}

/**
 * Runs `call` with the channel's session; when the instance no longer accepts it (`not_logged_in`),
 * signs in again with the stored password and runs it once more (the refused call was not applied).
 * The new session is stored for the channel through Herald's renewal (`ctx.renewNow`: once per
 * channel across processes), so the next publish uses it; the context carries it for this one's
 * following calls. Accounts with a second factor cannot be signed in again by Herald: connect them
 * again.
 */
async function withSession<T>(ctx: P.ProviderContext, call: (jwt: string) => Promise<T>): Promise<T> {
  const jwt = lemmyConfig(ctx.config).jwt ?? (await freshSession(ctx));
  try {
    return await call(jwt);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind !== 'auth' || error.options.status !== 401) throw error;
    return call(await freshSession(ctx));
  }
}

/** A new session for the channel: renewed and stored through Herald when it can, signed in for this publish only otherwise. */
async function freshSession(ctx: P.ProviderContext): Promise<string> {
  const config = lemmyConfig(ctx.config);
  if (config.twoFactor)
    throw new ProviderError(
      'auth',
      'The Lemmy instance ended the session and the account signs in with a two-factor code; connect the channel again with a current code.',
    );
  ctx.config = ctx.renewNow ? await ctx.renewNow() : { ...ctx.config, jwt: await logIn(ctx, { ...config, totp: undefined }) };
  const jwt = lemmyConfig(ctx.config).jwt;
  if (!jwt) throw new ProviderError('auth', 'The Lemmy instance did not issue a session token.');
  return jwt;
}

function call(ctx: P.ProviderContext, path: string, request: Omit<PlatformRequest, 'token'> = {}): Promise<PlatformAnswer> {
  const { instance } = lemmyConfig(ctx.config);
  return withSession(ctx, (jwt) => callLemmy(ctx, instance, path, { ...request, token: jwt }));
}

function communityView(view: unknown, instance: string) {
  const community = field(view, 'community');
  const actor = String(field(community, 'actor_id') ?? '');
  const host = actor ? new URL(actor).host : new URL(instance).host;
  return {
    id: Number(field(community, 'id')),
    name: `${String(field(community, 'name'))}@${host}`,
    title: String(field(community, 'title') ?? ''),
    nsfw: field(community, 'nsfw') === true,
    postingRestrictedToMods: field(community, 'posting_restricted_to_mods') === true,
    subscribers: Number(field(view, 'counts', 'subscribers') ?? 0),
  };
}

/** The community's id on the account's instance (`GET /community?name=`), resolving `name@host` there. */
async function communityId(ctx: P.ProviderContext, community: string): Promise<number> {
  const name = communityName(community);
  const { json } = await call(ctx, `/community?name=${encodeURIComponent(name)}`).catch((error: unknown) => {
    if (error instanceof ProviderError && error.kind === 'rejected')
      throw new ProviderError('rejected', `The instance does not know the community ${name} (${error.message}).`, {
        status: error.options.status,
      });
    throw error;
  });
  const id = field(json, 'community_view', 'community', 'id');
  if (typeof id !== 'number') throw new ProviderError('rejected', `The instance did not describe the community ${name}.`);
  return id;
}

function postProblems(settings: Partial<Settings>, text: string, media: ReadonlyArray<{ mimeType: string }>): P.MissingItem[] {
  const missing: P.MissingItem[] = [];
  if (text.length > BODY_MAX)
    missing.push({ field: 'value[0].content', reason: `The text is ${text.length} characters; Lemmy takes ${BODY_MAX} in a post.` });
  if (media.length > 0 && settings.url)
    missing.push({ field: 'value[0].image', reason: 'A Lemmy post has one link: an attached image or `url`, not both.' });
  return missing;
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = lemmyConfig(ctx.config);
  const parsed = settingsSchema.safeParse(input.settings);
  if (!parsed.success)
    throw new ProviderError('rejected', `settings.${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`);
  const settings = parsed.data;
  const problems = postProblems(settings, input.text, input.media);
  const image = input.media[0];
  if (image) {
    // The instance fetches the image from Herald's media URL (for its thumbnail), as a link post.
    const notPublic = baseUrlNotPublic(ctx.platformApps);
    if (notPublic) problems.push({ field: 'value[0].image', reason: notPublic });
  }
  if (problems.length > 0) throw new ProviderError('rejected', problems.map((p) => `${p.field}: ${p.reason}`).join(' '));
  const id = await communityId(ctx, settings.community);
  const url = image?.url ?? settings.url;
  const { json } = await call(ctx, '/post', {
    write: true,
    json: {
      name: settings.title,
      community_id: id,
      ...(url && { url }),
      ...(input.text.trim() && { body: input.text }),
      ...(settings.nsfw !== undefined && { nsfw: settings.nsfw }),
    },
  });
  const postId = field(json, 'post_view', 'post', 'id');
  if (typeof postId !== 'number') throw new ProviderError('unknown_outcome', 'The instance accepted the post without saying its id.');
  const apId = field(json, 'post_view', 'post', 'ap_id');
  return { id: String(postId), url: typeof apId === 'string' ? apId : `${config.instance}/post/${postId}`, meta: { kind: 'post' } };
}

async function comment(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = lemmyConfig(ctx.config);
  const root = input.root ?? input.parent;
  if (!root || !input.parent) throw new ProviderError('rejected', 'A Lemmy comment needs the post it answers.');
  if (input.media.length > 0) throw new ProviderError('rejected', 'Lemmy comments take no attachments.');
  const underComment = input.parent.id !== root.id;
  const { json } = await call(ctx, '/comment', {
    write: true,
    json: { content: input.text, post_id: Number(root.id), ...(underComment && { parent_id: Number(input.parent.id) }) },
  });
  const commentId = field(json, 'comment_view', 'comment', 'id');
  if (typeof commentId !== 'number') throw new ProviderError('unknown_outcome', 'The instance accepted the comment without saying its id.');
  const apId = field(json, 'comment_view', 'comment', 'ap_id');
  return {
    id: String(commentId),
    url: typeof apId === 'string' ? apId : `${config.instance}/comment/${commentId}`,
    meta: { kind: 'comment' },
  };
}

/** The account a session belongs to (`GET /site`, `my_user`). */
async function whoAmI(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal'>,
  instance: string,
  jwt: string,
): Promise<P.ConnectedAccount & { personId: number }> {
  const { json } = await callLemmy(ctx, instance, '/site', { token: jwt });
  const person = field(json, 'my_user', 'local_user_view', 'person');
  const id = field(person, 'id');
  const name = field(person, 'name');
  if (typeof id !== 'number' || typeof name !== 'string')
    throw new ProviderError('auth', 'The instance did not say whose account this is.');
  const host = new URL(instance).host;
  const display = field(person, 'display_name');
  const avatar = field(person, 'avatar');
  return {
    internalId: `${host}/${id}`,
    name: typeof display === 'string' && display ? display : name,
    handle: `${name}@${host}`,
    picture: typeof avatar === 'string' ? avatar : null,
    personId: id,
  };
}

/** Sessions opened by `connectAccount`, for `completeConfig` of the same connect (a two-factor code is used once). */
const opened = new WeakMap<object, { jwt: string; personId: number }>();

/** Posts to communities as an account on any Lemmy instance, signed in with its password. */
export const lemmyProvider: P.Provider = {
  identifier: 'lemmy',
  name: 'Lemmy',
  textLimit: { max: BODY_MAX, unit: 'characters' },
  countText: (text) => text.length,
  toText: htmlToForumMarkdown,
  settingsSchema,
  configSchema: lemmyConfigSchema,
  configUrls: ['instance'],
  mediaRules: { maxItems: 1, mimeTypes: IMAGE_TYPES, maxBytes: 20 * 1024 * 1024, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"lemmy","instance":"lemmy.world","username":"…","password":"…"}` (add `"totp":"123456"` for an account with two-factor codes). Herald keeps the password sealed to sign in again when the instance ends its session; an account with two-factor codes must be connected again then. Posts need settings `community` and `title`.',
  tools: {
    communities: {
      description:
        "Communities to post in: those the account follows, or, with `query`, a community by `name@instance` (resolved on the account's instance) or a search by words. Each with its id, `name@instance` (for settings.community), title, NSFW mark and subscribers.",
      input: z.object({ query: z.string().trim().min(1).max(255).optional() }),
      async run(ctx, data) {
        const config = lemmyConfig(ctx.config);
        const { query } = data as { query?: string };
        if (query && communitySetting.safeParse(query).success && query.includes('@')) {
          const { json } = await call(ctx, `/community?name=${encodeURIComponent(communityName(query))}`);
          return [communityView(field(json, 'community_view'), config.instance)];
        }
        const path = query
          ? `/search?q=${encodeURIComponent(query)}&type_=Communities&listing_type=All&limit=20`
          : '/community/list?type_=Subscribed&limit=50';
        const { json } = await call(ctx, path);
        const list = field(json, 'communities');
        return (Array.isArray(list) ? list : []).map((view) => communityView(view, config.instance));
      },
    },
  },
  validate({ text, media, settings, part, platformApps }): P.MissingItem[] {
    if (part > 0) {
      const missing: P.MissingItem[] = [];
      if (media.length > 0) missing.push({ field: `value[${part}].image`, reason: 'Lemmy comments take no attachments.' });
      if (text.length > COMMENT_MAX)
        missing.push({ field: `value[${part}].content`, reason: `The comment is ${text.length} characters; Lemmy takes ${COMMENT_MAX}.` });
      return missing;
    }
    const parsed = optionalSettings.safeParse(settings);
    const missing = postProblems(parsed.success ? parsed.data : {}, text, media);
    if (media.length > 0) {
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: 'value[0].image', reason: notPublic });
    }
    return missing;
  },
  async connectAccount(ctx) {
    const config = lemmyConfig(ctx.config);
    const jwt = await logIn(ctx, config);
    const { personId, ...account } = await whoAmI(ctx, config.instance, jwt);
    opened.set(ctx.config, { jwt, personId });
    return account;
  },
  /** Keeps the session, the account's id and whether it uses a second factor; the two-factor code itself is dropped. */
  async completeConfig(ctx) {
    const config = lemmyConfig(ctx.config);
    const session = opened.get(ctx.config);
    const jwt = session?.jwt ?? (await logIn(ctx, config));
    const personId = session?.personId ?? (await whoAmI(ctx, config.instance, jwt)).personId;
    const { totp, ...rest } = config;
    // Signed in without a code, the account has no second factor (any more): Herald may sign in again by itself.
    return { ...rest, jwt, personId, twoFactor: Boolean(totp) };
  },
  renewal: {
    // No session yet (a channel the operator made), or one whose expiry is near: sign in again before publishing.
    due(config, now) {
      const jwt = config.jwt;
      if (typeof jwt !== 'string' || !jwt) return true;
      const expiry = tokenExpiry(jwt);
      return expiry !== null && expiry - now.getTime() <= RENEW_MARGIN_MS;
    },
    async renew(ctx) {
      const config = lemmyConfig(ctx.config);
      if (config.twoFactor)
        throw new ProviderError(
          'auth',
          'The Lemmy session expires and the account signs in with a two-factor code; connect the channel again with a current code.',
        );
      const jwt = await logIn(ctx, { ...config, totp: undefined });
      const personId = config.personId ?? (await whoAmI(ctx, config.instance, jwt)).personId;
      return { ...ctx.config, jwt, personId };
    },
  },
  metrics: lemmyMetrics,
  publish,
  comment,
};

/** Runs `call` with the channel's session (signing in again if the instance ended it): for the metrics. */
export function lemmyCall(ctx: P.ProviderContext, path: string): Promise<PlatformAnswer> {
  return call(ctx, path);
}
