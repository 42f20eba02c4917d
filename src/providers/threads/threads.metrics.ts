import { insights } from '../graph-api.ts';
import { eachPart, needingPermission, readMetrics, type ProviderMetrics } from '../metrics.ts';
import { field, oauthPlatform } from '../oauth-api.ts';
import { callPlatform, type PlatformAnswer } from '../platform-call.ts';
import type { ProviderContext } from '../provider.ts';
import { readThreadsError, threadsConfig, threadsUrl } from './threads.provider.ts';

const POST_METRICS = {
  views: 'views',
  likes: 'likes',
  replies: 'replies',
  reposts: 'reposts',
  quotes: 'quotes',
  shares: 'shares',
} as const;
const ACCOUNT_METRICS = { followers_count: 'followers' } as const;
/** Graph API error codes: a permission not granted (`threads_manage_insights`), an object that does not exist. */
const NO_PERMISSION = [10, 200];
const NO_OBJECT = 100;

/** Insights answers read as Threads' errors, with a missing permission and a missing post told apart. */
function readInsightsError(answer: PlatformAnswer) {
  const code = Number(field(answer.json, 'error', 'code'));
  const reading = readThreadsError(answer);
  if (NO_PERMISSION.includes(code)) return { ...reading, status: 403 };
  if (code === NO_OBJECT && Number(field(answer.json, 'error', 'error_subcode')) === 33) return { ...reading, status: 404 };
  return reading;
}

const INSIGHTS = oauthPlatform('Threads', readInsightsError);

async function read(ctx: ProviderContext, path: string): Promise<unknown> {
  const { accessToken } = threadsConfig(ctx.config);
  const call = callPlatform(ctx, INSIGHTS, threadsUrl(ctx.platformApps, path), { token: accessToken });
  return (await needingPermission(call, 'Threads', 'threads_manage_insights')).json;
}

/**
 * Threads' insights: a post's lifetime views, likes, replies, reposts, quotes and shares
 * (`GET /{media}/insights`, one post a call; replies nested under replies are not counted), and
 * the account's followers (`GET /{user}/threads_insights?metric=followers_count`). Both need
 * `threads_manage_insights`, which channels connected before it was asked for lack: reading
 * then fails as a permission refusal until the channel is connected again.
 */
export const threadsMetrics: ProviderMetrics = {
  reports: { post: ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'], account: ['followers'] },
  batchSize: 1,
  posts: (ctx, refs) =>
    eachPart(refs, async (ref) =>
      readMetrics(
        insights(await read(ctx, `/${encodeURIComponent(ref.id)}/insights?metric=${Object.keys(POST_METRICS).join(',')}`)),
        POST_METRICS,
      ),
    ),
  async account(ctx) {
    const { userId } = threadsConfig(ctx.config);
    const json = await read(ctx, `/${encodeURIComponent(userId)}/threads_insights?metric=followers_count`);
    return readMetrics(insights(json), ACCOUNT_METRICS);
  },
};
