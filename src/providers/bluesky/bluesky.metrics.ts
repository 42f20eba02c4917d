import { readConfig } from '../provider.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { BlueskyClient } from './bluesky.client.ts';
import { blueskyConfigSchema } from './bluesky.schema.ts';

/** `app.bsky.feed.getPosts` takes at most 25 URIs (its lexicon's `maxLength`). */
const BATCH = 25;
const POST_FIELDS = {
  likeCount: 'likes',
  repostCount: 'reposts',
  replyCount: 'replies',
  quoteCount: 'quotes',
  bookmarkCount: 'bookmarks',
} as const;
const PROFILE_FIELDS = { followersCount: 'followers', followsCount: 'following', postsCount: 'posts' } as const;

/**
 * Bluesky's counts, as the AppView reports them through the channel's PDS (which proxies
 * `app.bsky.*`): a post's likes, reposts, replies, quotes and bookmarks (`getPosts`, 25 URIs a
 * call), and the account's followers (`getProfile`). A post the AppView no longer has is absent.
 */
export const blueskyMetrics: ProviderMetrics = {
  reports: { post: ['likes', 'reposts', 'replies', 'quotes', 'bookmarks'], account: ['followers', 'following', 'posts'] },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const client = new BlueskyClient(ctx, readConfig(blueskyConfigSchema, ctx.config, 'Bluesky'));
    const uris = refs.map((ref) => (typeof ref.meta?.uri === 'string' ? ref.meta.uri : ref.id));
    const answer = await client.call('read', 'reading post counts', (agent) => agent.app.bsky.feed.getPosts({ uris }));
    const found = new Map<string, MetricsReading>();
    for (const post of answer.data.posts) found.set(post.uri, readMetrics(post, POST_FIELDS));
    // A part is known by its release id, which for Bluesky is the post's URI.
    return new Map(refs.flatMap((ref, i) => (found.has(uris[i]!) ? [[ref.id, found.get(uris[i]!)!] as const] : [])));
  },
  async account(ctx) {
    const client = new BlueskyClient(ctx, readConfig(blueskyConfigSchema, ctx.config, 'Bluesky'));
    const answer = await client.call('read', 'reading the profile', async (agent) =>
      agent.app.bsky.actor.getProfile({ actor: client.did }),
    );
    return readMetrics(answer.data, PROFILE_FIELDS);
  },
};
