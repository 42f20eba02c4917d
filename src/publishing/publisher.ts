import { ChangeSignal, type Activity } from '../lib/activity.ts';
import { waitOn } from '../lib/clock.ts';
import { parseJsonOr } from '../lib/json.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { describeMedia, toPublishMedia } from '../posts/media-lookup.ts';
import * as keys from '../posts/idempotency-keys.repository.ts';
import type { Claim, ClaimedChannel, DueClaim, PostTransitions } from '../posts/post-transitions.ts';
import * as engine from '../posts/post-claims.repository.ts';
import * as repo from '../posts/posts.repository.ts';
import { IDEMPOTENCY_RETENTION_MS, type PostsDeps } from '../posts/posts.service.ts';
import type { ErrorKind, PostPartsTable, PostsTable } from '../posts/posts.table.ts';
import { checkReadiness } from '../posts/readiness.ts';
import { ProviderError, type Provider, type PublishedRef } from '../providers/provider.ts';
import { getProvider } from '../providers/registry.ts';
import type { ShortLinksService } from '../short-links/short-links.service.ts';
import { DuePump } from './due-pump.ts';
import { MISSED_WINDOW_MINUTES } from '../series/series.schema.ts';
import type { SeriesService } from '../series/series.service.ts';
import type { Lane, PublishJob } from './job-queue.ts';

export type PublisherOptions = {
  /** Attempts per part before giving up on retryable failures. */
  maxAttempts: number;
  /** First retry delay; doubled each attempt (with jitter), capped at `maxBackoffMs`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** How long a claim holds without renewal: a part SENDING past its lease belongs to a worker that died. */
  leaseMs: number;
  /** How often a worker renews the lease of a call in flight (a third of the lease by default). */
  renewEveryMs: number;
  /**
   * How far ahead the queue holds work (no further than the queue's own horizon): the sweep
   * brings in posts as they come within it, and re-enqueues within it the jobs a queue lost.
   */
  horizonMs: number;
  /** Posts one sweep re-enqueues at most; the next sweep carries on from there. */
  sweepBudget: number;
  /** Posts read from the database at a time by the sweep (the event loop gets a turn between pages). */
  sweepPage: number;
};

/** Stale parts read per statement when recovering. */
export const RECOVERY_BATCH = 200;

export const DEFAULT_PUBLISHER_OPTIONS: PublisherOptions = {
  maxAttempts: 8,
  baseBackoffMs: 5_000,
  maxBackoffMs: 15 * 60_000,
  leaseMs: 5 * 60_000,
  renewEveryMs: 100_000,
  horizonMs: 2 * 60_000,
  sweepBudget: 5_000,
  sweepPage: 500,
};

/** What the worker needs: what the posts service has, plus short links, the outbound client and a log. */
export type PublisherDeps = Omit<PostsDeps, 'schedules'> & {
  shortLinks: ShortLinksService;
  /** Recurring series, whose occurrences each sweep writes ahead (see `SeriesService.writeAheadDue`). */
  series?: Pick<SeriesService, 'writeAheadDue'>;
  outbound: OutboundClient;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  options?: Partial<PublisherOptions>;
  /** Test seam: runs just before a claim (of a post; `null` for a lane's batch), to interleave an edit deterministically. */
  hooks?: { beforeClaim?(postId: string | null): Promise<void> };
};

/**
 * What one sweep did: posts brought in as they came within the horizon (`advanced`), posts
 * re-enqueued, and whether it reached the end of the due posts (or stopped at its budget).
 */
export type SweepReport = { recovered: number; advanced: number; enqueued: number; complete: boolean };

type Post = PostsTable;
type Part = PostPartsTable;
type Images = Array<{ id?: string; path: string }>;

function refOf(part: Part | undefined): PublishedRef | undefined {
  if (!part || part.state !== 'PUBLISHED' || part.release_id === null) return undefined;
  return { id: part.release_id, url: part.release_url ?? undefined, meta: parseJsonOr<Record<string, unknown>>(part.release_meta, {}) };
}

