import { readMetrics, type MetricsReading, type ProviderMetrics } from '../metrics.ts';
import { field } from '../oauth-api.ts';
import { youtubeApi, youtubeConfig } from './youtube.provider.ts';

const VIDEO_METRICS = { viewCount: 'views', likeCount: 'likes', commentCount: 'replies' } as const;
const CHANNEL_METRICS = { subscriberCount: 'followers', videoCount: 'posts' } as const;

/** YouTube gives its counts as decimal strings (64-bit numbers); absent when the owner hides them. */
function numbers(statistics: unknown, names: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const name of names) {
    const value = field(statistics, name);
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
    if (Number.isFinite(n)) out[name] = n;
  }
  return out;
}

/**
 * YouTube's public counts through the Data API: a video's views, likes and comments
 * (`videos.list?part=statistics`, 50 ids a call; a deleted video is left out of the answer), and
 * the channel's subscribers and videos (`channels.list?part=statistics`; subscribers are absent
 * when the channel hides them). Watch time and impressions are YouTube Analytics API numbers, not read.
 */
export const youtubeMetrics: ProviderMetrics = {
  reports: { post: ['views', 'likes', 'replies'], account: ['followers', 'posts'] },
  batchSize: 50,
  async posts(ctx, refs) {
    const { accessToken } = youtubeConfig(ctx.config);
    const ids = refs.map((r) => r.id).join(',');
    const { json } = await youtubeApi(ctx, `/videos?part=statistics&id=${encodeURIComponent(ids)}&maxResults=50`, {
      token: accessToken,
    });
    const found = new Map<string, MetricsReading>();
    const list = field(json, 'items');
    for (const item of Array.isArray(list) ? list : []) {
      const id = field(item, 'id');
      if (typeof id !== 'string') continue;
      found.set(id, readMetrics(numbers(field(item, 'statistics'), Object.keys(VIDEO_METRICS)), VIDEO_METRICS));
    }
    return found;
  },
  async account(ctx) {
    const { accessToken, channelId } = youtubeConfig(ctx.config);
    const { json } = await youtubeApi(ctx, `/channels?part=statistics&id=${encodeURIComponent(channelId)}`, { token: accessToken });
    const statistics = field(json, 'items', '0', 'statistics');
    const hidden = field(statistics, 'hiddenSubscriberCount') === true;
    const names = Object.keys(CHANNEL_METRICS).filter((n) => !(hidden && n === 'subscriberCount'));
    return readMetrics(numbers(statistics, names), CHANNEL_METRICS);
  },
};
