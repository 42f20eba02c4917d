import * as z from 'zod';
import { sanitizePostHtml } from '../../content/html.ts';
import { field } from '../oauth-api.ts';
import { readMedia } from '../platform-call.ts';
import { ProviderError, readSettings, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import {
  callWordPress,
  discoverApiRoot,
  withApiRoot,
  wordpressConfig,
  wordpressConfigSchema,
  type WordPressConfig,
} from './wordpress.client.ts';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** WordPress's own default upload limit depends on the server (upload_max_filesize); 64 MB is a common ceiling. */
const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
const TEXT_LIMIT = 1_000_000;

const termIds = z.array(z.int().positive()).max(100);

const settingsSchema = z.object({
  title: z
    .string({ error: 'WordPress posts need a title' })
    .trim()
    .min(1, 'WordPress posts need a title')
    .max(1000)
    .describe('The post title (required).'),
  status: z
    .enum(['publish', 'draft', 'pending', 'private'])
    .optional()
    .describe('`publish` (default), `draft`, `pending` (awaiting review) or `private` (only editors see it).'),
  categories: termIds.optional().describe('Category ids (the `listCategories` and `createCategory` tools give them).'),
  tags: termIds.optional().describe('Tag ids (the `listTags` and `createTag` tools give them).'),
  excerpt: z.string().max(5000).optional().describe('A short summary shown in lists and feeds.'),
  slug: z
    .string()
    .regex(/^[\p{Ll}\p{Lo}\p{N}_-]{1,200}$/u, 'lower-case letters, digits and hyphens, e.g. `launch-day`')
    .optional()
    .describe('The last part of the post address, e.g. `launch-day`; WordPress makes one from the title otherwise.'),
  featuredImageAlt: z.string().max(1000).optional().describe("Alternative text for the featured image (the post's image)."),
});

type Settings = z.infer<typeof settingsSchema>;
type Site = WordPressConfig & { apiRoot: string };

/** The REST root `connectAccount` found, by the configuration it checked, for `completeConfig` (the same connect). */
const discovered = new WeakMap<Record<string, unknown>, string>();

const COMMENTS_REFUSED =
  'Herald does not publish comments on WordPress: a post has no comment parts there. Remove this part, or publish it as its own post.';

/** Uploads the featured image to the site's media library: the bytes as the body, the file name in Content-Disposition. */
async function uploadFeatured(ctx: P.ProviderContext, site: Site, item: P.PublishMedia, alt: string | undefined): Promise<number> {
  const bytes = await readMedia(item);
  // A header carries ASCII only: other characters (and quotes) become `_`; WordPress keeps the extension.
  const filename = item.name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const { json } = await callWordPress(ctx, site, '/wp/v2/media', {
    body: new Uint8Array(bytes),
    contentType: item.mimeType,
    headers: { 'content-disposition': `attachment; filename="${filename}"` },
    ...(alt && { query: { alt_text: alt } }),
    timeoutMs: 5 * 60_000,
  });
  const id = field(json, 'id');
  if (typeof id !== 'number') throw new ProviderError('transient', 'The WordPress site did not say the uploaded image’s id.');
  return id;
}

/** A 5xx answer to the post itself: 503 (maintenance, overload) is refused before WordPress runs; others may come after it saved the post. */
function unsure(error: unknown): never {
  if (error instanceof ProviderError && error.kind === 'transient' && error.options.status !== undefined && error.options.status !== 503)
    throw new ProviderError('unknown_outcome', `${error.message}; the post may or may not have been created: check the site's posts.`, {
      status: error.options.status,
      cause: error,
    });
  throw error;
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(wordpressProvider, ctx, input);
  const settings: Settings = readSettings(settingsSchema, input.settings);
  const site = await withApiRoot(ctx);
  const featured = input.media[0] ? await uploadFeatured(ctx, site, input.media[0], settings.featuredImageAlt) : undefined;
  const answer = await callWordPress(ctx, site, '/wp/v2/posts', {
    write: true,
    json: {
      title: settings.title,
      content: sanitizePostHtml(input.html),
      status: settings.status ?? 'publish',
      ...(settings.categories?.length && { categories: settings.categories }),
      ...(settings.tags?.length && { tags: settings.tags }),
      ...(settings.excerpt && { excerpt: settings.excerpt }),
      ...(settings.slug && { slug: settings.slug }),
      ...(featured !== undefined && { featured_media: featured }),
    },
  }).catch(unsure);
  const id = field(answer.json, 'id');
  if (typeof id !== 'number') throw new ProviderError('unknown_outcome', 'The WordPress site answered without the new post’s id.');
  const link = field(answer.json, 'link');
  return {
    id: String(id),
    url: typeof link === 'string' ? link : undefined,
    meta: { status: field(answer.json, 'status'), ...(featured !== undefined && { featuredMedia: featured }) },
  };
}

type Term = { id: number; name: string; slug: string; parent?: number; count?: number };

function termsOf(json: unknown): Term[] {
  return (Array.isArray(json) ? json : []).map((t) => ({
    id: Number(field(t, 'id')),
    name: String(field(t, 'name') ?? ''),
    slug: String(field(t, 'slug') ?? ''),
    ...(typeof field(t, 'parent') === 'number' && { parent: field(t, 'parent') as number }),
    ...(typeof field(t, 'count') === 'number' && { count: field(t, 'count') as number }),
  }));
}

function listTool(taxonomy: 'categories' | 'tags', what: string) {
  return {
    description: `Lists the site's ${what} (id, name, slug${taxonomy === 'categories' ? ', parent' : ''}, number of posts), up to 100, optionally those matching \`search\`.`,
    input: z.object({ search: z.string().max(200).optional().describe('Only those whose name contains this.') }),
    async run(ctx: P.ProviderContext, data: unknown) {
      const { search } = data as { search?: string };
      const site = await withApiRoot(ctx);
      const { json } = await callWordPress(ctx, site, `/wp/v2/${taxonomy}`, {
        query: { per_page: '100', orderby: 'count', order: 'desc', ...(search && { search }) },
      });
      return { [taxonomy]: termsOf(json) };
    },
  };
}

function createTool(taxonomy: 'categories' | 'tags', what: string) {
  return {
    description: `Creates a ${what} and returns its id; an existing one with that name is returned instead (\`existing: true\`). Needs a user allowed to manage ${taxonomy}.`,
    input: z.object({
      name: z.string().trim().min(1).max(200),
      ...(taxonomy === 'categories' && { parent: z.int().positive().optional().describe('The parent category id.') }),
    }),
    async run(ctx: P.ProviderContext, data: unknown) {
      const { name, parent } = data as { name: string; parent?: number };
      const site = await withApiRoot(ctx);
      try {
        const { json } = await callWordPress(ctx, site, `/wp/v2/${taxonomy}`, { json: { name, ...(parent && { parent }) } });
        return { ...termsOf([json])[0], existing: false };
      } catch (error) {
        // WordPress refuses a duplicate name with `term_exists` and the existing term's id.
        const existing = error instanceof ProviderError && /\(term_exists\)/.test(error.message);
        if (!existing) throw error;
        const { json } = await callWordPress(ctx, site, `/wp/v2/${taxonomy}`, { query: { search: name, per_page: '100' } });
        const found = termsOf(json).find((t) => t.name.toLowerCase() === name.toLowerCase());
        if (!found) throw error;
        return { ...found, existing: true };
      }
    },
  };
}

/** Publishes posts to a WordPress site through its REST API, signed in with an application password. */
export const wordpressProvider: P.Provider = {
  identifier: 'wordpress',
  name: 'WordPress',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText: (text) => text.length,
  // The post's HTML, sanitised again: WordPress takes it as the post content.
  toText: sanitizePostHtml,
  settingsSchema,
  configSchema: wordpressConfigSchema,
  configUrls: ['site', 'apiRoot'],
  mediaRules: { maxItems: 1, mimeTypes: IMAGE_TYPES, maxBytes: MAX_IMAGE_BYTES, required: false },
  idempotentWrites: false,
  connectHelp:
    'Make an application password in the site\'s admin (Users → Profile → Application Passwords; WordPress 5.6 or later, the site on https) and connect with `{"provider":"wordpress","site":"https://example.com","username":"…","applicationPassword":"abcd EFGH …"}`. The user must be allowed to write posts (author, editor or administrator; a contributor can only send posts for review with status `pending`).',
  tools: {
    listCategories: listTool('categories', 'categories'),
    createCategory: createTool('categories', 'category'),
    listTags: listTool('tags', 'tags'),
    createTag: createTool('tags', 'tag'),
  },
  validate({ part, media }): P.MissingItem[] {
    if (part > 0) return [{ field: `value[${part}]`, reason: COMMENTS_REFUSED }];
    const missing: P.MissingItem[] = [];
    if (media.length > 1)
      missing.push({ field: `value[${part}].image`, reason: 'WordPress takes one image, as the post’s featured image.' });
    return missing;
  },
  async connectAccount(ctx): Promise<P.ConnectedAccount> {
    const config = wordpressConfig(ctx.config);
    const site = { ...config, apiRoot: await discoverApiRoot(ctx, config.site) };
    discovered.set(ctx.config, site.apiRoot);
    const { json: user } = await callWordPress(ctx, site, '/wp/v2/users/me', { query: { context: 'edit' } });
    const id = field(user, 'id');
    if (typeof id !== 'number') throw new ProviderError('rejected', 'The WordPress site did not say whose account this is.');
    if (field(user, 'capabilities', 'edit_posts') === false)
      throw new ProviderError('rejected', `The WordPress user ${String(field(user, 'slug') ?? id)} may not write posts on this site.`);
    let siteName: string | undefined;
    try {
      const { json: index } = await callWordPress(ctx, site, '/');
      const name = field(index, 'name');
      if (typeof name === 'string' && name.trim()) siteName = name.trim();
    } catch {
      // The site's name only names the channel; the host does as well.
    }
    const host = new URL(config.site).host;
    const slug = String(field(user, 'slug') ?? field(user, 'username') ?? id);
    const avatar = field(user, 'avatar_urls', '96');
    return {
      internalId: `${host}${new URL(config.site).pathname.replace(/\/+$/, '')}/${id}`,
      name: siteName ?? host,
      handle: `${slug}@${host}`,
      picture: typeof avatar === 'string' ? avatar : null,
    };
  },
  /** Keeps the REST root the site announced, so publishing needs no second look. */
  async completeConfig(ctx) {
    const config = wordpressConfig(ctx.config);
    return { ...config, apiRoot: discovered.get(ctx.config) ?? (await discoverApiRoot(ctx, config.site)) };
  },
  publish,
  async comment() {
    throw new ProviderError('rejected', COMMENTS_REFUSED);
  },
};
