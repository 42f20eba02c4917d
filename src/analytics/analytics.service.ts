import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import { NotFoundError } from '../errors.ts';
import { dateWindow } from '../lib/date-window.ts';
import { parseJsonOr } from '../lib/json.ts';
import { findPost } from '../posts/posts.repository.ts';
import type { MetricName, Metrics } from '../providers/metrics.ts';
import { getProvider } from '../providers/registry.ts';
import { AnalyticsCollector, type CollectorDeps, type CollectorOptions } from './analytics.collector.ts';
import * as repo from './analytics.repository.ts';

/** How often one channel may be read on demand (`refresh=true`). */
export const REFRESH_INTERVAL_MS = 5 * 60_000;
const DAY = 86_400_000;

const metricsOf = (text: string | null | undefined): Metrics => parseJsonOr<Metrics>(text ?? null, {});
const dayOf = (instant: string) => instant.slice(0, 10);

function addInto(sum: Metrics, metrics: Metrics): void {
  for (const [name, value] of Object.entries(metrics) as Array<[MetricName, number]>) sum[name] = (sum[name] ?? 0) + value;
}

/** This period against the one before, in percent (two decimals): 0 when both are 0, 100 when only this one has any. */
export function percentageChange(current: number, previous: number): number {
  if (previous === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - previous) / previous) * 10_000) / 100;
}

/** The UTC days from `first` to `last`, inclusive (YYYY-MM-DD). */
function days(first: string, last: string): string[] {
  const out: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= Date.parse(`${last}T00:00:00Z`); at += DAY)
    out.push(new Date(at).toISOString().slice(0, 10));
  return out;
}

type PublishedRow = Awaited<ReturnType<typeof repo.listPublishedPosts>>[number];

/**
 * Statistics for callers (REST, MCP, the CLI): every method checks `analytics:read` and the
 * key's channel limit; another workspace's (or a hidden channel's) post or channel is 404.
 * Numbers come from the stored snapshots; `refresh` reads the platform first, within a
 * per-channel limit. The collection itself is `collector` (the internal path).
 */
export class AnalyticsService {
  readonly collector: AnalyticsCollector;

  constructor(private readonly deps: CollectorDeps & { collectorOptions?: Partial<CollectorOptions> }) {
    this.collector = new AnalyticsCollector({ ...deps, options: deps.collectorOptions });
  }

