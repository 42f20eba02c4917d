import { authErrors, notFoundErrors } from '../http/common.schema.ts';
import { operation, plural, READ_ONLY, TIMES } from '../operations/operation.ts';
import type { Metrics } from '../providers/metrics.ts';
import {
  channelAnalyticsQuery,
  channelAnalyticsSchema,
  channelIdParams,
  compatPostSchema,
  compatQuery,
  compatSeriesSchema,
  postAnalyticsSchema,
  postIdParams,
  refreshQuery,
  summaryQuery,
  summarySchema,
} from './analytics.schema.ts';
import * as z from 'zod';

const tags = ['Analytics'];
const REFRESH =
  '`refresh=true` reads the platform first, at most once per channel every 5 minutes; otherwise (and beyond that limit) the stored numbers are answered with `metricsUpdatedAt`.';
const COLLECTED =
  'Numbers are read from the platforms on a schedule (hourly in a post’s first day, every 6 hours in its first week, daily until 30 days; accounts daily) and kept as snapshots. A metric the platform does not report is absent, never 0.';

const shown = (metrics: Metrics) =>
  Object.entries(metrics)
    .map(([name, value]) => `${name} ${value}`)
    .join(', ') || 'no numbers yet';

export const getPostAnalytics = operation({
  name: 'get_post_analytics',
  scope: 'analytics:read',
  params: postIdParams,
  query: refreshQuery,
  call: (services, access, { id, refresh }) => services.analytics.post(access, id, refresh),
  rest: {
    method: 'GET',
    url: '/analytics/posts/:id',
    tags,
    summary: "A post's numbers",
    description: `The platform's numbers for a published post and each of its comments, latest and over time. ${COLLECTED} ${REFRESH}`,
    response: postAnalyticsSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "A post's numbers",
    description: `Likes, reposts, replies… of a published post (and its comments), latest and over time. ${REFRESH}`,
    annotations: READ_ONLY,
    output: postAnalyticsSchema,
    summary: (o) =>
      o.published
        ? `Post ${o.postId}: ${shown(o.metrics)} (read ${o.metricsUpdatedAt ?? 'never'}).`
        : `Post ${o.postId} is not published yet.`,
  },
});

export const getChannelAnalytics = operation({
  name: 'get_channel_analytics',
  scope: 'analytics:read',
  params: channelIdParams,
  query: channelAnalyticsQuery,
  call: (services, access, { id, ...query }) => services.analytics.channel(access, id, query),
  rest: {
    method: 'GET',
    url: '/analytics/channels/:id',
    tags,
    summary: "A channel's numbers over a window",
    description: `The account's numbers (followers…) per UTC day in the window, and per day the sums of the numbers of the posts published that day. The window is validated as for GET /posts (at most one year). ${COLLECTED} ${REFRESH}`,
    response: channelAnalyticsSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "A channel's numbers",
    description: `Followers over time and the daily sums of a channel's posts' numbers in a window (at most one year). ${TIMES} ${REFRESH}`,
    annotations: READ_ONLY,
    output: channelAnalyticsSchema,
    summary: (o) => `Channel ${o.integration}: account ${shown(o.account)}; ${plural(o.daily.length, 'day')} with posts.`,
  },
});

export const getAnalyticsSummary = operation({
  name: 'get_analytics_summary',
  scope: 'analytics:read',
  query: summaryQuery,
  call: (services, access, query) => services.analytics.summary(access, query),
  rest: {
    method: 'GET',
    url: '/analytics/summary',
    tags,
    summary: "The workspace's numbers over a window",
    description: `For the posts published in the window (at most one year): totals per metric, per channel, and the top posts by \`metric\`. A key limited to some channels sums those channels only. ${COLLECTED}`,
    response: summarySchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Analytics summary',
    description: `Totals per metric and per channel, and the top posts by a metric, for the posts published in a window. ${TIMES}`,
    annotations: READ_ONLY,
    output: summarySchema,
    summary: (o) =>
      `${plural(o.posts, 'post')}: ${shown(o.totals)}; top: ${o.top.map((t) => `${t.postId} (${t.value})`).join(', ') || 'none'}.`,
  },
});

const COMPAT =
  'The shape clients of this API family already read: one series per metric, `{label, percentageChange, data: [{total, date}]}`, over the last `date` UTC days; `percentageChange` compares them with the `date` days before.';

export const getChannelSeries = operation({
  name: 'get_channel_series',
  scope: 'analytics:read',
  params: z.object({ channelId: z.string().min(1).max(100) }),
  query: compatQuery,
  call: (services, access, { channelId, ...query }) => services.analytics.compatChannel(access, channelId, query),
  rest: {
    method: 'GET',
    url: '/analytics/:channelId',
    tags,
    summary: "A channel's series over the last days",
    description: `${COMPAT} Account numbers (followers…) are each day's last reading, compared at the ends of the two periods; post numbers are the daily sums of the posts published that day. ${REFRESH}`,
    response: compatSeriesSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "A channel's series",
    description: COMPAT,
    annotations: READ_ONLY,
    output: z.object({ series: compatSeriesSchema }),
    present: (series) => ({ series }),
    summary: (o) => `${plural(o.series.length, 'series')}.`,
  },
});

export const getPostSeries = operation({
  name: 'get_post_series',
  scope: 'analytics:read',
  params: z.object({ postId: z.string().min(1).max(100) }),
  query: compatQuery,
  call: (services, access, { postId, ...query }) => services.analytics.compatPost(access, postId, query),
  rest: {
    method: 'GET',
    url: '/analytics/post/:postId',
    tags,
    summary: "A post's series over the last days",
    description: `${COMPAT} Each day's last reading of the post; \`{missing: true}\` while the post has no platform id. ${REFRESH}`,
    response: compatPostSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "A post's series",
    description: COMPAT,
    annotations: READ_ONLY,
    output: z.object({ series: compatSeriesSchema.optional(), missing: z.boolean().optional() }),
    present: (result) => (Array.isArray(result) ? { series: result } : result),
    summary: (o) => (o.missing ? 'The post has no platform id yet.' : `${plural(o.series?.length ?? 0, 'series')}.`),
  },
});
