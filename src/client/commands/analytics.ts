import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import type { Api } from '../http.ts';
import { fields, show, table } from '../output.ts';
import { act, examples, integer, seg } from '../program.ts';
import { oneChannel } from './channels.ts';

type S = components['schemas'];
type Series = S['AnalyticsSeries'];
type Metrics = S['Metrics'];

const DAY = 86_400_000;
const BARS = '▁▂▃▄▅▆▇█';

/** A series as a line of bars, the highest value the tallest. */
export function sparkline(values: readonly number[]): string {
  if (values.length === 0) return '';
  const max = Math.max(...values);
  const min = Math.min(...values);
  return values
    .map((v) => BARS[max === min ? (max === 0 ? 0 : BARS.length - 1) : Math.round(((v - min) / (max - min)) * (BARS.length - 1))])
    .join('');
}

const change = (pct: number) => `${pct > 0 ? '+' : ''}${pct}%`;
const metricRows = (metrics: Metrics) => Object.entries(metrics).map(([name, value]) => [name, value]);

function seriesTable(series: Series): string {
  return table(
    ['METRIC', 'LATEST', 'CHANGE', 'TREND'],
    series.map((s) => [s.label, s.data.at(-1)?.total ?? '', change(s.percentageChange), sparkline(s.data.map((d) => d.total))]),
    'No numbers yet.',
  );
}

async function channelSeries(api: Api, channel: string, days: number, refresh: boolean) {
  const { id } = await oneChannel(api, channel);
  return api.get<Series>(`/analytics/${seg(id)}`, { date: String(days), ...(refresh && { refresh: 'true' }) });
}

export function register(program: Command): void {
  const analytics = examples(program.command('analytics').description("the platforms' numbers for posts and channels"), [
    'herald analytics summary --days 30',
    'herald analytics channel @acme --days 7',
    'herald analytics post p_123 --refresh',
  ]);
  examples(
    analytics
      .command('post <id>')
      .description("a post's numbers (and its comments'), with their trend")
      .option('--refresh', 'read the platform first (at most once per channel every 5 minutes)')
      .action(
        act(async ({ out, opts, api }, id: string) => {
          const answer = await api().get<S['PostAnalytics']>(`/analytics/posts/${seg(id)}`, opts.refresh ? { refresh: 'true' } : {});
          show(out, answer, () => [
            fields([
              ['post', answer.postId],
              ['channel', `${answer.integration} (${answer.identifier})`],
              ['read', answer.metricsUpdatedAt ?? (answer.published ? 'not yet' : 'not published yet')],
            ]),
            table(
              ['PART', 'METRIC', 'VALUE', 'TREND'],
              answer.parts.flatMap((part) =>
                Object.entries(part.part === 0 ? answer.metrics : part.metrics).map(([name, value]) => [
                  part.part === 0 ? 'post' : `comment ${part.part}`,
                  name,
                  value,
                  sparkline(part.history.map((h) => (h.metrics as Record<string, number>)[name] ?? 0)),
                ]),
              ),
              'No numbers yet.',
            ),
          ]);
        }),
      ),
    ['herald analytics post p_123', 'herald analytics post p_123 --refresh --json'],
  );
  examples(
    analytics
      .command('channel <channel>')
      .description('a channel: one series per metric over the last days, against the days before; the channel by ID, name or @handle')
      .option('--days <n>', 'how many days back (default 7)', integer('--days', 1, 365))
      .option('--refresh', 'read the platform first (at most once per channel every 5 minutes)')
      .action(
        act(async ({ out, opts, api }, channel: string) => {
          const series = await channelSeries(api(), channel, (opts.days as number | undefined) ?? 7, Boolean(opts.refresh));
          show(out, series, () => seriesTable(series));
        }),
      ),
    ['herald analytics channel ch_123', 'herald analytics channel @acme --days 30 --json'],
  );
  examples(
    analytics
      .command('summary')
      .description('the posts published in the last days: totals, per channel, and the top posts')
      .option('--days <n>', 'how many days back (default 30)', integer('--days', 1, 365))
      .option('--metric <name>', 'the metric top posts are ranked by (default likes)')
      .option('--limit <n>', 'top posts shown (1 to 100, default 10)', integer('--limit', 1, 100))
      .action(
        act(async ({ out, opts, api }) => {
          const now = Date.now();
          const summary = await api().get<S['AnalyticsSummary']>('/analytics/summary', {
            startDate: new Date(now - ((opts.days as number | undefined) ?? 30) * DAY).toISOString(),
            endDate: new Date(now).toISOString(),
            metric: opts.metric as string | undefined,
            limit: opts.limit === undefined ? undefined : String(opts.limit),
          });
          show(out, summary, () => [
            `${summary.posts} posts from ${summary.startDate} to ${summary.endDate}`,
            table(['METRIC', 'TOTAL'], metricRows(summary.totals), 'No numbers yet.'),
            table(
              ['CHANNEL', 'POSTS', 'NUMBERS'],
              summary.channels.map((c) => [
                c.integration,
                c.posts,
                metricRows(c.metrics)
                  .map(([n, v]) => `${n} ${v}`)
                  .join(', '),
              ]),
              'No channels.',
            ),
            table(
              ['TOP POST', 'CHANNEL', 'PUBLISHED', 'VALUE'],
              summary.top.map((p) => [p.postId, p.integration, p.publishedAt, p.value]),
              'No posts.',
            ),
          ]);
        }),
      ),
    ['herald analytics summary', 'herald analytics summary --days 7 --metric reposts --limit 5 --json'],
  );
}
