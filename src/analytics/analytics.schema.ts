import * as z from 'zod';
import { count, wholeNumber } from '../http/common.schema.ts';
import { instantSchema } from '../posts/posts.schema.ts';
import { METRIC_NAMES } from '../providers/metrics.ts';

export const metricNameSchema = z
  .enum(METRIC_NAMES)
  .describe(
    'A normalised metric name: impressions, views, reach, likes, reposts, shares, replies, quotes, bookmarks, saves, clicks, profile_visits, watch_time, score, zaps, followers, following or posts.',
  );

export const metricsSchema = z
  .partialRecord(metricNameSchema, count())
  .describe(
    "Numbers by normalised name. A metric the platform does not report is absent, never 0; `clicks` counts Herald's short links when the platform reports none.",
  )
  .meta({ id: 'Metrics', example: { likes: 12, reposts: 3, replies: 2 } });

const refresh = z
  .enum(['true', 'false'])
  .optional()
  .transform((value) => value === 'true')
  .describe(
    'true: read the numbers from the platform first (at most once per channel every 5 minutes; beyond that the stored numbers are answered, with `refreshed: false`).',
  );

const refreshedField = z.boolean().describe('Whether this answer read the platform first (`refresh=true` within the per-channel limit).');
const updatedAt = z.string().nullable().describe('When the numbers were read from the platform (UTC); null before the first reading.');

export const postIdParams = z.object({ id: z.string().min(1).max(100) });
export const channelIdParams = z.object({ id: z.string().min(1).max(100) });
export const refreshQuery = z.object({ refresh });

export const rangeQuery = z.object({
  startDate: instantSchema.describe('Start of the window (inclusive), ISO 8601 UTC.'),
  endDate: instantSchema.describe('End of the window (inclusive), ISO 8601 UTC; at most one year after the start.'),
});

const snapshotSchema = z.object({ at: z.string().describe('When it was read (UTC).'), metrics: metricsSchema });

export const postAnalyticsSchema = z
  .object({
    postId: z.string(),
    integration: z.string().describe('The channel ID.'),
    identifier: z.string().describe('The platform.'),
    published: z.boolean().describe('False until the post has a platform id: it has no numbers yet.'),
    metricsUpdatedAt: updatedAt,
    metrics: metricsSchema.describe('The post itself (part 0), latest reading.'),
    refreshed: refreshedField,
    parts: z
      .array(
        z.object({
          part: wholeNumber(0, 1000).describe('0 for the post, 1… for its comments.'),
          releaseId: z.string().describe("The part's id on the platform."),
          metricsUpdatedAt: updatedAt,
          metrics: metricsSchema,
          history: z.array(snapshotSchema).describe('Every reading that changed the numbers, oldest first.'),
        }),
      )
      .describe('The post and each of its published comments.'),
  })
  .meta({ id: 'PostAnalytics' });

export const channelAnalyticsQuery = rangeQuery.extend({ refresh });

const dailySchema = z.object({
  date: z.string().describe('The UTC day, YYYY-MM-DD.'),
  posts: count().describe('Posts published that day.'),
  metrics: metricsSchema.describe("The sums of those posts' latest numbers."),
});

export const channelAnalyticsSchema = z
  .object({
    integration: z.string(),
    identifier: z.string(),
    supported: z
      .object({ post: z.array(metricNameSchema), account: z.array(metricNameSchema) })
      .describe("The metrics this channel's platform reports; empty when it reports none."),
    collecting: z
      .boolean()
      .describe('Whether Herald reads this channel (false when its platform reports nothing, or it was deleted, disabled or refused).'),
    error: z.string().nullable().describe('Why the last reading failed, if it did.'),
    metricsUpdatedAt: updatedAt,
    refreshed: refreshedField,
    account: metricsSchema.describe("The account's latest numbers (followers…)."),
    accountHistory: z
      .array(z.object({ date: z.string(), metrics: metricsSchema }))
      .describe("The account's numbers, the last reading of each UTC day in the window."),
    daily: z.array(dailySchema).describe('Per UTC day of the window that had posts.'),
  })
  .meta({ id: 'ChannelAnalytics' });

export const summaryQuery = rangeQuery.extend({
  metric: metricNameSchema.default('likes').describe('The metric top posts are ranked by (likes by default).'),
  limit: z.coerce.number().int().min(1).max(100).default(10).describe('Top posts returned, 1 to 100 (10 by default).'),
});

export const summarySchema = z
  .object({
    startDate: z.string(),
    endDate: z.string(),
    posts: count().describe('Published posts in the window with numbers.'),
    totals: metricsSchema.describe('Sums over those posts.'),
    channels: z.array(z.object({ integration: z.string(), posts: count(), metrics: metricsSchema })),
    top: z.array(
      z.object({ postId: z.string(), integration: z.string(), publishedAt: z.string(), value: count(), metrics: metricsSchema }),
    ),
  })
  .meta({ id: 'AnalyticsSummary' });

export const compatQuery = z.object({
  date: z.coerce.number().int().min(1).max(365).default(7).describe('Days back from now (e.g. 7, 30, 90).'),
  refresh,
});

export const compatSeriesSchema = z
  .array(
    z.object({
      label: z.string().describe('The metric.'),
      percentageChange: z
        .number()
        .describe('This period against the one before it, in percent (0 when both are 0; 100 when only this one has any).'),
      data: z.array(z.object({ total: z.number(), date: z.string().describe('YYYY-MM-DD') })),
    }),
  )
  .meta({ id: 'AnalyticsSeries' });

export const compatPostSchema = z.union([compatSeriesSchema, z.object({ missing: z.literal(true) })]);
