import * as z from 'zod';
import { htmlToForumMarkdown } from '../markdown-text.ts';
import { field, pause, readTokens, refreshTokenRenewal, storedTokens } from '../oauth-api.ts';
import { callPlatform, JSON_API_HEADERS, readMedia } from '../platform-call.ts';
import { appUnavailable, platformApp } from '../platform-apps.ts';
import { ProviderError } from '../provider.ts';
import type * as P from '../provider.ts';
import { callReddit, callRedditToken, REDDIT_SCOPES, redditConfig, redditConfigSchema, type RedditConfig } from './reddit.client.ts';
import { redditMetrics } from './reddit.metrics.ts';
import { aboutRules, breaksRules, knownRules, readRules, rememberRules, subredditName, type RedditPostShape } from './reddit.rules.ts';

/** Reddit's limits: titles 300 characters, text posts 40,000, comments 10,000. */
export const REDDIT_TITLE_MAX = 300;
const SELF_TEXT_MAX = 40_000;
const COMMENT_MAX = 10_000;
/** Access tokens live an hour; they are renewed when less than this is left. */
const REFRESH_MARGIN_MS = 5 * 60_000;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/** Reads of the account's newest posts while Reddit lists a new image post (its submit answer names no id). */
const IMAGE_LISTING_POLLS = 5;

const subredditSetting = z
  .string()
  .trim()
  .regex(/^(\/?r\/)?[A-Za-z0-9_]{2,21}\/?$/, 'a subreddit name such as `pics` or `r/pics`');

const settingsSchema = z.object({
  subreddit: subredditSetting.describe('The subreddit to post in, e.g. `pics` (the subreddits tool lists those the account is in).'),
  title: z
    .string()
    .trim()
    .min(1, 'a title')
    .max(REDDIT_TITLE_MAX, `Reddit takes titles of up to ${REDDIT_TITLE_MAX} characters.`)
    .describe('The post title (up to 300 characters).'),
  kind: z
    .enum(['self', 'link', 'image'])
    .optional()
    .describe(
      'The post type: `self` (text, the content as Markdown), `link` (`url`, or content that is a link alone), `image` (one attached image). Default: image with an image attached, link with `url`, otherwise self.',
    ),
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('The link of a link post.'),
  flairId: z.string().trim().min(1).max(64).optional().describe('A flair template id from the flairs tool.'),
  flairText: z.string().max(64).optional().describe('The flair text, for flairs whose text may be edited.'),
  nsfw: z.boolean().optional().describe('Mark the post NSFW.'),
  spoiler: z.boolean().optional().describe('Mark the post as a spoiler.'),
  sendReplies: z.boolean().optional().describe("Send replies to the account's inbox (default true)."),
});
type Settings = z.infer<typeof settingsSchema>;
/** The settings with every field optional, for the readiness check (built once, not per check). */
const optionalSettings = settingsSchema.partial();

const SINGLE_URL = /^\s*(https?:\/\/\S+)\s*$/i;

/** The post type: the setting, or what the post holds (an image, a link). */
function kindOf(
  settings: Partial<Settings>,
  text: string,
  media: ReadonlyArray<Pick<P.PublishMedia, 'mimeType'>>,
): RedditPostShape['kind'] {
  if (settings.kind) return settings.kind;
  if (media.length > 0) return 'image';
  if (settings.url || SINGLE_URL.test(text)) return 'link';
  return 'self';
}

function linkOf(settings: Partial<Settings>, text: string): string | undefined {
  return settings.url ?? SINGLE_URL.exec(text)?.[1];
}

