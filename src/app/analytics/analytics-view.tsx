import { useEffect, useMemo, useState } from 'preact/hooks';
import type { components } from '../../client/api-types.ts';
import { api, type Channel } from '../api.ts';
import type { Viewer } from '../roles.ts';
import { Banner, type Message } from '../shared/banner.tsx';
import { messageOf } from '../shared/format.ts';
import { Chart, type Point } from './chart.tsx';

type Summary = components['schemas']['AnalyticsSummary'];
type ChannelNumbers = components['schemas']['ChannelAnalytics'];
type Metric = ChannelNumbers['supported']['post'][number];

const RANGES = [
  { days: 7, label: 'Last 7 days' },
  { days: 30, label: 'Last 30 days' },
  { days: 90, label: 'Last 90 days' },
  { days: 365, label: 'Last year' },
];
const METRICS: Metric[] = [
  'likes',
  'impressions',
  'views',
  'reach',
  'reposts',
  'replies',
  'shares',
  'clicks',
  'saves',
  'bookmarks',
  'followers',
];
const DAY = 24 * 60 * 60_000;

function words(metric: string): string {
  const text = metric.replace(/_/g, ' ');
  return text[0]!.toUpperCase() + text.slice(1);
}

/** Every UTC day of the window, so days without posts show as zero rather than vanish from the line. */
function days(start: Date, end: Date): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()); t < end.getTime(); t += DAY) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/** The workspace's numbers over a chosen range (per channel, top posts), and one channel's numbers per day. */
export default function AnalyticsView(_: { viewer: Viewer }) {
  const [rangeDays, setRangeDays] = useState(30);
  const [metric, setMetric] = useState<Metric>('likes');
  const [channelId, setChannelId] = useState('');
  const [channels, setChannels] = useState<Channel[]>([]);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [numbers, setNumbers] = useState<ChannelNumbers | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const range = useMemo(() => {
    // The last `rangeDays` UTC days, today's included.
    const end = new Date();
    const today = Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate());
    return { start: new Date(today - (rangeDays - 1) * DAY), end };
  }, [rangeDays]);
  const names = useMemo(() => new Map(channels.map((c) => [c.id, c.name])), [channels]);

  useEffect(() => {
    api('get', '/integrations').then(setChannels, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  }, []);
  useEffect(() => {
    setSummary(null);
    api('get', '/analytics/summary', {
      query: { startDate: range.start.toISOString(), endDate: range.end.toISOString(), metric, limit: '10' },
    }).then(setSummary, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  }, [range, metric]);
  useEffect(() => {
    setNumbers(null);
    if (!channelId) return;
    api('get', '/analytics/channels/{id}', {
      params: { id: channelId },
      query: { startDate: range.start.toISOString(), endDate: range.end.toISOString() },
    }).then(setNumbers, (error: unknown) => setMessage({ text: messageOf(error), bad: true }));
  }, [range, channelId]);

  const perChannel: Point[] = (summary?.channels ?? []).map((c) => ({
    label: names.get(c.integration) ?? c.integration,
    value: c.metrics[metric] ?? 0,
  }));
  const daily: Point[] = useMemo(() => {
    if (!numbers) return [];
    const byDay = new Map(numbers.daily.map((d) => [d.date, d.metrics[metric] ?? 0]));
    const account = new Map(numbers.accountHistory.map((d) => [d.date, d.metrics[metric]]));
    const fromAccount = numbers.supported.account.includes(metric) && !numbers.supported.post.includes(metric);
    return days(range.start, range.end).map((day) => ({
      label: day.slice(5),
      value: (fromAccount ? account.get(day) : byDay.get(day)) ?? 0,
    }));
  }, [numbers, metric, range]);

  return (
    <section class="analytics-view" aria-labelledby="analytics-title">
      <h1 id="analytics-title">Analytics</h1>
      <div class="toolbar">
        <label>
          Range
          <select value={String(rangeDays)} onChange={(e) => setRangeDays(Number((e.target as HTMLSelectElement).value))}>
            {RANGES.map((r) => (
              <option value={String(r.days)}>{r.label}</option>
            ))}
          </select>
        </label>
        <label>
          Metric
          <select value={metric} onChange={(e) => setMetric((e.target as HTMLSelectElement).value as Metric)}>
            {METRICS.map((m) => (
              <option value={m}>{words(m)}</option>
            ))}
          </select>
        </label>
        <label>
          Channel
          <select value={channelId} onChange={(e) => setChannelId((e.target as HTMLSelectElement).value)}>
            <option value="">The whole workspace</option>
            {channels.map((c) => (
              <option value={c.id}>{c.name}</option>
            ))}
          </select>
        </label>
      </div>
      <Banner message={message} />
      {summary === null ? (
        <p class="muted">Loading the numbers…</p>
      ) : (
        <>
          <ul class="totals" aria-label="Totals">
            <li>
              <strong>{summary.posts.toLocaleString()}</strong> posts published with numbers
            </li>
            {Object.entries(summary.totals).map(([name, value]) => (
              <li>
                <strong>{value.toLocaleString()}</strong> {words(name).toLowerCase()}
              </li>
            ))}
          </ul>
          {channelId ? (
            numbers === null ? (
              <p class="muted">Loading the channel's numbers…</p>
            ) : (
              <>
                {!numbers.collecting && (
                  <p class="muted">Herald does not read numbers for this channel{numbers.error ? `: ${numbers.error}` : '.'}</p>
                )}
                <Chart kind="line" title={`${words(metric)} per day on ${names.get(channelId) ?? 'the channel'}`} points={daily} />
              </>
            )
          ) : (
            <Chart kind="bars" title={`${words(metric)} per channel`} points={perChannel} />
          )}
          <h2>Top posts by {words(metric).toLowerCase()}</h2>
          {summary.top.length === 0 ? (
            <p class="muted">No published post with numbers in this range.</p>
          ) : (
            <table class="top-posts">
              <thead>
                <tr>
                  <th scope="col">Published</th>
                  <th scope="col">Channel</th>
                  <th scope="col">{words(metric)}</th>
                  <th scope="col">Post</th>
                </tr>
              </thead>
              <tbody>
                {summary.top.map((t) => (
                  <tr>
                    <td>{new Date(t.publishedAt).toLocaleDateString(undefined, { dateStyle: 'medium' })}</td>
                    <td>{names.get(t.integration) ?? t.integration}</td>
                    <td>{t.value.toLocaleString()}</td>
                    <td>
                      <a href={`/app/posts/${encodeURIComponent(t.postId)}`}>Open</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
