import type { AtUri, Facet } from '@atproto/api';
import * as z from 'zod';
import { ProviderError, refuseInvalid, settingsIssues } from '../provider.ts';
import type * as P from '../provider.ts';
import { atproto } from './atproto.ts';
import { blueskyMetrics } from './bluesky.metrics.ts';
import { BlueskyClient } from './bluesky.client.ts';
import {
  blueskyConfigSchema,
  blueskySettingsSchema,
  normalizeHandle,
  resolveHandleInput,
  searchMentionsInput,
  type BlueskyConfig,
  type BlueskySettings,
} from './bluesky.schema.ts';
import { countBytes, countGraphemes, htmlToBlueskyText, MAX_BYTES, MAX_GRAPHEMES } from './bluesky.text.ts';
import { recordKeyFor } from './record-key.ts';

const POST = 'app.bsky.feed.post';
const MENTION = 'app.bsky.richtext.facet#mention';
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'] as const;
const MAX_IMAGES = 4;
/** app.bsky.embed.images#image: `maxSize: 1000000`. */
const MAX_IMAGE_BYTES = 1_000_000;
/** How long to look for a record an attempt may have written, after that attempt failed. */
const LOOKUP_TIMEOUT_MS = 5_000;

type StrongRef = { uri: string; cid: string };

function parseConfig(ctx: P.ProviderContext): BlueskyConfig {
  const parsed = blueskyConfigSchema.safeParse(ctx.config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ProviderError(
      'auth',
      `The Bluesky channel's configuration is invalid: ${issue ? `${issue.path.join('.') || 'config'}: ${issue.message}` : 'unknown problem'}.`,
    );
  }
  return parsed.data;
}

