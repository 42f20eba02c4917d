import * as z from 'zod';
import { htmlToPlainText } from '../../content/html.ts';
import { graph } from '../graph-api.ts';
import { field, waitFor } from '../oauth-api.ts';
import { appUnavailable, baseUrlNotPublic, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readConfig, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import { facebookMetrics } from './facebook.metrics.ts';
import { longLivedUserToken, loginUrl, managedPage, managedPages, type ManagedPage } from './facebook.login.ts';

/** A page post's text limit (Facebook's documented 63,206 characters). */
const LIMIT = 63_206;
/** Comments are limited to 8,000 characters. */
const COMMENT_LIMIT = 8000;
const SCOPES = ['pages_show_list', 'pages_read_engagement', 'pages_manage_posts', 'pages_manage_engagement', 'read_insights'];
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/bmp', 'image/tiff'];
const VIDEO_TYPES = ['video/mp4', 'video/quicktime'];
/** Photos up to 4 MB (Facebook's Page photo rule); a video fetched by URL up to 1 GB. */
const MAX_IMAGE_BYTES = 4 * 1024 * 1024;
const MAX_VIDEO_BYTES = 1024 * 1024 * 1024;
/** Photos in one multi-photo post (attached to it after upload as unpublished photos). */
const MAX_PHOTOS = 10;
/**
 * Waits between reads of a video's status while Facebook fetches and processes it: at once, then
 * quickly, then every 30 seconds, about five minutes in all.
 */
export const VIDEO_POLL_DELAYS_MS = [0, 2000, 3000, 5000, 10_000, 20_000, ...Array<number>(9).fill(30_000)];

export const facebookConfigSchema = z.object({
  /** The page token (from a long-lived user token: it does not expire). */
  accessToken: z.string().min(10).max(4000),
  pageId: z.string().regex(/^\d{1,30}$/),
  pageName: z.string().min(1).max(200),
});
type FacebookConfig = z.infer<typeof facebookConfigSchema>;

const settingsSchema = z.object({
  link: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('A link shared with the post (Facebook shows its preview). Not with photos or a video.'),
});
type Settings = z.infer<typeof settingsSchema>;

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

/** Why Facebook would refuse this part's media or settings; empty when it would not. */
function problems(
  part: number,
  media: ReadonlyArray<Pick<P.PublishMedia, 'mimeType' | 'size'>>,
  settings: Settings,
  text: string,
): Array<{ on: 'content' | 'image' | 'settings.link'; reason: string }> {
  const found: Array<{ on: 'content' | 'image' | 'settings.link'; reason: string }> = [];
  const videos = media.filter((m) => VIDEO_TYPES.includes(m.mimeType)).length;
  if (part > 0) {
    if (media.length > 1 || videos > 0) found.push({ on: 'image', reason: 'A Facebook comment takes one image at most, and no video.' });
    const length = [...text].length;
    if (length > COMMENT_LIMIT)
      found.push({ on: 'content', reason: `The comment is ${length} characters long; Facebook comments take ${COMMENT_LIMIT}.` });
    return found;
  }
  if (videos > 0 && media.length > 1) found.push({ on: 'image', reason: 'Facebook posts one video alone, or up to 10 photos.' });
  if (media.length > MAX_PHOTOS) found.push({ on: 'image', reason: `Facebook posts up to ${MAX_PHOTOS} photos at once.` });
  media.forEach((m) => {
    if (IMAGE_TYPES.includes(m.mimeType) && m.size > MAX_IMAGE_BYTES)
      found.push({ on: 'image', reason: `A photo is ${m.size} bytes; Facebook takes photos up to 4 MB.` });
  });
  if (settings.link && media.length > 0)
    found.push({ on: 'settings.link', reason: 'Facebook shows a link preview only on a post without photos or video; remove one.' });
  return found;
}

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

/** The id a write answered with; none means it may have happened without Herald knowing its id. */
function writtenId(json: unknown, key = 'id'): string {
  const id = field(json, key);
  if (typeof id !== 'string' || !id) throw new ProviderError('unknown_outcome', "Facebook published without saying the post's id.");
  return id;
}

/** The phases of a video's `status` (Graph API Video Status): each `not_started`, `in_progress`, `complete` or `error`. */
const VIDEO_PHASES = ['uploading_phase', 'processing_phase', 'publishing_phase'] as const;

/** Facebook's own words for a video that failed: the failed phases' `errors[].message`, or its `video_status`. */
function videoFailure(status: unknown): string | null {
  const messages: string[] = [];
  let failed = false;
  for (const phase of VIDEO_PHASES) {
    if (field(status, phase, 'status') !== 'error') continue;
    failed = true;
    const errors = field(status, phase, 'errors');
    for (const error of Array.isArray(errors) ? errors.slice(0, 5) : []) {
      const message = field(error, 'message');
      if (typeof message === 'string' && message.trim()) messages.push(message.trim().replace(/\.+$/, ''));
    }
  }
  const overall = field(status, 'video_status');
  if (overall === 'expired') return 'the upload expired before Facebook processed the video';
  if (!failed && overall !== 'error' && overall !== 'upload_failed') return null;
  return messages.length > 0 ? messages.join('; ') : 'Facebook could not process it';
}

/**
 * Follows an uploaded video (`GET /{video}?fields=status`) until Facebook has processed and
 * published it, waiting on the engine's clock. Facebook has the video from the upload on: a
 * processing error is a refusal in Facebook's words, while a status that cannot be read, or a
 * video still processing when Herald stops waiting, is an unknown outcome (uploading it again
 * could post it twice).
 */
async function videoPublished(ctx: P.ProviderContext, token: string, id: string): Promise<void> {
  for (const delay of VIDEO_POLL_DELAYS_MS) {
    if (delay) await waitFor(ctx, delay);
    let status: unknown;
    try {
      ({ json: status } = await graph(ctx, 'facebook', `/${encodeURIComponent(id)}?fields=status`, { token }));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new ProviderError(
        'unknown_outcome',
        `Facebook received the video, but Herald could not learn whether it was published (${why}); check the page.`,
        { cause: error },
      );
    }
    status = field(status, 'status');
    const failure = videoFailure(status);
    if (failure) throw new ProviderError('rejected', `Facebook did not publish the video: ${failure}.`);
    const publishing = field(status, 'publishing_phase', 'status');
    if (field(status, 'video_status') === 'ready' && (publishing === undefined || publishing === 'complete')) return;
  }
  throw new ProviderError(
    'unknown_outcome',
    'Facebook received the video but was still processing it when Herald stopped waiting; check the page before publishing it again.',
  );
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(facebookProvider, ctx, input);
  const config = facebookConfig(ctx.config);
  const settings = settingsSchema.parse(input.settings);
  const token = config.accessToken;
  const page = encodeURIComponent(config.pageId);
  const fallback = `https://www.facebook.com/${config.pageId}`;
  const [first] = input.media;
  if (first && VIDEO_TYPES.includes(first.mimeType)) {
    const { json } = await graph(ctx, 'facebook', `/${page}/videos`, {
      token,
      write: true,
      form: { file_url: mediaUrl(ctx.platformApps, first), ...(input.text && { description: input.text }) },
    });
    const id = writtenId(json);
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
  textLimit: { max: LIMIT, unit: 'characters' },
  countText: (text) => [...text].length,
  toText: htmlToPlainText,
  settingsSchema,
  configSchema: facebookConfigSchema,
  configUrls: [],
  mediaRules: { maxItems: MAX_PHOTOS, mimeTypes: [...IMAGE_TYPES, ...VIDEO_TYPES], maxBytes: MAX_VIDEO_BYTES, required: false },
  idempotentWrites: false,
  connectHelp:
    'Connect with `{"provider":"facebook"}` and sign in with Facebook: with one page Herald takes it, with several the person picks one on Herald\'s page (or name it with `{"provider":"facebook","page":"<page id>"}`). The person must be able to create content on the page. The server\'s operator registers the Meta app (FACEBOOK_APP_ID, FACEBOOK_APP_SECRET); media is fetched by Facebook from Herald, so BASE_URL must be public.',
  tools: {},
  unavailable: (platformApps) => appUnavailable(platformApps, 'facebook'),
  validate({ text, media, settings, part, platformApps }): P.MissingItem[] {
    const parsed = settingsSchema.safeParse(settings);
    const missing: P.MissingItem[] = problems(part, media, parsed.success ? parsed.data : {}, text).map((p) => ({
      field: p.on === 'settings.link' ? p.on : `value[${part}].${p.on}`,
      reason: p.reason,
    }));
    if (media.length > 0) {
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: `value[${part}].image`, reason: notPublic });
    }
    return missing;
  },
  signIn,
  metrics: facebookMetrics,
  publish,
  comment,
};
