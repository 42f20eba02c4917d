import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { callMastodon, mastodonConfig } from './mastodon.client.ts';

/** `GET /api/v1/statuses` takes at most 20 ids (Mastodon 4.3+; `StatusesController::DEFAULT_STATUSES_LIMIT`). */
const BATCH = 20;
const STATUS_FIELDS = { favourites_count: 'likes', reblogs_count: 'reposts', replies_count: 'replies', quotes_count: 'quotes' } as const;
const ACCOUNT_FIELDS = { followers_count: 'followers', following_count: 'following', statuses_count: 'posts' } as const;

/**
 * Mastodon's counts: a status's favourites, boosts, replies and (4.5+) quotes as its home
 * instance knows them, and the account's followers. Statuses are read without the token: the
 * channel's token may predate `read:statuses`, and a token lacking it is refused (403) where no
 * token is not; so only public and unlisted statuses have numbers.
 */
export const mastodonMetrics: ProviderMetrics = {
  reports: { post: ['likes', 'reposts', 'replies', 'quotes'], account: ['followers', 'following', 'posts'] },
  batchSize: BATCH,
  async posts(ctx, refs) {
    const { instance } = mastodonConfig(ctx.config);
    const query = refs.map((ref) => `id[]=${encodeURIComponent(ref.id)}`).join('&');
    const { data } = await callMastodon<unknown>(ctx, instance, `/api/v1/statuses?${query}`);
    const found = new Map<string, MetricsReading>();
    for (const status of Array.isArray(data) ? data : []) {
      const id = (status as { id?: unknown }).id;
      if (typeof id === 'string') found.set(id, readMetrics(status, STATUS_FIELDS));
    }
    return found;
  },
  async account(ctx) {
    const { instance, accessToken } = mastodonConfig(ctx.config);
    const { data } = await callMastodon<unknown>(ctx, instance, '/api/v1/accounts/verify_credentials', { token: accessToken });
    return readMetrics(data, ACCOUNT_FIELDS);
  },
};
