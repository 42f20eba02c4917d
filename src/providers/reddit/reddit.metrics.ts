import { field } from '../oauth-api.ts';
import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { callReddit, redditConfig } from './reddit.client.ts';

/** `GET /api/info` takes up to 100 fullnames. */
const BATCH = 100;
const POST_FIELDS = { score: 'score', num_comments: 'replies' } as const;

/**
 * Reddit's numbers: a post's score (upvotes less downvotes, as Reddit shows it) and its comment
 * count, a comment's score, read for up to 100 fullnames a call with `GET /api/info?id=`; the
 * account's followers from its profile (`/api/v1/me`, `subreddit.subscribers`). A post Reddit no
 * longer has is not in the listing: absent from the readings.
 */
export const redditMetrics: ProviderMetrics = {
  reports: { post: ['score', 'replies'], account: ['followers'] },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const { accessToken, username } = redditConfig(ctx.config);
    const ids = refs.map((ref) => ref.id).join(',');
    const { json } = await callReddit(ctx, `/api/info?id=${encodeURIComponent(ids)}&raw_json=1`, { token: accessToken, username });
    const found = new Map<string, MetricsReading>();
    const children = field(json, 'data', 'children');
    for (const child of Array.isArray(children) ? children : []) {
      const data = field(child, 'data');
      const name = field(data, 'name');
      // A removed or deleted post stays listed with its author "[deleted]": its numbers no longer move.
      if (typeof name !== 'string' || field(data, 'author') === '[deleted]') continue;
      found.set(name, readMetrics(data, POST_FIELDS));
    }
    return found;
  },
  async account(ctx) {
    const { accessToken, username } = redditConfig(ctx.config);
    const { json } = await callReddit(ctx, '/api/v1/me?raw_json=1', { token: accessToken, username });
    return readMetrics(field(json, 'subreddit'), { subscribers: 'followers' });
  },
};
