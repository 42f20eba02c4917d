import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.ts';
import { createRedis } from '../lib/redis.ts';
import type { JobHandler, JobQueue, PublishJob } from './job-queue.ts';

/** The lane of jobs whose platform has no lane of its own (`unknown`, or a platform added later). */
export const DEFAULT_LANE = 'default';

export type BullmqQueueOptions = {
  /** `redis://…` */
  redisUrl: string;
  /** Every key starts with `<prefix>:`; processes of one deployment share it, anything else must not. */
  prefix: string;
  clock: Clock;
  /** Platforms with a lane (a BullMQ queue and worker) of their own; the others share `default`. */
  providers: readonly string[];
  /** Jobs run at once per lane in this process, by platform (or `default`); `start`'s `concurrency` otherwise. */
  concurrencyByProvider?: Readonly<Record<string, number>>;
  /** How long a job stays with a worker that stopped renewing it (died) before another takes it over. */
  lockDurationMs?: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
};

type JobData = { postId: string; runAt: number; provider: string };

/** How long a post's job index outlives its latest job's run time; its entries are never removed one by one. */
const INDEX_TTL_MS = 24 * 3600_000;

/**
 * The scale-out queue: BullMQ on Redis, one BullMQ queue ("lane") per platform so one
 * platform's slowness never holds up another, each with its own concurrency.
 *
 * - Job ids are `<postId>_<runAt ms>`: adding the same post and time twice, from any process,
 *   keeps one job.
 * - A job waits in BullMQ's delayed set until `runAt` (measured on the injected clock); a test
 *   clock that jumps promotes the jobs that became due.
 * - Retries are the publisher's: it re-enqueues with a later `runAt` (its own backoff). BullMQ's
 *   attempts only cover errors escaping the handler.
 * - `remove` is best-effort: a job that is already running, or whose index entry was lost, still
 *   runs, and the handler ignores work that is no longer due.
 * - Redis may lose everything: the publisher's sweep re-enqueues due posts from the database.
 */
