import { field } from '../oauth-api.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
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
const ACCOUNT_FIELDS = { followers_count: 'followers', following_count: 'following', tweet_count: 'posts' } as const;

/**
 * X's counts: a post's `public_metrics` (impressions, likes, reposts, replies, quotes,
 * bookmarks) and, where X gives them (the account's own posts under 30 days old, read with its
 * user-context token), its `non_public_metrics` link and profile clicks; the account's
 * followers from its `public_metrics`. A post X no longer has (deleted) is left out of `data`
 * and listed in `errors`: it is absent from the readings.
 */
export const xMetrics: ProviderMetrics = {
  reports: {
    post: ['impressions', 'likes', 'reposts', 'replies', 'quotes', 'bookmarks', 'clicks', 'profile_visits'],
    account: ['followers', 'following', 'posts'],
  },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const { accessToken } = xConfig(ctx.config);
    const ids = refs.map((ref) => ref.id).join(',');
    const { json } = await call(ctx, `/2/tweets?ids=${encodeURIComponent(ids)}&tweet.fields=public_metrics,non_public_metrics`, {
      token: accessToken,
    });
    const found = new Map<string, MetricsReading>();
    const data = field(json, 'data');
    for (const tweet of Array.isArray(data) ? data : []) {
      const id = field(tweet, 'id');
      if (typeof id !== 'string') continue;
      const visible = readMetrics(field(tweet, 'public_metrics'), PUBLIC_FIELDS);
      const own = readMetrics(field(tweet, 'non_public_metrics'), NON_PUBLIC_FIELDS);
      found.set(id, { metrics: { ...visible.metrics, ...own.metrics }, raw: { ...visible.raw, ...own.raw } });
    }
    return found;
  },
  async account(ctx) {
    const { accessToken } = xConfig(ctx.config);
    const { json } = await call(ctx, '/2/users/me?user.fields=public_metrics', { token: accessToken });
    return readMetrics(field(json, 'data', 'public_metrics'), ACCOUNT_FIELDS);
  },
};