function parseSettings(settings: Record<string, unknown>): BlueskySettings {
  const parsed = blueskySettingsSchema.safeParse(settings);
  if (!parsed.success) {
    throw new ProviderError(
      'rejected',
      `Invalid Bluesky settings: ${parsed.error.issues.map((i) => `settings.${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

/**
 * What Herald keeps about a published post or comment: `id` is the record's AT URI (it names
 * the account, the collection and the record key, so it is enough to find the record again);
 * `meta` holds the `uri` and `cid` a reply needs, and the `did` and `rkey`.
 */
function toRef(uri: string, cid: string): P.PublishedRef {
  const at = new (atproto().AtUri)(uri);
  return { id: uri, url: `https://bsky.app/profile/${at.host}/post/${at.rkey}`, meta: { uri, cid, did: at.host, rkey: at.rkey } };
}

function postUri(ref: P.PublishedRef, label: string): AtUri {
  const uri = typeof ref.meta?.uri === 'string' ? ref.meta.uri : ref.id;
  let at: AtUri;
  try {
    at = new (atproto().AtUri)(uri);
  } catch {
    throw new ProviderError('rejected', `The ${label} "${uri}" is not a Bluesky post URI.`);
  }
  if (at.collection !== POST || !at.rkey) throw new ProviderError('rejected', `The ${label} "${uri}" is not a Bluesky post URI.`);
  return at;
}

/** The `{uri, cid}` of an earlier part; the cid is read back from the PDS when the ref lost it. */
async function strongRef(
  client: BlueskyClient,
  ref: P.PublishedRef,
  label: string,
): Promise<StrongRef & { value?: Record<string, unknown> }> {
  const at = postUri(ref, label);
  if (typeof ref.meta?.cid === 'string') return { uri: at.toString(), cid: ref.meta.cid };
  const record = await client.call('read', `reading the ${label}`, (agent) =>
    agent.com.atproto.repo.getRecord({ repo: at.host, collection: POST, rkey: at.rkey }),
  );
  if (!record.data.cid) throw new ProviderError('rejected', `Bluesky did not give the ${label}'s CID.`);
  return { uri: record.data.uri, cid: record.data.cid, value: record.data.value as Record<string, unknown> };
}

/** reply.root is the thread's first post and reply.parent the part just before (app.bsky.feed.post#replyRef). */
async function replyRefs(client: BlueskyClient, input: P.PublishInput): Promise<{ root: StrongRef; parent: StrongRef }> {
  if (!input.parent) throw new ProviderError('rejected', 'A Bluesky comment needs the post it replies to (input.parent).');
  const parent = await strongRef(client, input.parent, 'parent post');
  if (input.root) {
    const root = await strongRef(client, input.root, "thread's first post");
    return { root: { uri: root.uri, cid: root.cid }, parent: { uri: parent.uri, cid: parent.cid } };
  }
  // Without a root, the parent's own reply root (or the parent, if it starts the thread) is the root.
  const parentValue = parent.value ?? (await strongRef(client, { id: parent.uri }, 'parent post')).value;
  const inherited = (parentValue?.reply as { root?: StrongRef } | undefined)?.root;
  return { root: inherited ?? { uri: parent.uri, cid: parent.cid }, parent: { uri: parent.uri, cid: parent.cid } };
}

/**
 * Link, tag and mention facets with UTF-8 byte ranges (RichText). Mentions are resolved to
 * DIDs here rather than by RichText#detectFacets, which swallows every failure (a mention
 * would silently turn into plain text when the PDS is down): an unknown handle stays plain
 * text, as in Bluesky's own app, while a failed lookup fails the publish and is retried.
 */
async function buildFacets(client: BlueskyClient, text: string): Promise<Facet[] | undefined> {
  const rich = new (atproto().RichText)({ text });
  rich.detectFacetsWithoutResolution();
  if (!rich.facets?.length) return undefined;
  const handles = new Map<string, string | null>();
  for (const facet of rich.facets) {
    for (const feature of facet.features)
      if (feature.$type === MENTION) handles.set(normalizeHandle((feature as { did: string }).did), null);
  }
  await Promise.all(
    [...handles.keys()].map(async (handle) => {
      handles.set(handle, await resolveHandle(client, handle));
    }),
  );
  const facets = rich.facets.filter((facet) =>
    facet.features.every((feature) => {
      if (feature.$type !== MENTION) return true;
      const mention = feature as { did: string };
      const did = handles.get(normalizeHandle(mention.did));
      if (!did) return false;
      mention.did = did;
      return true;
    }),
  );
  return facets.length ? facets : undefined;
}

/** The DID of `handle`, or null when Bluesky says there is no such handle. */
async function resolveHandle(client: BlueskyClient, handle: string): Promise<string | null> {
  try {
    const answer = await client.call('read', `resolving @${handle}`, (agent) => agent.com.atproto.identity.resolveHandle({ handle }));
    return answer.data.did;
  } catch (error) {
    if (error instanceof ProviderError && error.kind === 'rejected') return null;
    throw error;
  }
}

function altText(settings: BlueskySettings, media: Pick<P.PublishMedia, 'id' | 'url'>): string {
  return settings.alt?.[media.id] ?? settings.alt?.[media.url] ?? '';
}

/** Uploads the images as blobs and embeds them (app.bsky.embed.images) with alt text and aspect ratio. */
async function imagesEmbed(
  client: BlueskyClient,
  media: P.PublishMedia[],
  settings: BlueskySettings,
): Promise<Record<string, unknown> | undefined> {
  if (media.length === 0) return undefined;
  const images: Array<Record<string, unknown>> = [];
  for (const item of media) {
    let bytes: Buffer;
    try {
      bytes = await item.read();
    } catch (error) {
      throw new ProviderError('transient', `Could not read ${item.name} from the media library: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (bytes.byteLength > MAX_IMAGE_BYTES) {
      throw new ProviderError(
        'rejected',
        `${item.name} is ${bytes.byteLength} bytes; Bluesky takes images up to ${MAX_IMAGE_BYTES} bytes.`,
      );
    }
    // Uploading the same bytes twice gives the same blob, so a retry cannot duplicate anything.
    const uploaded = await client.call('read', `uploading ${item.name}`, (agent) =>
      agent.com.atproto.repo.uploadBlob(new Uint8Array(bytes), { encoding: item.mimeType }),
    );
    images.push({
      image: uploaded.data.blob,
      alt: altText(settings, item),
      ...(item.width && item.height && item.width > 0 && item.height > 0 && { aspectRatio: { width: item.width, height: item.height } }),
    });
  }
  return { $type: 'app.bsky.embed.images', images };
}

/** The record already written under `rkey`, if any, with its text. */
async function existingRecord(client: BlueskyClient, rkey: string): Promise<{ ref: P.PublishedRef; text: unknown } | undefined> {
  try {
    const found = await client.call('read', 'looking for the post', (agent) =>
      agent.com.atproto.repo.getRecord({ repo: client.did, collection: POST, rkey }, { signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) }),
    );
    return found.data.cid ? { ref: toRef(found.data.uri, found.data.cid), text: (found.data.value as { text?: unknown }).text } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates the record under the part's own key. createRecord never overwrites: when the key is
 * taken (the PDS answers 500), or the answer was lost, the record found under the key is this
 * part, written by an earlier attempt, and it is the result. putRecord would be simpler but
 * would replace an existing post, changing the CID that later replies point at.
 */
async function createOnce(client: BlueskyClient, rkey: string, record: Record<string, unknown>): Promise<P.PublishedRef> {
  try {
    const created = await client.call('write', 'the post', (agent) =>
      agent.com.atproto.repo.createRecord({ repo: client.did, collection: POST, rkey, record, validate: true }),
    );
    return toRef(created.data.uri, created.data.cid);
  } catch (error) {
    if (!(error instanceof ProviderError) || error.kind === 'auth' || error.kind === 'rate_limited') throw error;
    const existing = await existingRecord(client, rkey);
    if (!existing) throw error;
    if (existing.text === record.text) return existing.ref;
    throw new ProviderError(
      'rejected',
      `A different post is already on Bluesky under this post's record key (${existing.ref.url}); delete it there, then edit the post to publish it again.`,
    );
  }
}

async function publishPart(ctx: P.ProviderContext, input: P.PublishInput, asReply: boolean): Promise<P.PublishedRef> {
  const config = parseConfig(ctx);
  refuseInvalid(blueskyProvider, ctx, input);
  const settings = parseSettings(input.settings);
  const client = new BlueskyClient(ctx, config);
  const reply = asReply ? await replyRefs(client, input) : undefined;
  const facets = await buildFacets(client, input.text);
  const embed = await imagesEmbed(client, input.media, settings);
  const record: Record<string, unknown> = {
    $type: POST,
    text: input.text,
    createdAt: new Date().toISOString(),
    ...(facets && { facets }),
    ...(reply && { reply }),
    ...(embed && { embed }),
    ...(settings.langs?.length && { langs: settings.langs }),
    ...(settings.contentWarning && { labels: { $type: 'com.atproto.label.defs#selfLabels', values: [{ val: settings.contentWarning }] } }),
  };
  return createOnce(client, recordKeyFor(input), record);
}

/** Bluesky through the AT Protocol, signed in with an app password. */
export const blueskyProvider: P.Provider = {
  identifier: 'bluesky',
  name: 'Bluesky',
  textLimit: { max: MAX_GRAPHEMES, unit: 'graphemes' },
  countText: countGraphemes,
  toText: htmlToBlueskyText,
  settingsSchema: blueskySettingsSchema,
  configSchema: blueskyConfigSchema,
  configUrls: ['service'],
  mediaRules: { maxItems: MAX_IMAGES, mimeTypes: IMAGE_TYPES, maxBytes: MAX_IMAGE_BYTES, required: false },
  // Each part is written under a record key derived from the post id, the part and its content (record-key.ts).
  idempotentWrites: true,
  metrics: blueskyMetrics,
  connectHelp:
    'In Bluesky, open Settings → Privacy and security → App passwords and create one for Herald, then run `herald admin channel create --workspace <ws> --provider bluesky --name "…" --config \'{"service":"https://bsky.social","identifier":"you.bsky.social","appPassword":"xxxx-xxxx-xxxx-xxxx"}\'` (`service` is your PDS if you host your own; `identifier` is your handle or DID).',
  tools: {
    resolveHandle: {
      description: 'Finds the DID of a Bluesky handle (e.g. to check a mention before posting).',
      input: resolveHandleInput,
      async run(ctx, data) {
        const { handle } = resolveHandleInput.parse(data);
        const normalized = normalizeHandle(handle);
        const client = new BlueskyClient(ctx, parseConfig(ctx));
        const answer = await client.call('read', `resolving @${normalized}`, (agent) =>
          agent.com.atproto.identity.resolveHandle({ handle: normalized }),
        );
        return { handle: normalized, did: answer.data.did };
      },
    },
    searchMentions: {
      description: "Suggests accounts to mention: handles and display names that start with `q` (Bluesky's typeahead search).",
      input: searchMentionsInput,
      async run(ctx, data) {
        const { q, limit } = searchMentionsInput.parse(data);
        const client = new BlueskyClient(ctx, parseConfig(ctx));
        const answer = await client.call('read', 'searching accounts', (agent) => agent.app.bsky.actor.searchActorsTypeahead({ q, limit }));
        return {
          actors: answer.data.actors.map((actor) => ({
            did: actor.did,
            handle: actor.handle,
            displayName: actor.displayName ?? null,
            avatar: actor.avatar ?? null,
          })),
        };
      },
    },
    whoami: {
      description: "Signs in with the channel's app password and tells which account it is (handle, DID, whether it is active).",
      input: z.object({}),
      async run(ctx) {
        const client = new BlueskyClient(ctx, parseConfig(ctx));
        const answer = await client.call('read', 'reading the session', (agent) => agent.com.atproto.server.getSession());
        return { did: answer.data.did, handle: answer.data.handle, active: answer.data.active ?? true };
      },
    },
  },
  validate({ text, media, settings, part }): P.MissingItem[] {
    const at = `value[${part}]`;
    const missing: P.MissingItem[] = [];
    const graphemes = countGraphemes(text);
    if (graphemes > MAX_GRAPHEMES) {
      missing.push({ field: `${at}.content`, reason: `The text is ${graphemes} graphemes long; Bluesky allows ${MAX_GRAPHEMES}.` });
    } else if (countBytes(text) > MAX_BYTES) {
      missing.push({ field: `${at}.content`, reason: `The text is ${countBytes(text)} bytes in UTF-8; Bluesky allows ${MAX_BYTES}.` });
    }
    if (text.trim() === '' && media.length === 0)
      missing.push({ field: `${at}.content`, reason: 'A Bluesky post needs text or at least one image.' });
    if (media.length > MAX_IMAGES)
      missing.push({ field: `${at}.image`, reason: `${media.length} images; a Bluesky post takes at most ${MAX_IMAGES}.` });
    media.forEach((item, i) => {
      const field = `${at}.image[${i}]`;
      if (!(IMAGE_TYPES as readonly string[]).includes(item.mimeType)) {
        missing.push({ field, reason: `${item.name} is ${item.mimeType}; Bluesky takes JPEG, PNG, WebP or GIF images.` });
      } else if (item.size > MAX_IMAGE_BYTES) {
        missing.push({ field, reason: `${item.name} is ${item.size} bytes; Bluesky takes images up to ${MAX_IMAGE_BYTES} bytes.` });
      }
    });
    missing.push(...settingsIssues(blueskySettingsSchema, settings));
    return missing;
  },
  async connectAccount(ctx) {
    // Sessions are cached per channel; a check before the channel exists shares one slot.
    const probe = { ...ctx, channel: { id: 'connect-check', workspaceId: '', name: '', profile: null } };
    const client = new BlueskyClient(probe, parseConfig(probe));
    const session = await client.call('read', 'signing in', (agent) => agent.com.atproto.server.getSession());
    const account = {
      internalId: session.data.did,
      name: session.data.handle,
      handle: session.data.handle,
      picture: null as string | null,
    };
    try {
      const profile = await client.call('read', 'reading the profile', (agent) =>
        agent.app.bsky.actor.getProfile({ actor: session.data.did }),
      );
      account.name = profile.data.displayName || account.name;
      account.picture = profile.data.avatar ?? null;
    } catch (error) {
      // A PDS without an app view has no profiles: the handle will do as the name.
      if (error instanceof ProviderError && error.kind === 'auth') throw error;
    }
    return account;
  },
  publish: (ctx, input) => publishPart(ctx, input, false),
  comment: (ctx, input) => publishPart(ctx, input, true),
};