export class BullmqQueue implements JobQueue {
  readonly #options: BullmqQueueOptions;
  readonly #lanes: string[];
  readonly #queues = new Map<string, Queue<JobData>>();
  #producer: Redis | null = null;
  #consumer: Redis | null = null;
  #workers: Worker<JobData>[] = [];
  #handler: JobHandler | null = null;
  #unsubscribe: (() => void) | null = null;
  #promoting: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: BullmqQueueOptions) {
    this.#options = options;
    this.#lanes = [...new Set([...options.providers.filter((p) => p !== DEFAULT_LANE), DEFAULT_LANE])];
  }

  /** The BullMQ queue name of a platform's lane. */
  static queueName(lane: string): string {
    return `herald-publish-${lane}`;
  }

  laneOf(provider: string): string {
    return this.#lanes.includes(provider) ? provider : DEFAULT_LANE;
  }

  get lanes(): readonly string[] {
    return this.#lanes;
  }

  async enqueue(job: PublishJob): Promise<void> {
    const runAt = job.runAt.getTime();
    const id = jobId(job.postId, runAt);
    const lane = this.laneOf(job.provider);
    const delay = Math.max(0, runAt - this.#options.clock.now().getTime());
    await this.#queue(lane).add(
      'publish',
      { postId: job.postId, runAt, provider: job.provider },
      { jobId: id, delay, removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
    );
    // Two commands sent together (the connection pipelines them): if the second is lost, the entry
    // outlives its job, which `remove` tolerates.
    const index = this.#indexKey(job.postId);
    const redis = this.#redis();
    await Promise.all([redis.sadd(index, `${lane}/${id}`), redis.pexpire(index, delay + INDEX_TTL_MS)]);
  }

  async remove(postId: string): Promise<void> {
    const index = this.#indexKey(postId);
    const entries = await this.#redis().smembers(index);
    for (const entry of entries) {
      const [lane, id] = entry.split('/') as [string, string];
      // A running (locked) job cannot be removed; its handler re-reads the post and stops there.
      await this.#queue(lane)
        .remove(id)
        .catch(() => 0);
    }
    await this.#redis().del(index);
  }

  async start(handler: JobHandler, options: { concurrency?: number } = {}): Promise<void> {
    if (this.#workers.length > 0) throw new Error('The queue is already started.');
    this.#handler = handler;
    const fallback = options.concurrency ?? 8;
    const lockDuration = this.#options.lockDurationMs ?? 30_000;
    for (const lane of this.#lanes) {
      const worker = new Worker<JobData>(BullmqQueue.queueName(lane), (job, token) => this.#process(job, token), {
        connection: this.#consumerConnection(),
        prefix: this.#options.prefix,
        concurrency: this.#options.concurrencyByProvider?.[lane] ?? fallback,
        lockDuration,
        stalledInterval: lockDuration,
        maxStalledCount: 1,
        autorun: true,
      });
      worker.on('error', (error) => this.#options.log?.warn({ err: error, lane }, 'publishing queue worker error (it retries by itself)'));
      this.#workers.push(worker);
    }
    this.#unsubscribe = this.#options.clock.onJump?.(() => void this.#promoteDue().catch(() => {})) ?? null;
    await Promise.all(this.#workers.map((worker) => worker.waitUntilReady()));
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    const workers = this.#workers;
    this.#workers = [];
    // Worker.close waits for the jobs in progress to finish.
    await Promise.all(workers.map((worker) => worker.close()));
    await this.#promoting;
  }

  /** Stops and closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.stop();
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    this.#queues.clear();
    for (const connection of [this.#producer, this.#consumer]) {
      if (connection && connection.status !== 'end') await connection.quit().catch(() => connection.disconnect());
    }
  }

  /** Answers when Redis does; for readiness checks. */
  async ping(): Promise<void> {
    await this.#redis().ping();
  }

  /**
   * Resolves once no job is waiting or running and none is due (on the injected clock) in any
   * lane. Delayed jobs that a test clock made due are promoted on the way. For tests.
   */
  async idle(): Promise<void> {
    for (;;) {
      const due = await this.#promoteDue();
      const counts = await Promise.all(this.#lanes.map((lane) => this.#queue(lane).getJobCounts('waiting', 'active', 'prioritized', 'paused')));
      const busy = counts.some((count) => Object.values(count).some((n) => n > 0));
      if (!busy && due === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async #process(job: Job<JobData>, token: string | undefined): Promise<void> {
    const { postId, runAt, provider } = job.data;
    const early = runAt - this.#options.clock.now().getTime();
    if (early > 0) {
      // Fired before its time on this process's clock (skew, or a test clock that went back).
      await job.moveToDelayed(Date.now() + early, token);
      throw new DelayedError();
    }
    // The handler carries on by itself with whatever is due at once, so it never needs its own job again.
    // The job's index entry stays until the index expires: removing a finished job is a no-op.
    await this.#handler!({ postId, runAt: new Date(runAt), provider });
  }

  /** Promotes delayed jobs whose `runAt` has come on the injected clock; returns how many were due. */
  #promoteDue(): Promise<number> {
    const run = this.#promoting.then(async () => {
      const now = this.#options.clock.now().getTime();
      let due = 0;
      for (const lane of this.#lanes) {
        for (const job of await this.#queue(lane).getDelayed(0, -1)) {
          if (!job || (job.data as JobData).runAt > now) continue;
          due += 1;
          // Another promotion (or BullMQ itself) may have moved it already.
          await job.promote().catch(() => {});
        }
      }
      return due;
    });
    this.#promoting = run.then(
      () => {},
      () => {},
    );
    return run;
  }

  #queue(lane: string): Queue<JobData> {
    let queue = this.#queues.get(lane);
    if (!queue) {
      if (this.#closed) throw new Error('The queue is closed.');
      queue = new Queue<JobData>(BullmqQueue.queueName(lane), { connection: this.#redis(), prefix: this.#options.prefix });
      queue.on('error', (error) => this.#options.log?.warn({ err: error, lane }, 'publishing queue connection error'));
      this.#queues.set(lane, queue);
    }
    return queue;
  }

  /**
   * The shared connection for adding, removing and inspecting jobs. Commands issued in the same
   * tick go out in one write (the sweep enqueues a page of posts at once; every enqueue is a job
   * and its index entry).
   */
  #redis(): Redis {
    this.#producer ??= createRedis(this.#options.redisUrl, { enableAutoPipelining: true });
    return this.#producer;
  }

  /** The workers' connection: BullMQ's blocking reads need it to wait, not fail, while Redis is away. */
  #consumerConnection(): Redis {
    this.#consumer ??= createRedis(this.#options.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    return this.#consumer;
  }

  #indexKey(postId: string): string {
    return `${this.#options.prefix}:herald-post-jobs:${postId}`;
  }
}

/** BullMQ ids must not contain ':'. */
function jobId(postId: string, runAtMs: number): string {
  return `${postId}_${runAtMs}`;
}
