import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { graph } from '../graph-api.ts';
import { field } from '../oauth-api.ts';
import { appUnavailable, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readConfig, readSettings, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import { facebookMetrics } from './facebook.metrics.ts';
import { longLivedUserToken, loginUrl, managedPage, managedPages, type ManagedPage } from './facebook.login.ts';
import { FACEBOOK_RULES, facebookProblems, facebookSettingsSchema, IMAGE_TYPES, VIDEO_TYPES } from './facebook.rules.ts';
import { publishReel, videoByUrl, videoInChunks, videoPublished, writtenId } from './facebook.video.ts';

export { VIDEO_POLL_DELAYS_MS } from './facebook.video.ts';

const SCOPES = ['pages_show_list', 'pages_read_engagement', 'pages_manage_posts', 'pages_manage_engagement', 'read_insights'];

export const facebookConfigSchema = z.object({
  /** The page token (from a long-lived user token: it does not expire). */
  accessToken: z.string().min(10).max(4000),
  pageId: z.string().regex(/^\d{1,30}$/),
  pageName: z.string().min(1).max(200),
});
type FacebookConfig = z.infer<typeof facebookConfigSchema>;

function facebookConfig(config: Record<string, unknown>): FacebookConfig {
  return readConfig(facebookConfigSchema, config, 'Facebook', () => "The Facebook channel's credentials are incomplete; connect it again.");
}

/** Herald's own media URL for a file, absolute (Facebook fetches it). */
export function mediaUrl(platformApps: PlatformApps, item: Pick<P.PublishMedia, 'url'>): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

function pageResult(page: ManagedPage): P.SignInResult {
  const config: FacebookConfig = { accessToken: page.accessToken, pageId: page.id, pageName: page.name };
  return { config, account: { internalId: page.id, name: page.name, handle: null, picture: page.picture } };
}

const signIn: P.BrowserSignIn = {
  startSchema: z.object({
    page: z
      .string()
      .regex(/^\d{1,30}$/, "the page's numeric id (in the page's About section, or its URL)")
      .optional()
      .meta({ title: 'Page ID' })
      .describe('Connect this page (its numeric id); left out, you choose among the pages you manage when you manage several.'),
  }),
  async start(ctx, { start, state }) {
    return { url: loginUrl(ctx, SCOPES, state), pending: typeof start.page === 'string' ? { page: start.page } : {} };
  },
  async finish(ctx, { code, pending }) {
    const userToken = await longLivedUserToken(ctx, code);
    const pages = await managedPages(ctx, userToken);
    if (pages.length === 0)
      throw new ProviderError('rejected', 'You do not manage any Facebook page you may post to (or did not share one with Herald).');
    const asked = typeof pending.page === 'string' ? pending.page : undefined;
    if (asked !== undefined) {
      const page = pages.find((p) => p.id === asked);
      if (!page)
        throw new ProviderError(
          'rejected',
          `You cannot post to the Facebook page ${asked}; the pages you can post to are ${pages.map((p) => `${p.name} (${p.id})`).join(', ')}.`,
        );
      return pageResult(page);
    }
    if (pages.length === 1) return pageResult(pages[0]!);
    // Several pages: the person picks one on Herald's page; the user token waits sealed with the choice's state.
    return {
      choose: {
        prompt: 'You manage several Facebook pages. Which one should Herald post to?',
        options: pages.slice(0, 100).map((p) => ({ id: p.id, label: p.name })),
        pending: { userToken, pages: pages.map((p) => p.id) },
      },
    };
  },
  async choose(ctx, { choice, pending }) {
    const pages = Array.isArray(pending.pages) ? pending.pages.map(String) : [];
    if (!pages.includes(choice)) throw new ProviderError('rejected', 'That page was not one of the choices; start connecting again.');
    return pageResult(await managedPage(ctx, String(pending.userToken), choice));
  },
};

/** The address of a post Facebook made, asked from Facebook, or a sensible fallback. */
async function permalink(ctx: P.ProviderContext, token: string, id: string, fallback: string): Promise<string> {
  try {
    const { json } = await graph(ctx, 'facebook', `/${encodeURIComponent(id)}?fields=permalink_url`, { token });
    const url = field(json, 'permalink_url');
    return typeof url === 'string' ? url : fallback;
  } catch {
    // The post is published; only its address could not be read.
    return fallback;
  }
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(facebookProvider, ctx, input);
  const config = facebookConfig(ctx.config);
  const settings = readSettings(facebookSettingsSchema, input.settings);
  const token = config.accessToken;
  const page = encodeURIComponent(config.pageId);
  const fallback = `https://www.facebook.com/${config.pageId}`;
  const [first] = input.media;
  if (first && settings.type === 'reel') return publishReel(ctx, config, first, input.text);
  if (first && VIDEO_TYPES.includes(first.mimeType)) {
    const id =
      first.size > FACEBOOK_RULES.video.chunkedAbove
        ? await videoInChunks(ctx, config, first, input.text)
        : await videoByUrl(ctx, config, mediaUrl(ctx.platformApps, first), input.text);
    await videoPublished(ctx, token, id);
    return { id, url: `https://www.facebook.com/${config.pageId}/videos/${id}` };
  }
  if (first && input.media.length === 1) {
    const { json } = await graph(ctx, 'facebook', `/${page}/photos`, {
      token,
      write: true,
      form: { url: mediaUrl(ctx.platformApps, first), ...(input.text && { message: input.text }) },
    });
    const id = typeof field(json, 'post_id') === 'string' ? writtenId(json, 'post_id') : writtenId(json);
    return { id, url: await permalink(ctx, token, id, fallback) };
  }
  const attached: Record<string, string> = {};
  for (const [i, item] of input.media.entries()) {
    // Each photo is uploaded unpublished, then attached to the one feed post.
    const { json } = await graph(ctx, 'facebook', `/${page}/photos`, {
      token,
      form: { url: mediaUrl(ctx.platformApps, item), published: 'false' },
    });
    const id = field(json, 'id');
    if (typeof id !== 'string') throw new ProviderError('transient', `Facebook did not take the photo ${item.name}.`);
    attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id });
  }
  const { json } = await graph(ctx, 'facebook', `/${page}/feed`, {
    token,
    write: true,
    form: { message: input.text, ...(settings.link && { link: settings.link }), ...attached },
  });
  const id = writtenId(json);
  return { id, url: await permalink(ctx, token, id, fallback) };
}

