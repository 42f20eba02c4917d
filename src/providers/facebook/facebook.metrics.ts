import { eachPart, needingPermission, readMetrics, type ProviderMetrics } from '../metrics.ts';
import { field } from '../oauth-api.ts';
import { graph } from '../graph-api.ts';
import * as z from 'zod';
import { readConfig, type ProviderContext } from '../provider.ts';

const config = z.object({ accessToken: z.string(), pageId: z.string() });

const POST_FIELDS = 'reactions.summary(total_count).limit(0),comments.summary(total_count).limit(0),shares';

async function read(ctx: ProviderContext, path: string): Promise<unknown> {
  const { accessToken } = readConfig(config, ctx.config, 'Facebook');
  return (await needingPermission(graph(ctx, 'facebook', path, { token: accessToken }), 'Facebook', 'pages_read_engagement')).json;
}

/** The platform's own totals of a post: reactions (all types), comments and shares. */
function postCounts(json: unknown): Record<string, number | undefined> {
  const number = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    reactions: number(field(json, 'reactions', 'summary', 'total_count')),
    comments: number(field(json, 'comments', 'summary', 'total_count')),
    shares: number(field(json, 'shares', 'count')),
  };
}

/**
 * A page post's reactions (all types, as likes), comments (replies) and shares, read from the
 * post's own summary fields (`pages_read_engagement`; one post a call), and the page's followers
 * (`followers_count`). A post the page no longer has is absent.
 */
export const facebookMetrics: ProviderMetrics = {
  reports: { post: ['likes', 'replies', 'shares'], account: ['followers'] },
  batchSize: 1,
  posts: (ctx, refs) =>
    eachPart(refs, async (ref) => {
      const json = await read(ctx, `/${encodeURIComponent(ref.id)}?fields=${encodeURIComponent(POST_FIELDS)}`);
      return readMetrics(postCounts(json), { reactions: 'likes', comments: 'replies', shares: 'shares' });
    }),
  async account(ctx) {
    const { pageId } = readConfig(config, ctx.config, 'Facebook');
    const json = await read(ctx, `/${encodeURIComponent(pageId)}?fields=followers_count,fan_count`);
    return readMetrics(json, { followers_count: 'followers' });
  },
};
