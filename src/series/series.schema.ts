import * as z from 'zod';
import { count } from '../http/common.schema.ts';
import { instantSchema, postItemSchema } from '../posts/posts.schema.ts';
import { WEEKDAYS } from '../schedules/slots.ts';

/** How long after its time an occurrence may still be published; older ones are skipped. */
export const MISSED_WINDOW_MINUTES = 120;
/** How far ahead a series' occurrences are written as posts (and so shown by GET /posts). */
export const SERIES_HORIZON_DAYS = 60;

export const repeatSchema = z
  .object({
    frequency: z
      .enum(['daily', 'weekly', 'monthly', 'rrule'])
      .describe('`daily`, `weekly` (on `days`), `monthly` (on `monthDay`), or `rrule`: an RFC 5545 recurrence rule given in `rrule`.'),
    interval: z.number().int().min(1).max(366).optional().describe('Every `interval` days, weeks or months (default 1).'),
    days: z.array(z.enum(WEEKDAYS)).min(1).max(7).optional().describe('`weekly` only: the days of the week (default: the day of `start`).'),
    monthDay: z
      .number()
      .int()
      .min(-31)
      .max(31)
      .refine((day) => day !== 0, { error: 'a day of the month is 1 to 31, or -1 to -31 counted from its end.' })
      .optional()
      .describe(
        '`monthly` only: the day of the month, 1 to 31, or -1 for the last (default: the day of `start`). A month without that day has no occurrence.',
      ),
    rrule: z
      .string()
      .min(6)
      .max(500)
      .optional()
      .describe(
        '`rrule` only: the rule, e.g. `FREQ=WEEKLY;BYDAY=TU,TH` or `FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1` (the first Monday). Without DTSTART, TZID, UNTIL or COUNT (they are `start`, `timeZone`, `until` and `count`); at most hourly.',
      ),
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .describe('An IANA time zone (e.g. `Europe/Berlin`, `Australia/Sydney`): the rule runs on its local time.'),
    start: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, {
        error: 'expected a local date-time without a zone, YYYY-MM-DDTHH:MM, e.g. "2026-12-01T09:00".',
      })
      .describe(
        "The first occurrence's local date and time in `timeZone`, without a zone (`2026-12-01T09:00`). Every occurrence keeps this local time across daylight-saving changes; a time the clocks skip that day is moved forward by the gap, a time that occurs twice is the first.",
      ),
    count: z.number().int().min(1).max(10_000).optional().describe('Ends after this many occurrences (counted from `start`).'),
    until: instantSchema
      .optional()
      .describe('No occurrence after this instant (ISO 8601 UTC). Without `count` or `until` the series goes on until deleted.'),
  })
  .superRefine((repeat, ctx) => {
    if (repeat.frequency === 'rrule' && repeat.rrule === undefined)
      ctx.addIssue({ code: 'custom', path: ['rrule'], message: 'required with frequency "rrule".' });
    if (repeat.frequency !== 'rrule' && repeat.rrule !== undefined)
      ctx.addIssue({ code: 'custom', path: ['rrule'], message: 'only with frequency "rrule".' });
    if (repeat.days !== undefined && repeat.frequency !== 'weekly')
      ctx.addIssue({ code: 'custom', path: ['days'], message: 'only with frequency "weekly".' });
    if (repeat.monthDay !== undefined && repeat.frequency !== 'monthly')
      ctx.addIssue({ code: 'custom', path: ['monthDay'], message: 'only with frequency "monthly".' });
    if (repeat.interval !== undefined && repeat.frequency === 'rrule')
      ctx.addIssue({ code: 'custom', path: ['interval'], message: 'put INTERVAL in the rule itself with frequency "rrule".' });
  })
  .meta({ id: 'Repeat' });

const tagsSchema = z.array(z.string().trim().min(1).max(64)).max(50);

export const createSeriesBody = z
  .object({
    repeat: repeatSchema,
    posts: z.array(postItemSchema).min(1).max(100).describe('One item per channel, as in POST /posts: what every occurrence publishes.'),
    tags: tagsSchema.default([]).describe('Internal labels of every occurrence.'),
    shortLink: z.boolean().default(false).describe('Replace links in the published text with short links served by this service.'),
  })
  .meta({
    id: 'CreateSeries',
    examples: [
      {
        repeat: { frequency: 'weekly', days: ['monday', 'thursday'], start: '2026-12-07T09:00', timeZone: 'Europe/Berlin', count: 20 },
        posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>Tips of the week: herald.example/tips</p>' }] }],
      },
      {
        repeat: { frequency: 'rrule', rrule: 'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1', start: '2026-12-07T08:30', timeZone: 'Australia/Sydney' },
        posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>Our monthly newsletter is out</p>' }] }],
      },
    ],
  });

export const updateSeriesBody = z
  .object({
    repeat: repeatSchema.optional().describe('A new rule, replacing the current one from now on.'),
    posts: createSeriesBody.shape.posts.optional().describe('What every future occurrence publishes, replacing the current items.'),
    tags: tagsSchema.optional(),
    shortLink: z.boolean().optional(),
  })
  .meta({
    id: 'UpdateSeries',
    examples: [{ posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>New text from the next occurrence on</p>' }] }] }],
  });

export const seriesSchema = z
  .object({
    id: z.string(),
    repeat: repeatSchema,
    rule: z.string().describe('The RFC 5545 RRULE the series runs (from `repeat`).'),
    posts: createSeriesBody.shape.posts,
    tags: z.array(z.string()),
    shortLink: z.boolean(),
    nextOccurrence: z.string().nullable().describe('The next occurrence after now, ISO 8601 UTC; null once the series has ended.'),
    writtenUntil: z
      .string()
      .describe(
        `Occurrences up to this instant are posts in the calendar (GET /posts); later ones are written as they come within ${SERIES_HORIZON_DAYS} days.`,
      ),
    skipped: count().describe(
      `Occurrences that were never posts because their time had passed by more than ${MISSED_WINDOW_MINUTES} minutes when the server reached them (an outage). An occurrence already in the calendar that is reached that late is not published either: it goes to ERROR with \`errorKind: "skipped"\`.`,
    ),
    ended: z.boolean().describe('True once the rule has no occurrence left.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Series' });

export const seriesListSchema = z.object({ series: z.array(seriesSchema) }).meta({ id: 'SeriesList' });
export const seriesIdParams = z.object({ id: z.string().min(1).max(100) });
export const deletedSeriesSchema = z
  .object({
    id: z.string(),
    removed: z.array(z.string()).describe('The future occurrences removed from the calendar (post ids).'),
  })
  .meta({ id: 'DeletedSeries' });

export type CreateSeriesInput = z.infer<typeof createSeriesBody>;
export type UpdateSeriesInput = z.infer<typeof updateSeriesBody>;
export type SeriesRecord = z.infer<typeof seriesSchema>;
