import * as z from 'zod';
import { field } from '../oauth-api.ts';
import { baseUrlNotPublic, type PlatformApps } from '../platform-apps.ts';
import { ProviderError, readSettings, refuseInvalid } from '../provider.ts';
import type * as P from '../provider.ts';
import { callForem, devtoConfig, devtoConfigSchema } from './devto.client.ts';
import { devtoMetrics } from './devto.metrics.ts';
import { htmlToForemMarkdown } from './devto.text.ts';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
const TEXT_LIMIT = 1_000_000;
/** Forem's limits: a title of at most 128 characters, at most 4 tags of letters and digits (30 at most each). */
const TITLE_LIMIT = 128;
const MAX_TAGS = 4;

const settingsSchema = z.object({
  title: z
    .string({ error: 'An article needs a title' })
    .trim()
    .min(1, 'An article needs a title')
    .max(TITLE_LIMIT)
    .describe('The article title (required, at most 128 characters).'),
  tags: z
    .array(
      z
        .string()
        .trim()
        .regex(/^[\p{L}\p{N}]{1,30}$/u, 'a tag of letters and digits only, at most 30 (e.g. `javascript`, not `java-script`)')
        .transform((tag) => tag.toLowerCase()),
    )
    .max(MAX_TAGS, 'at most 4 tags')
    .optional()
    .describe('Up to 4 tags, letters and digits only (`webdev`, `beginners`).'),
  published: z.boolean().optional().describe('Publish at once (default `true`), or keep it as a draft (`false`) on the community.'),
  canonicalUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Where the article first appeared, when it is a copy.'),
  series: z.string().trim().min(1).max(128).optional().describe('The series the article belongs to (made when new).'),
  description: z.string().trim().max(500).optional().describe('A short description shown in lists and link previews.'),
  organizationId: z
    .int()
    .positive()
    .optional()
    .describe('Publish under an organization the account belongs to (the `organization` tool gives its id).'),
});

type Settings = z.infer<typeof settingsSchema>;

const COMMENTS_REFUSED =
  'The community’s API cannot write comments (it only reads them): Herald publishes no comment parts there. Remove this part, or publish it as its own post.';

/** Herald's own media URL for the cover image, absolute (the community fetches it). */
function mediaUrl(platformApps: PlatformApps, item: Pick<P.PublishMedia, 'url'>): string {
  return new URL(item.url, `${platformApps.baseUrl}/`).toString();
}

async function publish(ctx: P.ProviderContext, input: P.PublishInput): Promise<P.PublishedRef> {
  refuseInvalid(devtoProvider, ctx, input);
  const settings: Settings = readSettings(settingsSchema, input.settings);
  const config = devtoConfig(ctx.config);
  const cover = input.media[0];
  const { json } = await callForem(ctx, config, '/articles', {
    write: true,
    json: {
      article: {
        title: settings.title,
        body_markdown: input.text,
        published: settings.published ?? true,
        ...(settings.tags?.length && { tags: settings.tags }),
        ...(settings.canonicalUrl && { canonical_url: settings.canonicalUrl }),
        ...(settings.series && { series: settings.series }),
        ...(settings.description && { description: settings.description }),
        ...(settings.organizationId && { organization_id: settings.organizationId }),
        ...(cover && { main_image: mediaUrl(ctx.platformApps, cover) }),
      },
    },
  });
  const id = field(json, 'id');
  if (typeof id !== 'number') throw new ProviderError('unknown_outcome', 'The community answered without the new article’s id.');
  const url = field(json, 'url');
  return { id: String(id), url: typeof url === 'string' ? url : undefined, meta: { published: field(json, 'published') } };
}

/** Publishes articles to DEV (dev.to) or any other Forem community, with the account's API key. */
export const devtoProvider: P.Provider = {
  identifier: 'devto',
  name: 'DEV',
  textLimit: { max: TEXT_LIMIT, unit: 'characters' },
  countText: (text) => text.length,
  toText: htmlToForemMarkdown,
  settingsSchema,
  configSchema: devtoConfigSchema,
  configUrls: ['baseUrl'],
  mediaRules: { maxItems: 1, mimeTypes: IMAGE_TYPES, maxBytes: 25 * 1024 * 1024, required: false },
  idempotentWrites: false,
  metrics: devtoMetrics,
  connectHelp:
    'Make an API key on the community (DEV: Settings → Extensions → "DEV Community API Keys") and connect with `{"provider":"devto","apiKey":"…"}`; for another Forem community add `"baseUrl":"https://community.example.org"`. The article\'s image is its cover, fetched by the community from Herald, so BASE_URL must be public.',
  tools: {
    organization: {
      description:
        'Looks up an organization by its username (the last part of its address, e.g. `dev.to/<username>`): its id (for the `organizationId` setting) and name.',
      input: z.object({
        username: z
          .string()
          .trim()
          .regex(/^[A-Za-z0-9_-]{1,100}$/, 'an organization username'),
      }),
      async run(ctx, data) {
        const { username } = data as { username: string };
        const { json } = await callForem(ctx, devtoConfig(ctx.config), `/organizations/${encodeURIComponent(username)}`);
        return { id: field(json, 'id'), name: field(json, 'name'), username: field(json, 'username') };
      },
    },
  },
  validate({ part, media, platformApps }): P.MissingItem[] {
    if (part > 0) return [{ field: `value[${part}]`, reason: COMMENTS_REFUSED }];
    const missing: P.MissingItem[] = [];
    if (media.length > 1) missing.push({ field: `value[${part}].image`, reason: 'An article takes one image, as its cover.' });
    if (media.length > 0) {
      const notPublic = baseUrlNotPublic(platformApps);
      if (notPublic) missing.push({ field: `value[${part}].image`, reason: notPublic });
    }
    return missing;
  },
  async connectAccount(ctx): Promise<P.ConnectedAccount> {
    const config = devtoConfig(ctx.config);
    const { json } = await callForem(ctx, config, '/users/me');
    const id = field(json, 'id');
    const username = field(json, 'username');
    if (typeof id !== 'number' || typeof username !== 'string')
      throw new ProviderError('rejected', 'The community did not say whose API key this is.');
    const name = field(json, 'name');
    const picture = field(json, 'profile_image');
    const host = new URL(config.baseUrl).host;
    return {
      internalId: `${host}/${id}`,
      name: typeof name === 'string' && name.trim() ? name.trim() : username,
      handle: host === 'dev.to' ? username : `${username}@${host}`,
      picture: typeof picture === 'string' ? picture : null,
    };
  },
  publish,
  async comment() {
    throw new ProviderError('rejected', COMMENTS_REFUSED);
  },
};
