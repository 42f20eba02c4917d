import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { Db, Executor } from '../db/database.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { NotFoundError } from '../errors.ts';
import { waitWhileBusy, type Activity } from '../lib/activity.ts';
import type { Clock } from '../lib/clock.ts';
import { randomToken } from '../lib/ids.ts';
import { parseJsonOr } from '../lib/json.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { MetricsPermissionError, type Metrics, type MetricsReading, type ProviderMetrics } from '../providers/metrics.ts';
import type { PlatformApps } from '../providers/platform-apps.ts';
import { ProviderError, type ProviderContext } from '../providers/provider.ts';
import { getProvider, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import * as repo from './analytics.repository.ts';
import type { AnalyticsPostsTable } from './analytics.table.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * When a published part is next read, by its age: hourly in its first day, every 6 hours in its
 * first week, daily until 30 days, then never (null). With snapshots written only when the
 * numbers change, a part has at most about 72 of them from the cycle.
 */
export function nextPostCollection(publishedAt: string, now: Date): string | null {
  const age = now.getTime() - Date.parse(publishedAt);
  const every = age < DAY ? HOUR : age < 7 * DAY ? 6 * HOUR : age < 30 * DAY ? DAY : null;
  return every === null ? null : new Date(now.getTime() + every).toISOString();
}

export const COLLECTION_HORIZON_MS = 30 * DAY;

export type CollectorOptions = {
  /** Channels one tick collects at most. */
  channelsPerTick: number;
  /** Parts of one channel read per tick at most (the rest wait for the next tick). */
  partsPerChannel: number;
  /** How long a worker holds a channel it collects. */
  leaseMs: number;
  /** How often a channel is looked at even when nothing of it is due (to follow newly published posts). */
  lookEveryMs: number;
  /** The wait after a failure the platform gave no wait for. */
  backoffMs: number;
  /** While publishing is busy, how often (real time) the cycle looks again for work of other processes (a publish ending here wakes it at once). */
  yieldPollMs: number;
  /**
   * While the API answers requests, how long (real time) the cycle waits for a pause in them
   * before each platform call at most: under constant load it goes on at about a call per this
   * long, a small share of the process's time.
   */
  requestYieldMaxMs: number;
  /**
   * How long the cycle holds the event loop at most while it stores readings before it lets other
   * work run (a turn of the loop): a request arriving meanwhile waits no longer than about this.
   */
  sliceMs: number;
};

export const DEFAULT_COLLECTOR_OPTIONS: CollectorOptions = {
  channelsPerTick: 20,
  partsPerChannel: 100,
  leaseMs: 5 * 60_000,
  lookEveryMs: HOUR,
  backoffMs: 15 * 60_000,
  yieldPollMs: 1000,
  requestYieldMaxMs: 1000,
  sliceMs: 0.5,
};

/** What one collection did: channels collected, platform calls made, parts and accounts read. */
export type CollectionReport = { channels: number; calls: number; parts: number; accounts: number; failures: number };

const METRICS_PROVIDERS = PROVIDER_IDENTIFIERS.filter((id) => getProvider(id).metrics !== undefined);

/**
 * Reads the platforms' numbers into snapshots (the internal path: nothing here checks a caller).
 * Every process that publishes runs `collectDue` on a timer; a channel is collected under a
 * lease in the database (one conditional update), so in scale-out mode two workers never read
 * the same channel, and a worker that dies leaves a lease that runs out.
 */
/** What reading the platforms' numbers needs; the statistics service hands the same on. */
export type CollectorDeps = {
  db: Db;
  clock: Clock;
  outbound: OutboundClient;
  platformApps: PlatformApps;
  channels: ChannelsService;
  notifications: NotificationsService;
};

export class AnalyticsCollector {
  readonly #options: CollectorOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<CollectionReport> | null = null;
  #publishing: Activity | null = null;
  #requests: Activity | null = null;
  #stopping = false;

  constructor(private readonly deps: CollectorDeps & { options?: Partial<CollectorOptions> }) {
    this.#options = { ...DEFAULT_COLLECTOR_OPTIONS, ...deps.options };
  }

  /**
   * Makes the cycle give way: before each platform call (and before taking a channel) it waits
   * while `publishing` is busy, however long, so a burst of due posts is published first; and
   * while the API of this process answers `requests`, up to `requestYieldMaxMs`. The on-demand
   * refresh of one channel (a person waiting for the answer) does not wait.
   */
  yieldTo(publishing: Activity | null, requests: Activity | null = null): void {
    this.#publishing = publishing;
    this.#requests = requests;
  }

  /** Waits while publishing, then the API, is busy (see `yieldTo`); true if it waited. */
  async #giveWay(): Promise<boolean> {
    const stopped = () => this.#stopping;
    const published = this.#publishing && (await waitWhileBusy(this.#publishing, { pollMs: this.#options.yieldPollMs, stopped }));
    const answered =
      this.#requests &&
      (await waitWhileBusy(this.#requests, { pollMs: this.#options.yieldPollMs, maxMs: this.#options.requestYieldMaxMs, stopped }));
    // The step goes on in a turn of its own, after whatever is waiting to run.
    await nextTurn();
    return Boolean(published || answered);
  }

  /** Collects on a timer: the next tick starts `intervalMs` after the last one ended. */
  start(intervalMs: number, report: (error: unknown) => void): void {
    this.#stopping = false;
    const schedule = () => {
      this.#timer = setTimeout(() => {
        this.collectDue()
          .catch(report)
          .finally(() => {
            if (this.#timer) schedule();
          });
      }, intervalMs);
      this.#timer.unref();
    };
    schedule();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => {});
  }

  /** One tick: follows new channels, then collects up to `channelsPerTick` due channels. A tick asked for while one runs shares it. */
  collectDue(): Promise<CollectionReport> {
    this.#running ??= this.#tick().finally(() => (this.#running = null));
    return this.#running;
  }

  async #tick(): Promise<CollectionReport> {
    const { db, clock } = this.deps;
    await this.followChannels();
    const total: CollectionReport = { channels: 0, calls: 0, parts: 0, accounts: 0, failures: 0 };
    const due = await repo.listDueChannels(db, clock.now().toISOString(), this.#options.channelsPerTick);
    for (const { channel_id } of due) {
      if (this.#stopping) break;
      await this.#giveWay();
      const report = await this.collect(channel_id, { due: true });
      if (!report) continue;
      total.channels += 1;
      total.calls += report.calls;
      total.parts += report.parts;
      total.accounts += report.accounts;
      total.failures += report.failures;
    }
    return total;
  }

  /** Starts following the channels whose platform reports numbers (a few hundred a tick). */
  async followChannels(): Promise<void> {
    const { db, clock } = this.deps;
    if (METRICS_PROVIDERS.length === 0) return;
    const now = clock.now().toISOString();
    const channels = await repo.listUnfollowedChannels(db, METRICS_PROVIDERS, 500);
    for (const [i, channel] of channels.entries()) {
      if (i > 0 && i % 20 === 0) await nextTurn();
      await this.#follow(channel.id, channel.workspace_id, now);
    }
  }

  /** Follows one channel now (a read of a channel not followed yet); false when its platform reports no numbers. */
  async follow(workspaceId: string, channelId: string, provider: string): Promise<boolean> {
    if (!getProvider(provider).metrics) return false;
    await this.#follow(channelId, workspaceId, this.deps.clock.now().toISOString());
    return true;
  }

  async #follow(channelId: string, workspaceId: string, now: string): Promise<void> {
    await repo.followChannel(this.deps.db, {
      channel_id: channelId,
      workspace_id: workspaceId,
      active: 1,
      next_collect_at: now,
      account_next_at: now,
      lease_until: null,
      lease_by: null,
      refreshed_at: null,
      metrics: null,
      metrics_updated_at: null,
      error: null,
      created_at: now,
    });
  }

  /**
   * Collects one channel under its lease: its newly published parts are followed, then its
   * account (when due, or `account`) and its due parts (or all parts of `postId`) are read.
   * Null when another worker holds it (or, with `due`, it is no longer due).
   */
  async collect(
    channelId: string,
    input: { due: boolean; account?: boolean; postId?: string | undefined },
  ): Promise<Omit<CollectionReport, 'channels'> | null> {
    const { db, clock } = this.deps;
    const by = randomToken(16);
    const start = clock.now();
    const leased = await repo.leaseChannel(db, channelId, {
      now: start.toISOString(),
      until: new Date(start.getTime() + this.#options.leaseMs).toISOString(),
      by,
      due: input.due,
    });
    if (!leased) return null;
    const report = { calls: 0, parts: 0, accounts: 0, failures: 0 };
    // In the cycle, each step of a channel runs in its own turn of the event loop, and readings are
    // stored a slice at a time: the cycle never holds a request up for long (see `sliceMs`). An
    // on-demand refresh (a person waiting for it) runs straight through.
    const turn = input.due ? () => nextTurn() : async () => {};
    const sliceMs = input.due ? this.#options.sliceMs : Number.POSITIVE_INFINITY;
    const state = (await repo.findFollowedChannel(db, channelId))!;
    let accountNext = state.account_next_at;
    const settle: Parameters<typeof repo.settleChannel>[3] = {};
    const lookAgain = () => new Date(clock.now().getTime() + this.#options.lookEveryMs).toISOString();
    /**
     * In the cycle, before each platform call: publishing goes first (see `yieldTo`). After a wait
     * the lease is extended; false when it ran out meanwhile and another worker took the channel.
     */
    const mayCall = async () => {
      if (!input.due || !(await this.#giveWay())) return true;
      const now = clock.now().getTime();
      return repo.extendLease(db, channelId, by, new Date(now + this.#options.leaseMs).toISOString());
    };
    // A refusal of the channel's credentials (on renewal or on the account's read) disables it; one of a permission for posts' numbers does not.
    let phase: 'account' | 'posts' = 'account';
    try {
      if (!(await mayCall())) return report;
      const opened = await this.#open(state.workspace_id, channelId);
      await turn();
      phase = 'posts';
      if (opened === 'deleted') {
        await repo.settleChannel(db, channelId, by, { active: 0, error: 'The channel was deleted; its numbers are no longer read.' });
        return report;
      }
      // A disabled channel is looked at again later: once it is reconnected, reading resumes.
      if (opened === 'disabled') {
        await repo.settleChannel(db, channelId, by, {
          next_collect_at: lookAgain(),
          error: 'The channel is disabled; its numbers are read again once it is reconnected.',
        });
        return report;
      }
      const { ctx, metrics } = opened;
      // A platform that reports nothing per post (Telegram) has no parts to follow.
      const readsPosts = metrics.reports.post.length > 0;
      if (readsPosts) await this.#followParts(channelId, start, turn);
      if (input.account || (input.due && Date.parse(state.account_next_at) <= start.getTime())) {
        // A platform that reports nothing of accounts (LinkedIn members) is not asked.
        if (metrics.reports.account.length > 0) {
          if (!(await mayCall())) return report;
          phase = 'account';
          const reading = await metrics.account(ctx);
          phase = 'posts';
          report.calls += 1;
          report.accounts += 1;
          await this.#storeAccount(channelId, reading, clock.now(), settle);
          await turn();
        }
        accountNext = new Date(clock.now().getTime() + DAY).toISOString();
      }
      const parts = !readsPosts
        ? []
        : await repo.listDueParts(db, channelId, {
            now: start.toISOString(),
            limit: this.#options.partsPerChannel,
            postId: input.postId,
          });
      for (let i = 0; i < parts.length; i += metrics.batchSize) {
        const batch = parts.slice(i, i + metrics.batchSize);
        if (!(await mayCall())) return report;
        const readings = await metrics.posts(
          ctx,
          batch.map((part) => ({ id: part.release_id, meta: parseJsonOr<Record<string, unknown>>(part.release_meta, {}) })),
        );
        report.calls += 1;
        await turn();
        // A transaction per slice: as many parts as `sliceMs` allows, then a turn for other work.
        const at = clock.now();
        for (let j = 0; j < batch.length;) {
          const begun = performance.now();
          await db.transaction().execute(async (trx) => {
            do await this.#storePart(trx, batch[j]!, readings.get(batch[j]!.release_id), at);
            while (++j < batch.length && performance.now() - begun < sliceMs);
          });
          await turn();
        }
        report.parts += batch.length;
      }
      settle.error = null;
    } catch (error) {
      if (!(error instanceof ProviderError)) {
        await repo.settleChannel(db, channelId, by, { next_collect_at: new Date(start.getTime() + this.#options.backoffMs).toISOString() });
        throw error;
      }
      report.failures += 1;
      settle.error = error.message;
      if (error.kind === 'auth' && phase === 'account' && !(error instanceof MetricsPermissionError)) {
        // The credentials publishing uses were refused: the channel needs reconnecting, as when a publish is refused.
        await this.#disconnected(state.workspace_id, channelId, error.message);
        await repo.settleChannel(db, channelId, by, { ...settle, next_collect_at: lookAgain() });
        return report;
      }
      if (error.kind === 'auth') {
        // Reading posts' numbers needs a permission the channel lacks; publishing is not affected.
        settle.error = `Reading posts' numbers was refused (${error.message}); reconnect the channel to grant Herald the permission to read them.`;
        await repo.settleChannel(db, channelId, by, { ...settle, next_collect_at: new Date(clock.now().getTime() + DAY).toISOString() });
        return report;
      }
      // Rate limited or failing: nothing of the channel is read before the platform's wait (or the backoff).
      const wait = Math.max(error.options.retryAfterMs ?? this.#options.backoffMs, 1000);
      await repo.settleChannel(db, channelId, by, {
        ...settle,
        account_next_at: accountNext,
        next_collect_at: new Date(clock.now().getTime() + wait).toISOString(),
      });
      return report;
    }
    const partsNext = await repo.nextPartDue(db, channelId);
    const next = [accountNext, lookAgain(), ...(partsNext ? [partsNext] : [])].sort()[0]!;
    await repo.settleChannel(db, channelId, by, { ...settle, account_next_at: accountNext, next_collect_at: next });
    return report;
  }

  async #disconnected(workspaceId: string, channelId: string, why: string): Promise<void> {
    if (!(await this.deps.channels.disable(channelId, 'needs_reconnect'))) return;
    await this.deps.notifications.notify(workspaceId, {
      kind: 'channel_disconnected',
      message: `The channel needs reconnecting: ${why}`,
      channelId,
    });
  }

  async #open(
    workspaceId: string,
    channelId: string,
  ): Promise<{ ctx: ProviderContext; metrics: ProviderMetrics } | 'deleted' | 'disabled'> {
    let opened;
    try {
      opened = await this.deps.channels.withConfig(workspaceId, channelId);
    } catch (error) {
      if (error instanceof NotFoundError) return 'deleted';
      throw error;
    }
    const { channel, config } = opened;
    const provider = getProvider(channel.provider);
    const metrics = provider.metrics;
    if (!metrics) return 'deleted';
    if (channel.disabled) return 'disabled';
    const { outbound, platformApps, channels } = this.deps;
    const channelRef = { id: channel.id, workspaceId, name: channel.name, profile: channel.profile };
    // Expiring credentials are renewed (and stored) before use, as the publisher does: once per channel across processes.
    return { metrics, ctx: await channels.renewals.live(provider, { channel: channelRef, config, outbound, platformApps }) };
  }

  /** Follows the channel's newly published parts (up to 500 a time), 50 rows a statement with a `turn` after each. */
  async #followParts(channelId: string, now: Date, turn: () => Promise<void>): Promise<void> {
    const since = new Date(now.getTime() - COLLECTION_HORIZON_MS).toISOString();
    const found = await repo.listUnfollowedParts(this.deps.db, channelId, since, 500);
    await turn();
    for (let i = 0; i < found.length; i += 50) {
      const rows = found.slice(i, i + 50);
      await repo.followParts(
        this.deps.db,
        rows.map((row) => ({
          post_id: row.post_id,
          part: row.idx,
          workspace_id: row.workspace_id,
          channel_id: channelId,
          release_id: row.release_id!,
          release_meta: row.release_meta,
          published_at: row.published_at ?? now.toISOString(),
          next_collect_at: now.toISOString(),
          metrics: null,
          raw: null,
          metrics_updated_at: null,
        })),
      );
      await turn();
    }
  }

  async #storeAccount(
    channelId: string,
    reading: MetricsReading,
    at: Date,
    settle: Parameters<typeof repo.settleChannel>[3],
  ): Promise<void> {
    const metrics = JSON.stringify(reading.metrics);
    settle.metrics = metrics;
    settle.metrics_updated_at = at.toISOString();
    await repo.upsertChannelSnapshot(this.deps.db, {
      channel_id: channelId,
      day: at.toISOString().slice(0, 10),
      collected_at: at.toISOString(),
      metrics,
    });
  }

  /** Stores a part's reading (a snapshot only when the numbers changed) and when it is next read. */
  async #storePart(db: Executor, part: AnalyticsPostsTable, reading: MetricsReading | undefined, at: Date): Promise<void> {
    const next = nextPostCollection(part.published_at, at);
    if (!reading) return void (await repo.setPartNextCollection(db, part.post_id, part.part, next));
    const metrics = JSON.stringify(sortedMetrics(reading.metrics));
    if (metrics !== part.metrics)
      await repo.insertPostSnapshot(db, { post_id: part.post_id, part: part.part, collected_at: at.toISOString(), metrics });
    await repo.storePartReading(db, {
      post_id: part.post_id,
      part: part.part,
      next_collect_at: next,
      metrics,
      raw: JSON.stringify(reading.raw),
      metrics_updated_at: at.toISOString(),
    });
  }
}

/** The same numbers always serialise the same way, so an unchanged reading is recognised (names in code-unit order: no locale at work for every part). */
function sortedMetrics(metrics: Metrics): Metrics {
  return Object.fromEntries(Object.entries(metrics).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
