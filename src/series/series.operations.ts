import { authErrors, conflictErrors, notFoundErrors } from '../http/common.schema.ts';
import { HTML_CONTENT, listSummary, operation, plural, READ_ONLY, writes } from '../operations/operation.ts';
import {
  createSeriesBody,
  deletedSeriesSchema,
  MISSED_WINDOW_MINUTES,
  SERIES_HORIZON_DAYS,
  seriesIdParams,
  seriesListSchema,
  seriesSchema,
  updateSeriesBody,
  type SeriesRecord,
} from './series.schema.ts';

/** How a series behaves, for the REST descriptions and the tools alike. */
const RULES = `Occurrences are anchored to the rule, in its time zone: a late or failed occurrence never moves the others, and a daylight-saving change keeps the local time. Each occurrence is a post of its own (its own id, release id and statistics) written up to ${SERIES_HORIZON_DAYS} days ahead, so GET /posts shows them; each post names its series in \`series\`. An occurrence reached more than ${MISSED_WINDOW_MINUTES} minutes after its time (the server was down) is not published late: it is skipped (ERROR with \`errorKind: "skipped"\`, or counted in the series' \`skipped\` when it was never written). Edit or delete one occurrence with PATCH or DELETE /posts/{id}: only it changes.`;

const describeSeries = (s: SeriesRecord) =>
  `Series ${s.id} (${s.rule} in ${s.repeat.timeZone}): ${s.ended ? 'ended' : `next ${s.nextOccurrence}`}; ${plural(s.posts.length, 'channel')}; ${s.skipped} skipped.`;

export const createSeries = operation({
  name: 'create_series',
  scope: 'posts:publish',
  body: createSeriesBody,
  idempotencyKey: true,
  call: (services, access, { idempotencyKey, ...input }) => services.series.create(access, input, idempotencyKey),
  rest: {
    method: 'POST',
    url: '/series',
    tags: ['Series'],
    summary: 'Create a recurring post',
    description: `A composition (the items of POST /posts, checked the same way) published at every occurrence of \`repeat\`: daily, weekly on chosen days, monthly, or an RFC 5545 RRULE, in a time zone, until \`count\` occurrences or \`until\`. Occurrences after now are written; a rule with none answers 400 \`series_empty\`. Send \`Idempotency-Key\` to make a retry safe: the same key and body answer the same series (as it is then) and create none. ${RULES}`,
    response: seriesSchema,
    status: 201,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Create a recurring post',
    description: `Publishes the same post (one item per channel, as create_post) at every occurrence of a rule: \`repeat.frequency\` daily, weekly (with \`days\`), monthly (with \`monthDay\`) or rrule (an RFC 5545 RRULE in \`repeat.rrule\`), from \`repeat.start\` (local time, no zone) in \`repeat.timeZone\`, ending after \`count\` or at \`until\`. ${HTML_CONTENT} ${RULES}`,
    annotations: writes({ openWorld: true }),
    output: seriesSchema,
    summary: describeSeries,
  },
});

export const listSeries = operation({
  name: 'list_series',
  scope: 'posts:read',
  call: (services, access) => services.series.list(access),
  rest: {
    method: 'GET',
    url: '/series',
    tags: ['Series'],
    summary: 'List recurring posts',
    description:
      'The live series of the workspace, newest first (at most 500). A key limited to certain channels sees the series whose every channel it may use.',
    response: seriesListSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'List recurring posts',
    description: 'The recurring series of the workspace with their rule, next occurrence and how many occurrences were skipped.',
    annotations: READ_ONLY,
    output: seriesListSchema,
    summary: (o) => listSummary(o.series, 'series', describeSeries, '', ' '),
  },
});

export const getSeries = operation({
  name: 'get_series',
  scope: 'posts:read',
  params: seriesIdParams,
  call: (services, access, { id }) => services.series.get(access, id),
  rest: {
    method: 'GET',
    url: '/series/:id',
    tags: ['Series'],
    summary: 'Read a recurring post',
    description: `The series' rule, what it publishes, its next occurrence and how far its occurrences are written as posts. ${RULES}`,
    response: seriesSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Read a recurring post',
    description: 'One series: its rule, what it publishes, its next occurrence, how many occurrences were skipped.',
    annotations: READ_ONLY,
    output: seriesSchema,
    summary: describeSeries,
  },
});

export const updateSeries = operation({
  name: 'update_series',
  scope: 'posts:publish',
  params: seriesIdParams,
  body: updateSeriesBody,
  call: (services, access, { id, ...input }) => services.series.update(access, id, input),
  rest: {
    method: 'PATCH',
    url: '/series/:id',
    tags: ['Series'],
    summary: 'Edit a recurring post from now on',
    description:
      "Each field given replaces the series'. Its future occurrences not yet published are written again from the new rule and composition; occurrences already published or due before now stay, and so do those edited or deleted on their own (PATCH or DELETE /posts/{id}). A change that races another answers 409 `series_changed`.",
    response: seriesSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Edit a recurring post',
    description:
      'Changes the rule (`repeat`), the items (`posts`), `tags` or `shortLink` of a series from now on: future occurrences are rewritten, past and published ones stay, and occurrences edited on their own keep their edit.',
    annotations: writes({ destructive: true, idempotent: true, openWorld: true }),
    output: seriesSchema,
    summary: describeSeries,
  },
});

export const deleteSeries = operation({
  name: 'delete_series',
  scope: 'posts:publish',
  params: seriesIdParams,
  call: (services, access, { id }) => services.series.delete(access, id),
  rest: {
    method: 'DELETE',
    url: '/series/:id',
    tags: ['Series'],
    summary: 'Stop a recurring post',
    description:
      'The series stops: its future occurrences not yet published are removed from the calendar (`removed`); published ones stay, on the platform and in the calendar. An occurrence being published at that moment goes out.',
    response: deletedSeriesSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Stop a recurring post',
    description: 'Deletes a series: no further occurrence is published; future occurrences are removed, published ones stay.',
    annotations: writes({ destructive: true, idempotent: true }),
    output: deletedSeriesSchema,
    summary: (o) => `Series ${o.id} stopped; ${plural(o.removed.length, 'future occurrence')} removed.`,
  },
});