/** What part 0 lacks for Reddit: the type's needs, and the subreddit's rules when this process knows them. */
function postProblems(settings: Partial<Settings>, text: string, media: ReadonlyArray<Pick<P.PublishMedia, 'mimeType'>>): P.MissingItem[] {
  const missing: P.MissingItem[] = [];
  const kind = kindOf(settings, text, media);
  const link = linkOf(settings, text);
  if (kind === 'self') {
    if (media.length > 0)
      missing.push({
        field: 'value[0].image',
        reason: 'A Reddit text post takes no attachment: set kind `image` (one image), or link the file in the text.',
      });
    if (text.length > SELF_TEXT_MAX)
      missing.push({
        field: 'value[0].content',
        reason: `The text is ${text.length} characters; Reddit takes ${SELF_TEXT_MAX} in a text post.`,
      });
  }
  if (kind === 'link') {
    if (!link) missing.push({ field: 'settings.url', reason: 'A link post needs `url` (or content that is the link alone).' });
    else if (text.trim() !== '' && text.trim() !== link)
      missing.push({
        field: 'value[0].content',
        reason:
          'A Reddit link post has no body text: leave the content empty or the link alone, and put the words in a comment (value[1]).',
      });
    if (media.length > 0) missing.push({ field: 'value[0].image', reason: 'A Reddit link post takes no attachment.' });
  }
  if (kind === 'image') {
    if (media.length !== 1 || !media[0]!.mimeType.startsWith('image/'))
      missing.push({ field: 'value[0].image', reason: 'A Reddit image post takes exactly one image (JPEG, PNG or GIF).' });
    if (text.trim() !== '')
      missing.push({
        field: 'value[0].content',
        reason: 'A Reddit image post has no body text: leave the content empty and put the words in a comment (value[1]).',
      });
  }
  if (settings.subreddit) {
    const rules = knownRules(settings.subreddit);
    if (rules)
      missing.push(
        ...breaksRules(
          rules,
          {
            kind,
            title: settings.title ?? '',
            hasBody: text.trim() !== '',
            flair: Boolean(settings.flairId),
            nsfw: settings.nsfw === true,
          },
          0,
        ),
      );
  }
  return missing;
}

async function tokenRequest(ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>, form: Record<string, string>, now: Date) {
  const { json, status } = await callRedditToken(ctx, form);
  // Reddit answers a spent code or a revoked refresh token with 200 and `{error: "invalid_grant"}`.
  const error = field(json, 'error');
  if (typeof error === 'string' || typeof error === 'number')
    throw new ProviderError('rejected', `Reddit's token endpoint answered ${String(error)}`, { status: status === 200 ? 400 : status });
  return readTokens('Reddit', json, now);
}

async function whoAmI(
  ctx: Pick<P.ProviderContext, 'outbound' | 'signal' | 'platformApps'>,
  token: string,
): Promise<P.ConnectedAccount & { username: string }> {
  const { json } = await callReddit(ctx, '/api/v1/me?raw_json=1', { token });
  const id = field(json, 'id');
  const name = field(json, 'name');
  if (typeof id !== 'string' || typeof name !== 'string') throw new ProviderError('rejected', 'Reddit did not say whose account this is.');
  const icon = field(json, 'icon_img');
  return { internalId: id, name, handle: `u/${name}`, picture: typeof icon === 'string' && icon ? icon : null, username: name };
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({}),
  async start(ctx, { state }) {
    const app = platformApp(ctx.platformApps, 'reddit');
    const url = new URL('/api/v1/authorize', app.signInBase);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      response_type: 'code',
      state,
      redirect_uri: ctx.redirectUri,
      // A refresh token comes only with a permanent grant.
      duration: 'permanent',
      scope: REDDIT_SCOPES,
    }).toString();
    return { url: url.toString(), pending: {} };
  },
  async finish(ctx, { code }) {
    const tokens = await tokenRequest(ctx, { grant_type: 'authorization_code', code, redirect_uri: ctx.redirectUri }, new Date());
    const { username, ...account } = await whoAmI(ctx, tokens.accessToken);
    const config: RedditConfig = {
      ...storedTokens(tokens),
      userId: account.internalId,
      username,
    };
    return { config, account };
  },
};

/** Uploads an image through Reddit's media asset lease (`/api/media/asset.json`, then the storage form it names); the URL to submit. */
async function uploadImage(ctx: P.ProviderContext, config: RedditConfig, item: P.PublishMedia): Promise<string> {
  const bytes = await readMedia(item);
  const lease = await callReddit(ctx, '/api/media/asset.json', {
    token: config.accessToken,
    username: config.username,
    form: { filepath: item.name, mimetype: item.mimeType },
  });
  const action = field(lease.json, 'args', 'action');
  const fields = field(lease.json, 'args', 'fields');
  if (typeof action !== 'string' || !Array.isArray(fields))
    throw new ProviderError('transient', `Reddit did not lease an upload for ${item.name}.`);
  // The action is protocol-relative ("//reddit-uploaded-media.s3-accelerate.amazonaws.com"): the API's scheme applies.
  const target = new URL(action, platformApp(ctx.platformApps, 'reddit').apiBase).toString().replace(/\/$/, '');
  const form = new FormData();
  let key = '';
  for (const entry of fields) {
    const name = field(entry, 'name');
    const value = field(entry, 'value');
    if (typeof name !== 'string' || typeof value !== 'string') continue;
    form.set(name, value);
    if (name === 'key') key = value;
  }
  form.set('file', new Blob([bytes], { type: item.mimeType }), item.name);
  await callPlatform(ctx, { name: "Reddit's media storage", headers: JSON_API_HEADERS, timeoutMs: 120_000 }, target, { multipart: form });
  if (!key) throw new ProviderError('transient', `Reddit's upload lease for ${item.name} named no key.`);
  return `${target}/${key}`;
}