/** When part `idx` became due: stable across attempts (see PublishInput.dueAt). */
function dueAt(post: Post, parts: Part[], idx: number): string {
  const previous = parts.find((p) => Number(p.idx) === idx - 1);
  const current = parts.find((p) => Number(p.idx) === idx);
  if (idx === 0 || !previous?.published_at) return new Date(post.publish_at).toISOString();
  return new Date(Date.parse(previous.published_at) + Number(current?.delay_minutes ?? 0) * 60_000).toISOString();
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The publishing engine's worker side: the queue mechanics and the platform calls. The database
 * is the truth and every write to posts and parts is a move of `PostTransitions` (the process's
 * one, shared with the posts and channels services); a job only says "look at this post". Each step is claimed before anything external is called, by a conditional
 * update that also reads the post as claimed, so two workers never publish the same part and
 * what goes out is what was claimed. A part left SENDING by a worker that died is settled by `recover` as an unknown outcome
 * (retried only where the platform's writes are idempotent).
 */
export class Publisher {
  readonly #deps: PublisherDeps;
  readonly #options: PublisherOptions;
  readonly #transitions: PostTransitions;
  #sweepTimer: NodeJS.Timeout | null = null;
  #sweeping: Promise<SweepReport> | null = null;
  /** Where the next sweep carries on, when the last one stopped at its budget. */
  #sweepCursor: engine.DueCursor | null = null;
  #stopped = true;
  /** By lane: the pumps of the queue's wakes (see `DuePump`). */
  readonly #pumps = new Map<string, DuePump>();
  /** Up to when (ms since the epoch) the posts due have been brought into the queue; null before the first look. */
  #horizonEnd: number | null = null;
  /**
   * When the first post beyond `#horizonEnd` is due, as far as this process knows (the last look,
   * and the jobs its queue turned away since): a clock jump short of it has nothing to bring in.
   */
  #nextArrival = Number.NEGATIVE_INFINITY;
  /** The last bringing in of posts (see `advanceHorizon`), and the one asked for after it. */
  #advancing: Promise<number> = Promise.resolve(0);
  #advanceNext: Promise<number> | null = null;
  #advanceBusy = false;
  #unsubscribeJump: (() => void) | null = null;
  /** Publishes, and claims of a lane's due posts, under way in this process (see `activity`). */
  #active = 0;
  readonly #ended = new ChangeSignal();

  constructor(deps: PublisherDeps) {
    this.#deps = deps;
    const leaseMs = deps.options?.leaseMs ?? DEFAULT_PUBLISHER_OPTIONS.leaseMs;
    this.#options = { ...DEFAULT_PUBLISHER_OPTIONS, renewEveryMs: Math.floor(leaseMs / 3), ...deps.options };
    if (this.#options.renewEveryMs >= this.#options.leaseMs) throw new Error('The lease must be renewed more often than it lasts.');
    this.#transitions = deps.transitions;
  }

  get options(): PublisherOptions {
    return this.#options;
  }

  /**
   * Publishing's signal to work that must not delay it (the collection of numbers): busy while a
   * post has a step due that no worker has claimed (in any process), or while this process
   * claims or publishes. A post is counted from before its claim until its publish settles, so
   * there is no moment between the two when it is neither due nor under way.
   */
  readonly activity: Activity = {
    busy: async () => this.#active > 0 || (await engine.anyStepDue(this.#deps.db, this.#deps.clock.now().toISOString())),
    changed: (pollMs) => this.#ended.wait(pollMs),
  };

  /** Runs `work` counted as publishing under way (see `activity`). */
  async #counted<T>(work: () => Promise<T>): Promise<T> {
    this.#active += 1;
    try {
      return await work();
    } finally {
      this.#active -= 1;
      this.#ended.notify();
    }
  }

  /**
   * Starts taking jobs; settles orphaned parts and enqueues the pending posts due within the
   * horizon first (the later ones stay in the database until they come within it).
   */
  async start(options: { concurrency: number; sweepIntervalMs: number; exclusive: boolean }): Promise<void> {
    this.#stopped = false;
    this.#horizonEnd = null;
    this.#nextArrival = Number.NEGATIVE_INFINITY;
    await this.recover({ all: options.exclusive });
    await this.advanceHorizon();
    await this.#deps.queue.start(
      {
        post: (job) =>
          this.#counted(() => this.handle(job)).catch((error: unknown) =>
            this.#deps.log.error({ err: error, postId: job.postId }, 'publishing job failed; the sweep will pick it up again'),
          ),
        due: (lane, share) => this.#counted(() => this.#pump(lane).drain(share)),
        beyond: (runAt) => {
          this.#nextArrival = Math.min(this.#nextArrival, runAt.getTime());
        },
        idle: async () => {
          const advanced = await this.#advanced();
          return (await Promise.all([...this.#pumps.values()].map((pump) => pump.idle()))).every(Boolean) && advanced;
        },
      },
      { concurrency: options.concurrency },
    );
    // A test clock that jumps brings posts within the horizon at once, as the sweep does over time.
    this.#unsubscribeJump = this.#deps.clock.onJump?.(() => this.#onJump()) ?? null;
    if (options.sweepIntervalMs > 0) this.#scheduleSweep(options.sweepIntervalMs);
  }

  #onJump(): void {
    // Back in time: what the queue now turns away (beyond the new horizon) must be looked at again.
    const edge = this.#deps.clock.now().getTime() + this.#options.horizonMs;
    if (this.#horizonEnd !== null && this.#horizonEnd > edge) {
      this.#horizonEnd = edge;
      this.#nextArrival = Number.NEGATIVE_INFINITY;
    }
    if (edge >= this.#nextArrival) void this.advanceHorizon();
  }

  /**
   * Enqueues the posts that came within the horizon since the last look (at the first, every one
   * due within it, overdue ones included), a page at a time with a turn of the event loop
   * between pages. Its work is what became due within the horizon since, never what lies beyond.
   * Calls asked for while one runs share the next one.
   */
  advanceHorizon(): Promise<number> {
    if (this.#advanceNext) return this.#advanceNext;
    const next = this.#advancing.then(async () => {
      this.#advanceNext = null;
      this.#advanceBusy = true;
      try {
        return await this.#advanceOnce();
      } catch (error) {
        this.#deps.log.error({ err: error }, 'could not bring in the posts coming due; the next sweep tries again');
        // Nothing is known beyond the edge: the next clock jump looks again.
        this.#nextArrival = Number.NEGATIVE_INFINITY;
        return 0;
      } finally {
        this.#advanceBusy = false;
      }
    });
    this.#advancing = next;
    this.#advanceNext = next;
    return next;
  }

  async #advanceOnce(): Promise<number> {
    const until = this.#deps.clock.now().getTime() + this.#options.horizonMs;
    const from = this.#horizonEnd;
    if (from !== null && until <= from) return 0;
    // From the last edge on (the posts at the edge itself again: a duplicate is harmless).
    const cursor = from === null ? null : { nextRunAt: new Date(from).toISOString(), id: '' };
    // Turned away from now on (due beyond `until`): what the look below may miss.
    this.#nextArrival = Number.POSITIVE_INFINITY;
    const { enqueued } = await this.enqueuePending(new Date(until), { cursor, budget: Number.POSITIVE_INFINITY });
    const next = await engine.firstDueAfter(this.#deps.db, new Date(until).toISOString());
    if (next !== null) this.#nextArrival = Math.min(this.#nextArrival, Date.parse(next));
    this.#horizonEnd = Math.max(from ?? until, until);
    return enqueued;
  }

  /** Waits for the bringing in under way; true if none was. */
  async #advanced(): Promise<boolean> {
    const quiet = !this.#advanceBusy && this.#advanceNext === null;
    await this.#advancing;
    return quiet;
  }

  /** The next sweep starts an interval after the last one ended, so sweeps never overlap. */
  #scheduleSweep(intervalMs: number): void {
    if (this.#stopped) return;
    this.#sweepTimer = setTimeout(() => {
      this.sweep()
        .catch((error: unknown) => this.#deps.log.error({ err: error }, 'publishing sweep failed'))
        .finally(() => this.#scheduleSweep(intervalMs));
    }, intervalMs);
    this.#sweepTimer.unref();
  }

  /** Stops taking jobs; the publishes in flight and a sweep under way finish first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    this.#sweepTimer = null;
    this.#unsubscribeJump?.();
    this.#unsubscribeJump = null;
    await this.#sweeping?.catch(() => {});
    await this.#advancing;
    await this.#deps.queue.stop();
  }

  /**
   * Periodic: bring in the posts that came within the horizon (see `advanceHorizon`); and repair:
   * settle dead workers' parts, re-enqueue due work the queue lost (at most `sweepBudget` posts;
   * the next sweep carries on), drop old idempotency keys. A sweep asked for while one runs gets
   * that one's report.
   */
  sweep(): Promise<SweepReport> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = null;
    });
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<SweepReport> {
    await this.#deps.series
      ?.writeAheadDue()
      .catch((error: unknown) => this.#deps.log.error({ err: error }, 'could not write recurring posts ahead; the next sweep tries again'));
    const advanced = await this.advanceHorizon();
    const recovered = await this.recover({ all: false });
    await this.#unscheduleOnDeletedChannels();
    const state = { cursor: this.#sweepCursor, budget: this.#options.sweepBudget };
    const { enqueued, complete } = await this.enqueuePending(new Date(this.#deps.clock.now().getTime() + this.#options.horizonMs), state);
    this.#sweepCursor = complete ? null : state.cursor;
    await keys.purgeIdempotencyKeys(this.#deps.db, new Date(this.#deps.clock.now().getTime() - IDEMPOTENCY_RETENTION_MS).toISOString());
    return { recovered, advanced, enqueued, complete };
  }

  /**
   * Moves to draft the due posts of deleted channels (a deletion that raced their scheduling),
   * which no claim takes; a post's own job does the same when it finds one (see `#step`). At most
   * a page per sweep.
   */
  async #unscheduleOnDeletedChannels(): Promise<void> {
    const orphans = await engine.listDueOnDeletedChannels(this.#deps.db, this.#deps.clock.now().toISOString(), this.#options.sweepPage);
    for (const post of orphans) await this.#transitions.unschedule(post).catch(() => {});
  }

  /**
   * Enqueues posts with a next step due by `before`, a page at a time from `state.cursor`, at most
   * `state.budget`; `state.cursor` is left where it stopped. Duplicates are harmless.
   */
  async enqueuePending(
    before: Date,
    state: { cursor: engine.DueCursor | null; budget: number },
  ): Promise<{ enqueued: number; complete: boolean }> {
    const { db, queue } = this.#deps;
    const until = before.toISOString();
    let enqueued = 0;
    for (;;) {
      const limit = Math.min(this.#options.sweepPage, state.budget - enqueued);
      const page = await engine.listDuePosts(db, until, state.cursor, limit);
      await Promise.all(
        page.map((post) => queue.enqueue({ postId: post.id, runAt: new Date(post.next_run_at!), provider: post.provider })),
      );
      enqueued += page.length;
      if (page.length < limit) {
        state.cursor = null;
        return { enqueued, complete: true };
      }
      const last = page.at(-1)!;
      state.cursor = { nextRunAt: last.next_run_at!, id: last.id };
      if (enqueued >= state.budget) return { enqueued, complete: false };
      await yieldToEventLoop();
    }
  }

  /**
   * Settles parts left SENDING: with `all` (a single-process deployment at boot, when no other
   * worker can be mid-call) every one of them, otherwise those whose lease ran out.
   */
  async recover(options: { all: boolean }): Promise<number> {
    let settled = 0;
    let after: engine.StalePartPosition | null = null;
    // In bounded batches, yielding between them: after a crash under load there may be many.
    for (;;) {
      const { claims, next } = await this.#transitions.stale(
        { all: options.all, leaseMs: this.#options.leaseMs },
        { after, limit: RECOVERY_BATCH },
      );
      for (const claim of claims) {
        const channel = await this.#deps.channels.getAnyState(claim.workspaceId, claim.channelId).catch(() => null);
        const provider = channel ? getProvider(channel.provider) : null;
        const failure = new ProviderError(
          'unknown_outcome',
          'The worker publishing this stopped before the platform answered; the outcome is unknown.',
        );
        await this.#settleFailure(claim, provider, failure);
      }
      settled += claims.length;
      if (!next) return settled;
      after = next;
      await yieldToEventLoop();
    }
  }

  /**
   * The job handler: does the post's next due step, if it is still due. A comment due at once
   * (no delay) is carried on in the same run rather than through the queue, and so is a step
   * whose claim lost to an edit (the edited post is read again).
   */
  async handle(job: PublishJob): Promise<void> {
    for (let step = 0; step < 100; step++) {
      if (!(await this.#step(job))) return;
    }
  }

  /** The pump of a lane's wakes, made on first use. */
  #pump(lane: Lane): DuePump {
    let pump = this.#pumps.get(lane.name);
    if (!pump) {
      const { log, hooks } = this.#deps;
      pump = new DuePump(
        {
          claim: async (limit) => {
            await hooks?.beforeClaim?.(null);
            return this.#transitions.claimDueBatch(lane.platforms, limit, this.#options.leaseMs);
          },
          publish: (due) => this.#counted(() => this.#publishDue(due)),
          report: (error) => log.error({ err: error, lane: lane.name }, 'publishing due posts failed; the sweep will pick them up again'),
        },
        lane.concurrency,
      );
      this.#pumps.set(lane.name, pump);
    }
    return pump;
  }

  /** Publishes a post claimed in a lane's batch, then carries on with its next step if that is due at once. */
  async #publishDue(due: DueClaim): Promise<void> {
    if (await this.#publishStep(due)) {
      await this.handle({ postId: due.post.id, runAt: this.#deps.clock.now(), provider: due.channel?.provider ?? 'unknown' });
    }
  }

  /**
   * One step; true when there may be more to do at once (the next part is due). The claim is the
   * read: one transaction claims the due post and its next part and reads them, with the
   * channel, as claimed; no earlier read exists for an edit to slip behind.
   */
  async #step(job: PublishJob): Promise<boolean> {
    const { db, clock } = this.#deps;
    await this.#deps.hooks?.beforeClaim?.(job.postId);
    const due = await this.#transitions.claimDue(job.postId, this.#options.leaseMs);
    if (!due) {
      // Not due: perhaps rescheduled later than this job; make sure a job exists for the new time.
      const post = await repo.findPostForEngine(db, job.postId);
      if (!post || post.deleted_at || post.next_run_at === null) return false;
      if (Date.parse(post.next_run_at) > clock.now().getTime()) {
        await this.#deps.queue.enqueue({ postId: post.id, runAt: new Date(post.next_run_at), provider: job.provider });
      } else if (post.state === 'QUEUE' && (await this.#deps.channels.isDeleted(post.channel_id))) {
        // Due but never claimed: its channel was deleted (while the post was being scheduled). A deleted channel publishes nothing; the post becomes a draft.
        await this.#transitions.unschedule(post).catch(() => {});
      }
      return false;
    }
    return this.#publishStep(due);
  }

  /** Publishes a claimed step (one post's claim or one of a lane's batch); true when it succeeded and the next part is already due. */
  async #publishStep(due: DueClaim): Promise<boolean> {
    const { post, part, claim } = due;
    // An occurrence of a series reached too late (an outage, a long backlog) is skipped, never published late.
    const late = this.#deps.clock.now().getTime() - Date.parse(post.publish_at);
    if (claim.idx === 0 && post.series_id !== null && late > MISSED_WINDOW_MINUTES * 60_000) {
      await this.#fail(
        claim,
        'skipped',
        `Skipped: this occurrence of series ${post.series_id} was due at ${post.publish_at} and was reached more than ${MISSED_WINDOW_MINUTES} minutes late; a recurring post is not published late. The series goes on at its next occurrence.`,
      );
      return false;
    }
    // Only a thread needs its other parts (the parent and root of a comment, the delay of the next one).
    const parts = claim.idx > 0 || due.partCount > 1 ? await repo.listParts(this.#deps.db, [post.id]) : [part];
    return this.#publishClaimed(post, part, parts, claim, due.channel);
  }

  /** Publishes a claimed part, renewing its lease meanwhile; true when it succeeded and the next part is already due. */
  async #publishClaimed(post: Post, part: Part, parts: Part[], claim: Claim, channelRow: ClaimedChannel | null): Promise<boolean> {
    const renewal = setInterval(() => {
      this.#transitions
        .renewLease(claim, this.#options.leaseMs)
        .catch((error: unknown) => this.#deps.log.warn({ err: error, postId: post.id }, 'could not renew a publishing lease'));
    }, this.#options.renewEveryMs);
    renewal.unref();
    try {
      return await this.#call(post, part, parts, claim, channelRow);
    } finally {
      clearInterval(renewal);
    }
  }

  async #call(post: Post, part: Part, parts: Part[], claim: Claim, channelRow: ClaimedChannel | null): Promise<boolean> {
    const { channels, media: library, shortLinks, outbound } = this.#deps;
    const idx = claim.idx;
    let provider: Provider | null = null;
    let sent = false;
    try {
      if (!channelRow || channelRow.workspace_id !== post.workspace_id)
        throw new Error(`No channel ${post.channel_id} in the post's workspace.`);
      const opened = channels.open(channelRow);
      const { channel } = opened;
      let { config } = opened;
      provider = getProvider(channel.provider);
      const channelRef = { id: channel.id, workspaceId: channel.workspaceId, name: channel.name, profile: channel.profile };
      // Expiring credentials are renewed (and stored) before use; a refusal is an auth failure (the channel needs reconnecting).
      const live = await channels.renewals.live(
        provider,
        { channel: channelRef, config, outbound, platformApps: channels.platformApps },
        !channel.disabled,
      );
      config = live.config;
      // The channel's preferred settings fill in what the post leaves out.
      const settings = { ...channel.preferredSettings, ...parseJsonOr<Record<string, unknown>>(post.settings, {}) };
      const images = parseJsonOr<Images>(part.images, []);
      const files = images.length
        ? await library.findByPaths(
            post.workspace_id,
            images.map((i) => i.path),
          )
        : new Map();

      // Converted once: the readiness check counts this text, and it is what is sent.
      let text = provider.toText(part.content);
      const missing = checkReadiness({
        provider,
        channel,
        config,
        platformApps: channels.platformApps,
        settings,
        parts: [{ idx, content: part.content, images, text }],
        media: new Map([...files].map(([path, file]) => [path, describeMedia(file)])),
      });
      if (missing.length > 0) {
        const reason = missing.map((m) => `${m.field}: ${m.reason}`).join(' ');
        await this.#fail(
          claim,
          channel.disabled ? 'channel_disabled' : 'missing',
          channel.disabled ? `The channel cannot post: ${reason}` : `Not ready to publish: ${reason}`,
        );
        return false;
      }

      if (Number(post.short_link) === 1) text = await shortLinks.shortenAll(post.workspace_id, post.id, text);
      const { __type: _type, ...providerSettings } = settings;
      const input = {
        postId: post.id,
        part: idx,
        text,
        html: part.content,
        media: images.map((image) => {
          const file = files.get(image.path)!;
          return toPublishMedia(file, (range) => library.read({ ...file, workspaceId: post.workspace_id }, range));
        }),
        settings: providerSettings,
        root: refOf(parts.find((p) => Number(p.idx) === 0)),
        parent: refOf(parts.find((p) => Number(p.idx) === idx - 1)),
        dueAt: dueAt(post, parts, idx),
      };
      const clock = this.#deps.clock;
      const ctx = { ...live, wait: (ms: number) => waitOn(clock, ms) };
      sent = true;
      const ref = idx === 0 ? await provider.publish(ctx, input) : await provider.comment(ctx, input);
      return await this.#succeed(claim, parts, ref, provider.identifier);
    } catch (error) {
      if (error instanceof ProviderError) {
        await this.#settleFailure(claim, provider, error);
        return false;
      }
      // An unexpected error: before the platform was called, nothing reached it (release the claim
      // and try again later); after, the outcome is unknown.
      const [kind, logged, message] = sent
        ? ([
            'unknown_outcome',
            'publish failed with an unexpected error',
            'The publish failed unexpectedly after the platform was called.',
          ] as const)
        : (['transient', 'could not prepare a publish; will retry', 'Herald could not prepare this publish; it will retry.'] as const);
      this.#deps.log.error({ err: error, postId: post.id, part: idx }, logged);
      await this.#settleFailure(claim, provider, new ProviderError(kind, message, { cause: error }));
      return false;
    }
  }

  /** Records a published part; true when the next part is already due (the caller carries on with it). */
  async #succeed(claim: Claim, parts: Part[], ref: PublishedRef, provider: string): Promise<boolean> {
    const following = parts.find((p) => Number(p.idx) === claim.idx + 1);
    const outcome = await this.#transitions.published(claim, ref, following && { delayMinutes: Number(following.delay_minutes) });
    const log = { postId: claim.postId, part: claim.idx, releaseId: ref.id };
    if (!outcome.recorded) {
      if (outcome.edited) this.#deps.log.warn(log, 'a publish whose claim had lapsed succeeded after the post was edited; the edit stands');
      return false;
    }
    this.#deps.log.info(log, claim.idx === 0 ? 'post published' : 'comment published');
    if (outcome.nextRunAt === null) return false;
    // Due now: this run carries on (next_run_at is stored, so the sweep covers a crash in between).
    if (Date.parse(outcome.nextRunAt) <= this.#deps.clock.now().getTime()) return true;
    await this.#deps.queue.enqueue({ postId: claim.postId, runAt: new Date(outcome.nextRunAt), provider });
    return false;
  }

  /** Decides what a failure means: retry later, disable the channel, or record the error. */
  async #settleFailure(claim: Claim, provider: Provider | null, error: ProviderError): Promise<void> {
    const attempts = claim.attempts;
    const retryable =
      error.kind === 'rate_limited' ||
      error.kind === 'transient' ||
      (error.kind === 'unknown_outcome' && provider !== null && provider.idempotentWrites);
    if (retryable && attempts < this.#options.maxAttempts) {
      await this.#retry(claim, provider?.identifier ?? 'unknown', error);
      return;
    }
    if (error.kind === 'auth') {
      const changed = await this.#deps.channels.disable(claim.channelId, 'needs_reconnect');
      if (changed) {
        await this.#deps.notifications.notify(claim.workspaceId, {
          kind: 'channel_disconnected',
          message: `The channel needs reconnecting: ${error.message}`,
          channelId: claim.channelId,
        });
      }
      await this.#fail(claim, 'auth', `The platform refused the channel's credentials; reconnect the channel. (${error.message})`);
      return;
    }
    if (error.kind === 'unknown_outcome') {
      await this.#fail(claim, 'unconfirmed', `Unconfirmed: ${error.message} Check the platform before publishing it again.`);
      return;
    }
    if (retryable) {
      await this.#fail(claim, 'gave_up', `Gave up after ${attempts} attempts: ${error.message}`);
      return;
    }
    await this.#fail(claim, 'rejected', error.message);
  }

  async #retry(claim: Claim, provider: string, error: ProviderError): Promise<void> {
    const now = this.#deps.clock.now();
    const backoff = Math.min(this.#options.baseBackoffMs * 2 ** Math.max(claim.attempts - 1, 0), this.#options.maxBackoffMs);
    const jittered = backoff / 2 + Math.random() * (backoff / 2);
    const wait = Math.max(jittered, error.options.retryAfterMs ?? 0);
    const runAt = new Date(now.getTime() + wait).toISOString();
    if (!(await this.#transitions.release(claim, runAt, error.message))) return;
    this.#deps.log.warn(
      { postId: claim.postId, part: claim.idx, attempt: claim.attempts, retryAt: runAt, reason: error.message },
      'publish failed; retrying',
    );
    await this.#deps.queue.enqueue({ postId: claim.postId, runAt: new Date(runAt), provider });
  }

  /** Records a failure that will not be retried; the workspace is told. */
  async #fail(claim: Claim, kind: ErrorKind, reason: string): Promise<void> {
    if (await this.#transitions.fail(claim, kind, reason))
      this.#deps.log.warn({ postId: claim.postId, part: claim.idx, kind, reason }, 'publish failed');
  }
}
