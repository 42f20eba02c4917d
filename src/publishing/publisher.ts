import { setImmediate } from 'node:timers/promises';
import { parseJsonOr } from '../lib/json.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { describeMedia, toPublishMedia } from '../posts/media-lookup.ts';
import * as repo from '../posts/posts.repository.ts';
import type { PostsDeps } from '../posts/posts.service.ts';
import type { PostPartsTable, PostsTable } from '../posts/posts.table.ts';
import { checkReadiness } from '../posts/readiness.ts';
import { ProviderError, type Provider, type PublishedRef } from '../providers/provider.ts';
import { getProvider } from '../providers/registry.ts';
import type { ShortLinksService } from '../short-links/short-links.service.ts';
import type { PublishJob } from './job-queue.ts';

export type PublisherOptions = {
  /** Attempts per part before giving up on retryable failures. */
  maxAttempts: number;
  /** First retry delay; doubled each attempt (with jitter), capped at `maxBackoffMs`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
  /** A part SENDING for longer than this belongs to a worker that died. */
  leaseMs: number;
  /** How far ahead the sweep re-enqueues work, so jobs lost with the queue still run on time. */
  horizonMs: number;
};

/** Stale parts read per statement when recovering. */
export const RECOVERY_BATCH = 200;

export const DEFAULT_PUBLISHER_OPTIONS: PublisherOptions = {
  maxAttempts: 8,
  baseBackoffMs: 5_000,
  maxBackoffMs: 15 * 60_000,
  leaseMs: 5 * 60_000,
  horizonMs: 2 * 60_000,
};

/** What the worker needs: what the posts service has, plus short links, the outbound client and a log. */
export type PublisherDeps = PostsDeps & {
  shortLinks: ShortLinksService;
  outbound: OutboundClient;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  options?: Partial<PublisherOptions>;
};

type Post = PostsTable;
type Part = PostPartsTable;
type Images = Array<{ id?: string; path: string }>;


function refOf(part: Part | undefined): PublishedRef | undefined {
  if (!part || part.state !== 'PUBLISHED' || part.release_id === null) return undefined;
  return { id: part.release_id, url: part.release_url ?? undefined, meta: parseJsonOr<Record<string, unknown>>(part.release_meta, {}) };
}

/**
 * The publishing engine's worker side. The database is the truth; a job only says "look at
 * this post". Each step is claimed with one conditional update before anything external is
 * called, so two workers never publish the same part, and a part left SENDING by a worker
 * that died is settled by `recover` as an unknown outcome (retried only where the platform's
 * writes are idempotent).
 */
export class Publisher {
  readonly #deps: PublisherDeps;
  readonly #options: PublisherOptions;
  #sweepTimer: NodeJS.Timeout | null = null;

  constructor(deps: PublisherDeps) {
    this.#deps = deps;
    this.#options = { ...DEFAULT_PUBLISHER_OPTIONS, ...deps.options };
  }

  get options(): PublisherOptions {
    return this.#options;
  }

  /** Starts taking jobs; settles orphaned parts and re-enqueues every pending post first. */
  async start(options: { concurrency: number; sweepIntervalMs: number; exclusive: boolean }): Promise<void> {
    await this.recover({ all: options.exclusive });
    await this.enqueuePending(options.exclusive ? null : this.#options.horizonMs);
    await this.#deps.queue.start(
      (job) => this.handle(job).catch((error: unknown) => this.#deps.log.error({ err: error, postId: job.postId }, 'publishing job failed; the sweep will pick it up again')),
      { concurrency: options.concurrency },
    );
    if (options.sweepIntervalMs > 0) {
      this.#sweepTimer = setInterval(() => {
        this.sweep().catch((error: unknown) => this.#deps.log.error({ err: error }, 'publishing sweep failed'));
      }, options.sweepIntervalMs);
      this.#sweepTimer.unref();
    }
  }

  /** Stops taking jobs; the publishes in flight finish first. */
  async stop(): Promise<void> {
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    this.#sweepTimer = null;
    await this.#deps.queue.stop();
  }

