import * as z from 'zod';
import { insights, type GraphHost } from '../graph-api.ts';
import { eachPart, needingPermission, readMetrics, type ProviderMetrics } from '../metrics.ts';
import { field } from '../oauth-api.ts';
import { readConfig, type ProviderContext } from '../provider.ts';
import { igGraph } from './instagram.provider.ts';

const config = z.object({ accessToken: z.string(), userId: z.string() });

/** Lifetime insights by the media's product type; asking one a type lacks fails the whole call. */
const INSIGHTS: Record<string, string[]> = {
  FEED: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'profile_visits'],
  REELS: ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions', 'ig_reels_video_view_total_time'],
  STORY: ['views', 'reach', 'shares', 'total_interactions', 'profile_visits'],
};
const POST_METRICS = {
  views: 'views',
  reach: 'reach',
  likes: 'likes',
  comments: 'replies',
  shares: 'shares',
  saved: 'saves',
  profile_visits: 'profile_visits',
  ig_reels_video_view_total_time: 'watch_time',
} as const;

/**
 * Instagram's numbers: a post's lifetime insights (`GET /{media}/insights`, the metrics its type
 * has: views, reach, likes, comments, shares, saves, profile visits, reels' watch time), with
 * `like_count` and `comments_count` where insights lack them; and the account's followers,
 * following and posts (`followers_count`, `follows_count`, `media_count`). Insights need
 * `instagram_manage_insights` (Facebook Login) or `instagram_business_manage_insights`
 * (Instagram Login); a token without it gets a permission refusal.
 */
export function instagramMetrics(host: GraphHost): ProviderMetrics {
  const grant = host === 'facebook' ? 'instagram_manage_insights' : 'instagram_business_manage_insights';
  async function read(ctx: ProviderContext, path: string): Promise<unknown> {
    const { accessToken } = readConfig(config, ctx.config, 'Instagram');
    return (await needingPermission(igGraph(ctx, host, path, { token: accessToken }), 'Instagram', grant)).json;
  }
  return {
    reports: {
      post: ['views', 'reach', 'likes', 'replies', 'shares', 'saves', 'profile_visits', 'watch_time'],
      account: ['followers', 'following', 'posts'],
    },
    batchSize: 1,
    posts: (ctx, refs) =>
      eachPart(refs, async (ref) => {
        const media = await read(ctx, `/${encodeURIComponent(ref.id)}?fields=media_product_type,like_count,comments_count`);
        const type = String(field(media, 'media_product_type') ?? 'FEED');
        const names = INSIGHTS[type] ?? INSIGHTS.FEED!;
        const values = insights(await read(ctx, `/${encodeURIComponent(ref.id)}/insights?metric=${names.join(',')}`));
        const counts = { likes: field(media, 'like_count'), comments: field(media, 'comments_count') };
        return readMetrics({ ...counts, ...values }, POST_METRICS);
      }),
    async account(ctx) {
      const { userId } = readConfig(config, ctx.config, 'Instagram');
      const json = await read(ctx, `/${encodeURIComponent(userId)}?fields=followers_count,follows_count,media_count`);
      return readMetrics(json, { followers_count: 'followers', follows_count: 'following', media_count: 'posts' });
    },
  };
}