  /** A post's numbers: the post and each published comment, latest and over time. */
  async post(access: WorkspaceAccess, postId: string, refresh: boolean) {
    requireScope(access, 'analytics:read');
    const { db } = this.deps;
    const post = await findPost(db, access.workspace.id, postId);
    if (!post || !mayUseChannel(access, post.channel_id)) throw new NotFoundError(`No post ${postId} in this workspace.`);
    const refreshed = post.release_id !== null && refresh && (await this.#refresh(access.workspace.id, post.channel_id, { postId }));
    const [parts, snapshots, clicks] = await Promise.all([
      repo.listPostParts(db, postId),
      repo.listPostSnapshots(db, postId),
      this.#clicks([postId]),
    ]);
    const shaped = parts.map((part) => ({
      part: part.part,
      releaseId: part.release_id,
      metricsUpdatedAt: part.metrics_updated_at,
      metrics: part.part === 0 ? withClicks(metricsOf(part.metrics), clicks.get(postId)) : metricsOf(part.metrics),
      history: snapshots.filter((s) => s.part === part.part).map((s) => ({ at: s.collected_at, metrics: metricsOf(s.metrics) })),
    }));
    const first = shaped.find((part) => part.part === 0);
    return {
      postId,
      integration: post.channel_id,
      identifier: await this.#providerOf(access.workspace.id, post.channel_id),
      published: post.release_id !== null,
      metricsUpdatedAt: first?.metricsUpdatedAt ?? null,
      metrics: first?.metrics ?? withClicks({}, clicks.get(postId)),
      refreshed,
      parts: shaped,
    };
  }

  /** A channel's account numbers over a window, and the daily sums of its posts' numbers. */
  channel(access: WorkspaceAccess, channelId: string, query: { startDate: string; endDate: string; refresh: boolean }) {
    requireScope(access, 'analytics:read');
    return this.#channel(access, channelId, dateWindow(query), query.refresh);
  }

  /** The channel's numbers over a window already checked (the series routes look up to two years back: two periods of up to 365 days). */
  async #channel(access: WorkspaceAccess, channelId: string, range: { start: string; end: string }, refresh: boolean) {
    const channel = await this.#visibleChannel(access, channelId);
    const metrics = getProvider(channel.provider).metrics;
    // A channel connected since the last tick is followed at once (a write only the first time).
    if (metrics && !channel.deletedAt && !(await repo.findFollowedChannel(this.deps.db, channelId)))
      await this.collector.follow(access.workspace.id, channelId, channel.provider);
    const refreshed = refresh && metrics !== undefined && (await this.#refresh(access.workspace.id, channelId, { account: true }));
    const { db } = this.deps;
    const [state, snapshots, posts] = await Promise.all([
      repo.findFollowedChannel(db, channelId),
      repo.listChannelSnapshots(db, channelId, dayOf(range.start), dayOf(range.end)),
      repo.listPublishedPosts(db, access.workspace.id, { ...range, channelIds: [channelId] }),
    ]);
    const clicks = await this.#clicks(posts.map((p) => p.post_id));
    const daily = new Map<string, { date: string; posts: number; metrics: Metrics }>();
    for (const post of posts) {
      const date = dayOf(post.published_at);
      let day = daily.get(date);
      if (!day) daily.set(date, (day = { date, posts: 0, metrics: {} }));
      day.posts += 1;
      addInto(day.metrics, withClicks(metricsOf(post.metrics), clicks.get(post.post_id)));
    }
    return {
      integration: channelId,
      identifier: channel.provider,
      supported: { post: [...(metrics?.reports.post ?? [])], account: [...(metrics?.reports.account ?? [])] },
      collecting: state?.active === 1,
      error: state?.error ?? null,
      metricsUpdatedAt: state?.metrics_updated_at ?? null,
      refreshed,
      account: metricsOf(state?.metrics),
      accountHistory: snapshots.map((s) => ({ date: s.day, metrics: metricsOf(s.metrics) })),
      daily: [...daily.values()],
    };
  }

  /** The workspace's posts published in a window: totals, per channel, and the top posts by `metric`. */
  async summary(access: WorkspaceAccess, query: { startDate: string; endDate: string; metric: MetricName; limit: number }) {
    requireScope(access, 'analytics:read');
    const range = dateWindow(query);
    const posts = await this.#publishedWithClicks(access, range, access.channelIds);
    const totals: Metrics = {};
    const channels = new Map<string, { integration: string; posts: number; metrics: Metrics }>();
    for (const post of posts) {
      addInto(totals, post.metrics);
      let channel = channels.get(post.channel_id);
      if (!channel) channels.set(post.channel_id, (channel = { integration: post.channel_id, posts: 0, metrics: {} }));
      channel.posts += 1;
      addInto(channel.metrics, post.metrics);
    }
    const top = posts
      .filter((post) => post.metrics[query.metric] !== undefined)
      .sort((a, b) => b.metrics[query.metric]! - a.metrics[query.metric]! || a.published_at.localeCompare(b.published_at))
      .slice(0, query.limit)
      .map((post) => ({
        postId: post.post_id,
        integration: post.channel_id,
        publishedAt: post.published_at,
        value: post.metrics[query.metric]!,
        metrics: post.metrics,
      }));
    return { startDate: range.start, endDate: range.end, posts: posts.length, totals, channels: [...channels.values()], top };
  }

  /**
   * `GET /analytics/{channelId}?date=N`: a series per metric over the last N UTC days. Account
   * numbers (followers…) are levels: each day's last reading, compared at the ends of the two
   * periods. Post numbers are the daily sums of the posts published that day, compared as sums.
   */
  async compatChannel(access: WorkspaceAccess, channelId: string, query: { date: number; refresh: boolean }) {
    requireScope(access, 'analytics:read');
    const { current, previous } = this.#periods(query.date);
    const range = { start: `${previous[0]}T00:00:00.000Z`, end: `${current.at(-1)}T23:59:59.999Z` };
    const answer = await this.#channel(access, channelId, range, query.refresh);
    const series = [];
    for (const name of answer.supported.account) {
      const readings = answer.accountHistory.filter((h) => h.metrics[name] !== undefined);
      const inCurrent = readings.filter((h) => h.date >= current[0]!);
      const before = readings.filter((h) => h.date < current[0]!).at(-1) ?? inCurrent[0];
      const last = inCurrent.at(-1);
      series.push({
        label: name,
        percentageChange: percentageChange(last?.metrics[name] ?? 0, before?.metrics[name] ?? 0),
        data: inCurrent.map((h) => ({ total: h.metrics[name]!, date: h.date })),
      });
    }
    const byDay = new Map(answer.daily.map((d) => [d.date, d.metrics]));
    const postNames = new Set<MetricName>([
      ...answer.supported.post,
      ...answer.daily.flatMap((d) => Object.keys(d.metrics) as MetricName[]),
    ]);
    for (const name of postNames) {
      const sum = (list: string[]) => list.reduce((total, date) => total + (byDay.get(date)?.[name] ?? 0), 0);
      series.push({
        label: name,
        percentageChange: percentageChange(sum(current), sum(previous)),
        data: current.map((date) => ({ total: byDay.get(date)?.[name] ?? 0, date })),
      });
    }
    return series;
  }

  /** `GET /analytics/post/{postId}?date=N`: a series per metric (each day's last reading), or `{missing: true}` without a platform id. */
  async compatPost(access: WorkspaceAccess, postId: string, query: { date: number; refresh: boolean }) {
    const answer = await this.post(access, postId, query.refresh);
    if (!answer.published) return { missing: true as const };
    const { current } = this.#periods(query.date);
    const history = answer.parts.find((part) => part.part === 0)?.history ?? [];
    const names = new Set<MetricName>([
      ...history.flatMap((h) => Object.keys(h.metrics) as MetricName[]),
      ...(Object.keys(answer.metrics) as MetricName[]),
    ]);
    return [...names].map((name) => {
      const lastOfDay = new Map<string, number>();
      for (const h of history) if (h.metrics[name] !== undefined) lastOfDay.set(dayOf(h.at), h.metrics[name]!);
      if (name === 'clicks' && answer.metrics.clicks !== undefined && !history.some((h) => h.metrics.clicks !== undefined))
        lastOfDay.set(current.at(-1)!, answer.metrics.clicks);
      const readings = [...lastOfDay].sort(([a], [b]) => a.localeCompare(b));
      const inCurrent = readings.filter(([date]) => date >= current[0]!);
      const before = readings.filter(([date]) => date < current[0]!).at(-1)?.[1] ?? 0;
      return {
        label: name,
        percentageChange: percentageChange(inCurrent.at(-1)?.[1] ?? before, before),
        data: inCurrent.map(([date, total]) => ({ total, date })),
      };
    });
  }

  /** The last `n` UTC days up to today, and the `n` before them. */
  #periods(n: number): { current: string[]; previous: string[] } {
    const today = dayOf(this.deps.clock.now().toISOString());
    const first = dayOf(new Date(Date.parse(`${today}T00:00:00Z`) - (n - 1) * DAY).toISOString());
    const previousFirst = dayOf(new Date(Date.parse(`${first}T00:00:00Z`) - n * DAY).toISOString());
    const previousLast = dayOf(new Date(Date.parse(`${first}T00:00:00Z`) - DAY).toISOString());
    return { current: days(first, today), previous: days(previousFirst, previousLast) };
  }

