import { field } from '../oauth-api.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import type { ProviderContext, PublishedRef } from '../provider.ts';
import { call, xConfig } from './x.provider.ts';

/** `GET /2/tweets` takes at most 100 ids. */
const BATCH = 100;
const PUBLIC_FIELDS = {
  impression_count: 'impressions',
  like_count: 'likes',
  retweet_count: 'reposts',
  reply_count: 'replies',
  quote_count: 'quotes',
  bookmark_count: 'bookmarks',
} as const;
/** Only for the author's own posts under 30 days old, read with the author's (user-context) token. */
const NON_PUBLIC_FIELDS = { url_link_clicks: 'clicks', user_profile_clicks: 'profile_visits' } as const;
const NON_PUBLIC_MS = 30 * 86_400_000;
/** Non-public numbers are asked for only this far within X's 30 days, so a post does not age past them on the way. */
const NON_PUBLIC_MARGIN_MS = 3_600_000;
const SNOWFLAKE_EPOCH = 1_288_834_974_657n;
const ACCOUNT_FIELDS = { followers_count: 'followers', following_count: 'following', tweet_count: 'posts' } as const;

/** When a post was made, from its id (X's ids are snowflakes: milliseconds since X's epoch above the lowest 22 bits); 0 for an id that is not one. */
function postedAt(id: string): number {
  return /^\d{1,20}$/.test(id) ? Number((BigInt(id) >> 22n) + SNOWFLAKE_EPOCH) : 0;
}

/** Reads `refs` with `GET /2/tweets` asking for `fields` into `found`; what X no longer has is left out of `data`. */
async function lookup(ctx: ProviderContext, refs: readonly PublishedRef[], fields: string, found: Map<string, MetricsReading>) {
  const { accessToken } = xConfig(ctx.config);
  const ids = refs.map((ref) => ref.id).join(',');
  const { json } = await call(ctx, `/2/tweets?ids=${encodeURIComponent(ids)}&tweet.fields=${fields}`, { token: accessToken });
  const data = field(json, 'data');
  for (const tweet of Array.isArray(data) ? data : []) {
    const id = field(tweet, 'id');
    if (typeof id !== 'string') continue;
    const visible = readMetrics(field(tweet, 'public_metrics'), PUBLIC_FIELDS);
    const own = readMetrics(field(tweet, 'non_public_metrics'), NON_PUBLIC_FIELDS);
    found.set(id, { metrics: { ...visible.metrics, ...own.metrics }, raw: { ...visible.raw, ...own.raw } });
  }
}

/**
 * X's counts: a post's `public_metrics` (impressions, likes, reposts, replies, quotes,
 * bookmarks) and, where X gives them (the account's own posts under 30 days old, read with its
 * user-context token), its `non_public_metrics` link and profile clicks; the account's
 * followers from its `public_metrics`. Posts under 30 days old (by their ids) are read with
 * both, older ones in another call with public numbers only. A post X no longer has (deleted)
 * is left out of `data` and listed in `errors`: it is absent from the readings.
 */
export const xMetrics: ProviderMetrics = {
  reports: {
    post: ['impressions', 'likes', 'reposts', 'replies', 'quotes', 'bookmarks', 'clicks', 'profile_visits'],
    account: ['followers', 'following', 'posts'],
  },
  batchSize: BATCH,
  async posts(ctx, refs) {
    // X refuses a post outright when its non-public numbers are asked for and not given: they are asked for recent posts only.
    const now = Date.now();
    const recent = refs.filter((ref) => now - postedAt(ref.id) < NON_PUBLIC_MS - NON_PUBLIC_MARGIN_MS);
    const older = refs.filter((ref) => !recent.includes(ref));
    const found = new Map<string, MetricsReading>();
    if (recent.length) await lookup(ctx, recent, 'public_metrics,non_public_metrics', found);
    if (older.length) await lookup(ctx, older, 'public_metrics', found);
    return found;
  },
  async account(ctx) {
    const { accessToken } = xConfig(ctx.config);
    const { json } = await call(ctx, '/2/users/me?user.fields=public_metrics', { token: accessToken });
    return readMetrics(field(json, 'data', 'public_metrics'), ACCOUNT_FIELDS);
  },
};