/** A comment under the post; later parts reply under the first comment (Facebook nests one level). */
async function comment(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(facebookProvider, ctx, input);
  const config = facebookConfig(ctx.config);
  const under = typeof input.parent?.meta?.comment === 'string' ? input.parent.meta.comment : (input.parent?.id ?? input.root?.id);
  if (!under) throw new ProviderError('rejected', 'The post this comment belongs under was not published.');
  const [image] = input.media;
  const { json } = await graph(ctx, 'facebook', `/${encodeURIComponent(under)}/comments`, {
    token: config.accessToken,
    write: true,
    form: { message: input.text, ...(image && { attachment_url: mediaUrl(ctx.platformApps, image) }) },
  });
  const id = writtenId(json);
  const top = typeof input.parent?.meta?.comment === 'string' ? input.parent.meta.comment : id;
  return { id, url: input.root?.url ?? `https://www.facebook.com/${id}`, meta: { comment: top } };
}

/** Posts to a Facebook page the person manages, signed in through the operator's Meta app (Facebook Login). */
export const facebookProvider: P.Provider = {
  identifier: 'facebook',
  name: 'Facebook',
  textLimit: { max: FACEBOOK_RULES.text, unit: 'characters' },
  countText: (text) => [...text].length,
  toText: htmlToPlainText,
  settingsSchema: facebookSettingsSchema,
  configSchema: facebookConfigSchema,
  configUrls: [],
  mediaRules: {
    maxItems: FACEBOOK_RULES.photo.max,
    mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES],
    maxBytes: FACEBOOK_RULES.video.maxBytes,
    required: false,
  },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"facebook"}` and sign in with Facebook: with one page Herald takes it, with several the person picks one on Herald\'s page (or name it with `{"provider":"facebook","page":"<page id>"}`). The person must be able to create content on the page. The server\'s operator registers the Meta app (FACEBOOK_APP_ID, FACEBOOK_APP_SECRET); media is fetched by Facebook from Herald, so BASE_URL must be public.',
  tools: {},
  unavailable: (platformApps) => appUnavailable(platformApps, 'facebook'),
  validate: (input) => facebookProblems(input),
  signIn,
  metrics: facebookMetrics,
  publish,
  comment,
};