  async #visibleChannel(access: WorkspaceAccess, channelId: string) {
    const channel = mayUseChannel(access, channelId) ? await this.deps.channels.getAnyState(access.workspace.id, channelId) : null;
    if (!channel) throw new NotFoundError(`No channel ${channelId} in this workspace.`);
    return channel;
  }

  async #providerOf(workspaceId: string, channelId: string): Promise<string> {
    return (await this.deps.channels.getAnyState(workspaceId, channelId))?.provider ?? 'unknown';
  }

  /** Reads the platform now when the channel's on-demand limit allows; true when it did. */
  async #refresh(workspaceId: string, channelId: string, what: { postId?: string; account?: boolean }): Promise<boolean> {
    const channel = await this.deps.channels.getAnyState(workspaceId, channelId);
    if (!channel || channel.deletedAt || !(await this.collector.follow(workspaceId, channelId, channel.provider))) return false;
    const now = this.deps.clock.now();
    const allowed = await repo.takeRefresh(
      this.deps.db,
      channelId,
      now.toISOString(),
      new Date(now.getTime() - REFRESH_INTERVAL_MS).toISOString(),
    );
    if (!allowed) return false;
    const report = await this.collector.collect(channelId, { due: false, ...what });
    return report !== null && report.failures === 0;
  }

  async #publishedWithClicks(access: WorkspaceAccess, range: { start: string; end: string }, channelIds: readonly string[] | null) {
    const rows = await repo.listPublishedPosts(this.deps.db, access.workspace.id, { ...range, channelIds });
    const clicks = await this.#clicks(rows.map((row) => row.post_id));
    return rows.map((row: PublishedRow) => ({ ...row, metrics: withClicks(metricsOf(row.metrics), clicks.get(row.post_id)) }));
  }

  /** Short-link clicks by post, read in slices (a statement's parameters are bounded). */
  async #clicks(postIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (let i = 0; i < postIds.length; i += 500)
      for (const [id, n] of await repo.shortLinkClicks(this.deps.db, postIds.slice(i, i + 500))) out.set(id, n);
    return out;
  }
}

/** The platform's clicks when it reports them; otherwise Herald's short-link clicks, when the post has short links. */
function withClicks(metrics: Metrics, shortLinkClicks: number | undefined): Metrics {
  if (metrics.clicks !== undefined || shortLinkClicks === undefined) return metrics;
  return { ...metrics, clicks: shortLinkClicks };
}
