import { eachPart, readMetrics, type ProviderMetrics } from '../metrics.ts';
import { field } from '../oauth-api.ts';
import { pinterestCall, pinterestConfig } from './pinterest.client.ts';

const PIN_METRICS = { IMPRESSION: 'impressions', SAVE: 'saves', PIN_CLICK: 'clicks', VIDEO_MRC_VIEW: 'views' } as const;
const ACCOUNT_METRICS = { follower_count: 'followers', following_count: 'following', pin_count: 'posts' } as const;
/** Pinterest keeps a pin's analytics for 90 days. */
const WINDOW_DAYS = 90;

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Pinterest's numbers: a pin's impressions, saves, pin clicks and video views summed over the last
 * 90 days (`GET /pins/{id}/analytics`, the longest window Pinterest keeps; one pin a call), and
 * the account's followers, following and pins (`GET /user_account`).
 */
export const pinterestMetrics: ProviderMetrics = {
  reports: { post: ['impressions', 'saves', 'clicks', 'views'], account: ['followers', 'following', 'posts'] },
  batchSize: 1,
  async posts(ctx, refs) {
    const { accessToken } = pinterestConfig(ctx.config);
    const now = new Date();
    const query = new URLSearchParams({
      start_date: day(new Date(now.getTime() - (WINDOW_DAYS - 1) * 86_400_000)),
      end_date: day(now),
      metric_types: Object.keys(PIN_METRICS).join(','),
    });
    return eachPart(refs, async (ref) => {
      const { json } = await pinterestCall(ctx, `/pins/${encodeURIComponent(ref.id)}/analytics?${query.toString()}`, {
        token: accessToken,
      });
      return readMetrics(field(json, 'all', 'summary_metrics'), PIN_METRICS);
    });
  },
  async account(ctx) {
    const { accessToken } = pinterestConfig(ctx.config);
    const { json } = await pinterestCall(ctx, '/user_account', { token: accessToken });
    return readMetrics(json, ACCOUNT_METRICS);
  },
};