  /** Periodic repair: settle dead workers' parts, re-enqueue due work the queue lost, drop old idempotency keys. */
  async sweep(): Promise<void> {
    await this.recover({ all: false });
    await this.enqueuePending(this.#options.horizonMs);
    const dayAgo = new Date(this.#deps.clock.now().getTime() - 48 * 3600_000).toISOString();
    await repo.purgeIdempotencyKeys(this.#deps.db, dayAgo);
  }

  /** Enqueues posts with a next step (within `horizonMs`, or all when null); duplicates are harmless. */
  async enqueuePending(horizonMs: number | null): Promise<number> {
    const until = horizonMs === null ? '9999-12-31T23:59:59.999Z' : new Date(this.#deps.clock.now().getTime() + horizonMs).toISOString();
    let count = 0;
    for (;;) {
      const due = await repo.listDuePosts(this.#deps.db, until, 10_000);
      for (const post of due) await this.#deps.queue.enqueue({ postId: post.id, runAt: new Date(post.next_run_at!), provider: post.provider });
      count += due.length;
      if (due.length < 10_000) return count;
      // More than a page of pending work: the queue deduplicates, so the next page is what matters.
      if (horizonMs === null) return count;
    }
  }

  /**
   * Settles parts left SENDING: with `all` (a single-process deployment at boot, when no other
   * worker can be mid-call) every one of them, otherwise those whose lease ran out.
   */
  async recover(options: { all: boolean }): Promise<number> {
    const { db, clock } = this.#deps;
    const before = options.all ? '9999-12-31T23:59:59.999Z' : new Date(clock.now().getTime() - this.#options.leaseMs).toISOString();
    let settled = 0;
    let after: repo.StalePartPosition | null = null;
    // In bounded batches, yielding between them: after a crash under load there may be many.
    for (;;) {
      const stale = await repo.listStaleSendingParts(db, before, { after, limit: RECOVERY_BATCH });
      for (const { post_id, idx } of stale) {
        const post = await repo.findPostForEngine(db, post_id);
        const parts = await repo.listParts(db, [post_id]);
        const part = parts.find((p) => Number(p.idx) === Number(idx));
        if (!post || !part || part.state !== 'SENDING') continue;
        const channel = await this.#deps.channels.get(post.workspace_id, post.channel_id).catch(() => null);
        const provider = channel ? getProvider(channel.provider) : null;
        const failure = new ProviderError('unknown_outcome', 'The worker publishing this stopped before the platform answered; the outcome is unknown.');
        await this.#settleFailure(post, part, provider, failure, { claimedAt: part.claimed_at });
      }
      settled += stale.length;
      const last = stale.at(-1);
      if (stale.length < RECOVERY_BATCH || !last) return settled;
      after = { claimedAt: last.claimed_at!, postId: last.post_id, idx: Number(last.idx) };
      await setImmediate();
    }
  }

  /**
   * The job handler: does the post's next due step, if it is still due. A comment due at once
   * (no delay) is carried on in the same run rather than through the queue.
   */
  async handle(job: PublishJob): Promise<void> {
    for (let step = 0; step < 100; step++) {
      if (!(await this.#step(job))) return;
    }
  }

  /** One step; true when it published a part and the post's next part is already due. */
  async #step(job: PublishJob): Promise<boolean> {
    const { db, clock } = this.#deps;
    const post = await repo.findPostForEngine(db, job.postId);
    if (!post || post.deleted_at || post.next_run_at === null) return false;
    const now = clock.now();
    if (Date.parse(post.next_run_at) > now.getTime()) {
      // Rescheduled later than this job: make sure a job exists for the new time.
      await this.#deps.queue.enqueue({ postId: post.id, runAt: new Date(post.next_run_at), provider: job.provider });
      return false;
    }
    const parts = await repo.listParts(db, [post.id]);
    const next = parts.find((p) => p.state === 'PENDING');
    if (!next) return false;
    const idx = Number(next.idx);
    const stamp = now.toISOString();

    // The claim: one conditional update on the post, then the part. Whoever changes the row owns the step.
    const claimed = await db.transaction().execute(async (trx) => {
      const postClaim =
        idx === 0
          ? await repo.updatePost(trx, post.id, { state: 'PUBLISHING', next_run_at: null, updated_at: stamp }, { state: ['QUEUE'] })
          : await repo.claimNextComment(trx, post.id, post.next_run_at!, stamp);
      if (Number(postClaim.numUpdatedRows) !== 1) return false;
      const partClaim = await repo.updatePart(trx, post.id, idx, { state: 'SENDING', claimed_at: stamp, attempts: Number(next.attempts) + 1 }, { state: ['PENDING'] });
      if (Number(partClaim.numUpdatedRows) !== 1) throw new Error('claim lost on the part after winning the post');
      return true;
    });
    if (!claimed) return false;
    const claimedPost: Post = { ...post, state: idx === 0 ? 'PUBLISHING' : post.state, next_run_at: null };
    const claimedPart: Part = { ...next, state: 'SENDING', claimed_at: stamp, attempts: Number(next.attempts) + 1 };
    return this.#publishClaimed(claimedPost, claimedPart, parts);
  }

  /** Publishes a claimed part; true when it succeeded and the next part is already due. */
  async #publishClaimed(post: Post, part: Part, parts: Part[]): Promise<boolean> {
    const { channels, media: library, shortLinks, outbound } = this.#deps;
    const idx = Number(part.idx);
    let provider: Provider | null = null;
    let sent = false;
    try {
      const { channel, config } = await channels.withConfig(post.workspace_id, post.channel_id);
      provider = getProvider(channel.provider);
      const settings = parseJsonOr<Record<string, unknown>>(post.settings, {});
      const images = parseJsonOr<Images>(part.images, []);
      const files = images.length ? await library.findByPaths(post.workspace_id, images.map((i) => i.path)) : new Map();

      const missing = checkReadiness({
        provider,
        channel,
        config,
        settings,
        parts: [{ idx, content: part.content, images }],
        media: new Map([...files].map(([path, file]) => [path, describeMedia(file)])),
      });
      if (missing.length > 0) {
        const reason = missing.map((m) => `${m.field}: ${m.reason}`).join(' ');
        const kind = channel.disabled ? 'channel_disabled' : 'missing';
        await this.#fail(post, part, kind, channel.disabled ? `The channel cannot post: ${reason}` : `Not ready to publish: ${reason}`);
        return false;
      }

      let text = provider.toText(part.content);
      if (Number(post.short_link) === 1) text = await shortLinks.shortenAll(post.workspace_id, post.id, text);
      const { __type: _type, ...providerSettings } = settings;
      const input = {
        postId: post.id,
        part: idx,
        text,
        html: part.content,
        media: images.map((image) => {
          const file = files.get(image.path)!;
          return toPublishMedia(file, () => library.read({ ...file, workspaceId: post.workspace_id }));
        }),
        settings: providerSettings,
        root: refOf(parts.find((p) => Number(p.idx) === 0)),
        parent: refOf(parts.find((p) => Number(p.idx) === idx - 1)),
      };
      const ctx = { channel: { id: channel.id, workspaceId: channel.workspaceId, name: channel.name, profile: channel.profile }, config, outbound };
      sent = true;
      const ref = idx === 0 ? await provider.publish(ctx, input) : await provider.comment(ctx, input);
      return await this.#succeed(post, part, parts, ref, provider.identifier);
    } catch (error) {
      if (error instanceof ProviderError) {
        await this.#settleFailure(post, part, provider, error, { claimedAt: part.claimed_at });
        return false;
      }
      if (!sent) {
        // Nothing reached the platform: release the claim and try again later.
        this.#deps.log.error({ err: error, postId: post.id, part: idx }, 'could not prepare a publish; will retry');
        await this.#settleFailure(post, part, provider, new ProviderError('transient', 'Herald could not prepare this publish; it will retry.', { cause: error }), {
          claimedAt: part.claimed_at,
        });
        return false;
      }
      this.#deps.log.error({ err: error, postId: post.id, part: idx }, 'publish failed with an unexpected error');
      await this.#settleFailure(post, part, provider, new ProviderError('unknown_outcome', 'The publish failed unexpectedly after the platform was called.', { cause: error }), {
        claimedAt: part.claimed_at,
      });
      return false;
    }
  }

  /** Records a published part; true when the next part is already due (the caller carries on with it). */
  async #succeed(post: Post, part: Part, parts: Part[], ref: PublishedRef, provider: string): Promise<boolean> {
    const { db, clock, queue } = this.#deps;
    const idx = Number(part.idx);
    const now = clock.now();
    const stamp = now.toISOString();
    const following = parts.find((p) => Number(p.idx) === idx + 1);
    const nextRun = following ? new Date(now.getTime() + Number(following.delay_minutes) * 60_000).toISOString() : null;
    await db.transaction().execute(async (trx) => {
      await repo.updatePart(
        trx,
        post.id,
        idx,
        { state: 'PUBLISHED', claimed_at: null, release_id: ref.id, release_url: ref.url ?? null, release_meta: ref.meta ? JSON.stringify(ref.meta) : null, published_at: stamp, error: null },
        { state: ['SENDING'] },
      );
      const changes: Partial<Post> = { next_run_at: nextRun, updated_at: stamp };
      if (idx === 0) Object.assign(changes, { state: 'PUBLISHED', release_id: ref.id, release_url: ref.url ?? null, published_at: stamp, error: null, error_kind: null });
      await repo.updatePost(trx, post.id, changes);
    });
    this.#deps.log.info({ postId: post.id, part: idx, releaseId: ref.id }, idx === 0 ? 'post published' : 'comment published');
    if (!nextRun) return false;
    // Due now: this run carries on (next_run_at is stored, so the sweep covers a crash in between).
    if (nextRun <= now.toISOString()) return true;
    await queue.enqueue({ postId: post.id, runAt: new Date(nextRun), provider });
    return false;
  }

  /** Decides what a failure means: retry later, disable the channel, or record the error. */
  async #settleFailure(post: Post, part: Part, provider: Provider | null, error: ProviderError, guard: { claimedAt: string | null }): Promise<void> {
    const attempts = Number(part.attempts);
    const retryable =
      error.kind === 'rate_limited' || error.kind === 'transient' || (error.kind === 'unknown_outcome' && provider !== null && provider.idempotentWrites);
    if (retryable && attempts < this.#options.maxAttempts) {
      await this.#retry(post, part, provider?.identifier ?? 'unknown', error, guard);
      return;
    }
    if (error.kind === 'auth') {
      const changed = await this.#deps.channels.disable(post.channel_id, 'needs_reconnect');
      if (changed) {
        await this.#deps.notifications.notify(post.workspace_id, {
          kind: 'channel_disconnected',
          message: `The channel needs reconnecting: ${error.message}`,
          channelId: post.channel_id,
        });
      }
      await this.#fail(post, part, 'auth', `The platform refused the channel's credentials; reconnect the channel. (${error.message})`, guard);
      return;
    }
    if (error.kind === 'unknown_outcome') {
      await this.#fail(post, part, 'unconfirmed', `Unconfirmed: ${error.message} Check the platform before publishing it again.`, guard);
      return;
    }
    if (retryable) {
      await this.#fail(post, part, 'gave_up', `Gave up after ${attempts} attempts: ${error.message}`, guard);
      return;
    }
    await this.#fail(post, part, 'rejected', error.message, guard);
  }

  async #retry(post: Post, part: Part, provider: string, error: ProviderError, guard: { claimedAt: string | null }): Promise<void> {
    const { db, clock, queue } = this.#deps;
    const idx = Number(part.idx);
    const now = clock.now();
    const attempts = Number(part.attempts);
    const backoff = Math.min(this.#options.baseBackoffMs * 2 ** Math.max(attempts - 1, 0), this.#options.maxBackoffMs);
    const jittered = backoff / 2 + Math.random() * (backoff / 2);
    const wait = Math.max(jittered, error.options.retryAfterMs ?? 0);
    const runAt = new Date(now.getTime() + wait).toISOString();
    const settled = await db.transaction().execute(async (trx) => {
      const released = await repo.settleClaimedPart(trx, post.id, idx, guard.claimedAt, {
        state: 'PENDING',
        claimed_at: null,
        error: `Attempt ${attempts} failed, retrying: ${error.message}`,
      });
      if (Number(released.numUpdatedRows) !== 1) return false;
      await repo.updatePost(trx, post.id, { ...(idx === 0 && { state: 'QUEUE' }), next_run_at: runAt, updated_at: now.toISOString() });
      return true;
    });
    if (!settled) return;
    this.#deps.log.warn({ postId: post.id, part: idx, attempt: attempts, retryAt: runAt, reason: error.message }, 'publish failed; retrying');
    await queue.enqueue({ postId: post.id, runAt: new Date(runAt), provider });
  }

  /** Records a failure that will not be retried, and tells the workspace. */
  async #fail(post: Post, part: Part, kind: string, reason: string, guard: { claimedAt: string | null } = { claimedAt: part.claimed_at }): Promise<void> {
    const { db, clock, notifications } = this.#deps;
    const idx = Number(part.idx);
    const stamp = clock.now().toISOString();
    const settled = await db.transaction().execute(async (trx) => {
      const result = await repo.settleClaimedPart(trx, post.id, idx, guard.claimedAt, { state: 'ERROR', claimed_at: null, error: reason });
      if (Number(result.numUpdatedRows) !== 1) return false;
      // The thread stops at the failed part: what comes after it is not published either.
      await repo.failPendingPartsAfter(trx, post.id, idx, idx === 0 ? 'Not published: the post itself failed.' : `Not published: comment ${idx} before it failed.`);
      const changes = idx === 0 ? { state: 'ERROR', error: reason } : { error: `Comment ${idx} failed: ${reason}` };
      await repo.recordPostFailure(trx, post.id, { ...changes, error_kind: kind, updated_at: stamp });
      return true;
    });
    if (!settled) return;
    this.#deps.log.warn({ postId: post.id, part: idx, kind, reason }, 'publish failed');
    await notifications.notify(post.workspace_id, {
      kind: idx === 0 ? 'publish_failed' : 'comment_failed',
      message: idx === 0 ? `Post ${post.id} was not published: ${reason}` : `Comment ${idx} of post ${post.id} was not published: ${reason}`,
      postId: post.id,
      channelId: post.channel_id,
    });
  }
}