/** Finds an image post Reddit accepted without naming it, among the account's newest posts (same subreddit and title, made since `since`). */
async function findSubmitted(
  ctx: P.ProviderContext,
  config: RedditConfig,
  sr: string,
  title: string,
  since: number,
): Promise<P.PublishedRef> {
  for (let poll = 0; poll < IMAGE_LISTING_POLLS; poll++) {
    if (poll > 0) await pause(2000, ctx.signal);
    const { json } = await callReddit(ctx, `/user/${encodeURIComponent(config.username)}/submitted?sort=new&limit=10&raw_json=1`, {
      token: config.accessToken,
      username: config.username,
    });
    const children = field(json, 'data', 'children');
    for (const child of Array.isArray(children) ? children : []) {
      const data = field(child, 'data');
      const created = Number(field(data, 'created_utc')) * 1000;
      if (
        String(field(data, 'subreddit')).toLowerCase() === sr.toLowerCase() &&
        field(data, 'title') === title &&
        created >= since - 120_000
      ) {
        const name = String(field(data, 'name'));
        const permalink = field(data, 'permalink');
        return { id: name, url: typeof permalink === 'string' ? `https://www.reddit.com${permalink}` : undefined, meta: { subreddit: sr } };
      }
    }
  }
  throw new ProviderError(
    'unknown_outcome',
    `Reddit accepted the image post to r/${sr} but has not listed it yet; check the account's posts before trying again.`,
  );
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = redditConfig(ctx.config);
  const parsed = settingsSchema.safeParse(input.settings);
  if (!parsed.success)
    throw new ProviderError('rejected', `settings.${String(parsed.error.issues[0]?.path.join('.'))}: ${parsed.error.issues[0]?.message}`);
  const settings = parsed.data;
  const problems = postProblems(settings, input.text, input.media);
  const sr = subredditName(settings.subreddit);
  // The subreddit's rules, read now: what it accepts may have changed since the post was checked.
  const rules = await readRules(ctx, config.accessToken, config.username, sr);
  const kind = kindOf(settings, input.text, input.media);
  problems.push(
    ...breaksRules(
      rules,
      { kind, title: settings.title, hasBody: input.text.trim() !== '', flair: Boolean(settings.flairId), nsfw: settings.nsfw === true },
      0,
    ),
  );
  if (problems.length > 0) throw new ProviderError('rejected', [...new Set(problems.map((p) => `${p.field}: ${p.reason}`))].join(' '));
  const form: Record<string, string> = {
    api_type: 'json',
    sr,
    title: settings.title,
    kind,
    // A link already posted in the subreddit is refused rather than posted again.
    resubmit: 'false',
    sendreplies: String(settings.sendReplies ?? true),
    nsfw: String(settings.nsfw ?? false),
    spoiler: String(settings.spoiler ?? false),
    ...(settings.flairId && { flair_id: settings.flairId }),
    ...(settings.flairText && { flair_text: settings.flairText }),
  };
  const since = Date.now();
  if (kind === 'self') form.text = input.text;
  if (kind === 'link') form.url = linkOf(settings, input.text)!;
  if (kind === 'image') form.url = await uploadImage(ctx, config, input.media[0]!);
  const { json } = await callReddit(ctx, '/api/submit', { token: config.accessToken, username: config.username, form, write: true });
  if (kind === 'image' && typeof field(json, 'json', 'data', 'name') !== 'string')
    return findSubmitted(ctx, config, sr, settings.title, since);
  const name = field(json, 'json', 'data', 'name');
  const id = field(json, 'json', 'data', 'id');
  if (typeof name !== 'string' || typeof id !== 'string')
    throw new ProviderError('unknown_outcome', 'Reddit accepted the post without saying its id.');
  return { id: name, url: `https://www.reddit.com/r/${sr}/comments/${id}/`, meta: { subreddit: sr } };
}

async function comment(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  const config = redditConfig(ctx.config);
  if (!input.parent) throw new ProviderError('rejected', 'A Reddit comment needs the post it answers.');
  if (input.media.length > 0) throw new ProviderError('rejected', 'Reddit comments take no attachments through the API.');
  const { json } = await callReddit(ctx, '/api/comment', {
    token: config.accessToken,
    username: config.username,
    form: { api_type: 'json', thing_id: input.parent.id, text: input.text },
    write: true,
  });
  const thing = field(json, 'json', 'data', 'things', '0', 'data');
  const name = field(thing, 'name');
  if (typeof name !== 'string') throw new ProviderError('unknown_outcome', 'Reddit accepted the comment without saying its id.');
  const permalink = field(thing, 'permalink');
  return { id: name, url: typeof permalink === 'string' ? `https://www.reddit.com${permalink}` : undefined };
}

/** A listing of subreddits as the tool's answer, each remembered (what it accepts) for `missing`. */
function subredditList(json: unknown) {
  const children = field(json, 'data', 'children');
  return (Array.isArray(children) ? children : []).flatMap((child) => {
    const data = field(child, 'data');
    const rules = aboutRules(data);
    if (!rules) return [];
    rememberRules(rules, { partial: true });
    return [
      {
        name: rules.name,
        title: String(field(data, 'title') ?? ''),
        subscribers: Number(field(data, 'subscribers') ?? 0),
        submissionType: rules.submissionType,
        allowImages: rules.allowImages,
        nsfw: rules.nsfw,
      },
    ];
  });
}

const subredditInput = z.object({ subreddit: subredditSetting });

/** Posts to subreddits as a Reddit account signed in through the operator's Reddit app. */
export const redditProvider: P.Provider = {
  identifier: 'reddit',
  name: 'Reddit',
  textLimit: { max: SELF_TEXT_MAX, unit: 'characters' },
  countText: (text) => text.length,
  toText: htmlToForumMarkdown,
  settingsSchema,
  configSchema: redditConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: 1, mimeTypes: IMAGE_TYPES, maxBytes: IMAGE_MAX_BYTES, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"reddit"}`: the answer\'s `url` opens Reddit\'s sign-in, and the channel is created when the person allows Herald. The server\'s operator registers a Reddit "web app" (REDDIT_CLIENT_ID, REDDIT_CLIENT_SECRET). Posts need settings `subreddit` and `title`.',
  tools: {
    subreddits: {
      description:
        'The subreddits the account is subscribed to, or those matching `query`: name, title, subscribers, and what each takes (submissionType any/link/self, allowImages, nsfw).',
      input: z.object({ query: z.string().trim().min(1).max(100).optional() }),
      async run(ctx, data) {
        const { query } = data as { query?: string };
        const config = redditConfig(ctx.config);
        const path = query
          ? `/subreddits/search?q=${encodeURIComponent(query)}&limit=25&raw_json=1`
          : '/subreddits/mine/subscriber?limit=100&raw_json=1';
        const { json } = await callReddit(ctx, path, { token: config.accessToken, username: config.username });
        return subredditList(json);
      },
    },
    flairs: {
      description:
        "The subreddit's post flairs (`GET /r/{subreddit}/api/link_flair_v2`): id (for settings.flairId), text, and whether the text may be edited.",
      input: subredditInput,
      async run(ctx, data) {
        const config = redditConfig(ctx.config);
        const sr = subredditName((data as { subreddit: string }).subreddit);
        const { json } = await callReddit(ctx, `/r/${encodeURIComponent(sr)}/api/link_flair_v2?raw_json=1`, {
          token: config.accessToken,
          username: config.username,
        });
        return (Array.isArray(json) ? json : []).map((flair) => ({
          id: String(field(flair, 'id')),
          text: String(field(flair, 'text') ?? ''),
          editable: field(flair, 'text_editable') === true,
        }));
      },
    },
    rules: {
      description:
        "What the subreddit accepts, read from Reddit now (about and post requirements): post types, images, a required flair, title lengths, body text. Herald's missing check uses them for an hour.",
      input: subredditInput,
      async run(ctx, data) {
        const config = redditConfig(ctx.config);
        return readRules(ctx, config.accessToken, config.username, (data as { subreddit: string }).subreddit);
      },
    },
  },
  unavailable: (platformApps) => appUnavailable(platformApps, 'reddit'),
  validate({ text, media, settings, part }): P.MissingItem[] {
    if (part > 0) {
      const missing: P.MissingItem[] = [];
      if (media.length > 0) missing.push({ field: `value[${part}].image`, reason: 'Reddit comments take no attachments through the API.' });
      if (text.length > COMMENT_MAX)
        missing.push({ field: `value[${part}].content`, reason: `The comment is ${text.length} characters; Reddit takes ${COMMENT_MAX}.` });
      return missing;
    }
    const parsed = optionalSettings.safeParse(settings);
    return postProblems(parsed.success ? parsed.data : {}, text, media);
  },
  signIn,
  renewal: refreshTokenRenewal('Reddit', { marginMs: REFRESH_MARGIN_MS, read: redditConfig, tokenRequest }),
  metrics: redditMetrics,
  publish,
  comment,
};
