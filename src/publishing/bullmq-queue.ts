import { randomUUID } from 'node:crypto';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Clock } from '../lib/clock.ts';
import { createRedis } from '../lib/redis.ts';
import { beyondHorizon, type JobHandlers, type JobQueue, type Lane, type PublishJob } from './job-queue.ts';

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
  /** Posts published at once per lane in this process, by platform (or `default`); `start`'s `concurrency` otherwise. */
  concurrencyByProvider?: Readonly<Record<string, number>>;
  /** Wakes due further ahead than this are not added (see `JobQueue.enqueue`); all are when unset. */
  horizonMs?: number;
  /** How long a job stays with a worker that stopped renewing it (died) before another takes it over. */
  lockDurationMs?: number;
  log?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
};

/** A wake of a lane: publish what is due in it at `runAt`. */
type WakeData = { runAt: number };
/** A job of one post, as queued by versions before wakes: still run, by the post's own handler. */
type PostJobData = { postId: string; runAt: number; provider: string };
type JobData = WakeData | PostJobData;

/**
 * A wake due further ahead than this (on the enqueuing process's clock) is shared by every post
 * of its lane due at that instant: its job id is the instant. A wake due sooner gets an id of its
 * own, so that it never folds into a wake that another process's worker is already running
 * (clocks differ a little between processes).
 */
const SHARED_AHEAD_MS = 2_000;

/**
 * The scale-out queue: BullMQ on Redis, one BullMQ queue ("lane") per platform so one
 * platform's slowness never holds up another, each with its own concurrency.
 *
 * - A job is a wake of a lane at an instant, not a post: "publish what is due in this lane". Its
 *   handler claims the due posts from the database by the batch (see `JobHandlers.due`), so a
 *   burst of posts due together costs a few jobs and a claim per batch, not a job and a claim per post.
 * - Posts due at the same instant share one wake: its job id is the lane's `due_<runAt ms>`,
 *   added once whatever the number of posts and processes. A wake due within `SHARED_AHEAD_MS`
 *   has an id of its own; the wakes asked for in one turn of the event loop for the same lane
 *   and instant are one job.
 * - A wake waits in BullMQ's delayed set until `runAt` (measured on the injected clock); a test
 *   clock that jumps promotes the jobs that became due.
 * - Each lane's worker runs one wake at a time; its publishes (up to the lane's concurrency)
 *   outlast the wake. A wake that finds more due than this process has room for asks for another
 *   wake, which another worker process takes.
 * - Retries are the publisher's: it re-enqueues with a later `runAt` (its own backoff). BullMQ's
 *   attempts only cover errors escaping the handler.
 * - `remove` has nothing to do: a wake only publishes what the database says is due.
 * - Redis may lose everything: the publisher's sweep re-enqueues due posts from the database.
 * - Only wakes due within the horizon are added: Redis holds at most one delayed job per lane and
 *   instant of the next minutes, however many posts are scheduled further ahead (the engine adds
 *   their wakes as they come within it).
 */
export class BullmqQueue implements JobQueue {
  readonly #options: BullmqQueueOptions;
  readonly #lanes: string[];
  readonly #queues = new Map<string, Queue<JobData>>();
  #producer: Redis | null = null;
  #consumer: Redis | null = null;
  #workers: Worker<JobData>[] = [];
  #handlers: JobHandlers | null = null;
  /** Wakes asked for in this turn of the event loop, by lane and instant: added together at its end. */
  readonly #soon = new Map<string, Promise<void>>();
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
    if (beyondHorizon(job.runAt.getTime(), this.#options.clock.now(), this.#options.horizonMs)) return this.#handlers?.beyond?.(job.runAt);
    await this.#wake(this.laneOf(job.provider), job.runAt.getTime());
  }

  /** Nothing to drop: a wake publishes only what the database says is due, and a removed post is not. */
  async remove(_postId: string): Promise<void> {}

  /** Adds a wake of `lane` at `runAt` (see the class's notes on job ids). */
  #wake(lane: string, runAt: number): Promise<void> {
    const now = this.#options.clock.now().getTime();
    if (runAt > now + SHARED_AHEAD_MS) return this.#add(lane, runAt, `due_${runAt}`);
    const key = `${lane}/${runAt <= now ? 'now' : runAt}`;
    let added = this.#soon.get(key);
    if (!added) {
      // Added once the callers of this turn have asked (each after committing what it wants woken).
      added = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.#soon.delete(key);
        return this.#add(lane, runAt, `due_${runAt}_${randomUUID()}`);
      });
      this.#soon.set(key, added);
    }
    return added;
  }

  async #add(lane: string, runAt: number, id: string): Promise<void> {
    const delay = Math.max(0, runAt - this.#options.clock.now().getTime());
    await this.#queue(lane).add(
      'due',
      { runAt },
      { jobId: id, delay, removeOnComplete: true, removeOnFail: true, attempts: 3, backoff: { type: 'exponential', delay: 1000 } },
    );
  }

  /** What the handler of a lane's wakes is given. */
  #lane(name: string, fallbackConcurrency: number): Lane {
    const own = this.#lanes.filter((lane) => lane !== DEFAULT_LANE);
    return {
      name,
      platforms: name === DEFAULT_LANE ? { except: own } : { only: [name] },
      concurrency: this.#options.concurrencyByProvider?.[name] ?? fallbackConcurrency,
    };
  }

  async start(handlers: JobHandlers, options: { concurrency?: number } = {}): Promise<void> {
    if (this.#workers.length > 0) throw new Error('The queue is already started.');
    this.#handlers = handlers;
    const fallback = options.concurrency ?? 8;
    const lockDuration = this.#options.lockDurationMs ?? 30_000;
    for (const name of this.#lanes) {
      const lane = this.#lane(name, fallback);
      // One wake at a time: a wake's claims fill the lane's publishing slots, and a wake that finds them full leaves what is due to another process.
      const worker = new Worker<JobData>(BullmqQueue.queueName(name), (job, token) => this.#process(lane, job, token), {
        connection: this.#consumerConnection(),
        prefix: this.#options.prefix,
        concurrency: 1,
        lockDuration,
        stalledInterval: lockDuration,
        maxStalledCount: 1,
        autorun: true,
      });
      worker.on('error', (error) =>
        this.#options.log?.warn({ err: error, lane: name }, 'publishing queue worker error (it retries by itself)'),
      );
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
    // Worker.close waits for the jobs in progress to finish; then the publishes they started.
    await Promise.all(workers.map((worker) => worker.close()));
    await this.#handlers?.idle();
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

  /** Jobs waiting in Redis (delayed or ready) over every lane; for tests and diagnostics. */
  async size(): Promise<number> {
    const counts = await Promise.all(
      this.#lanes.map((lane) => this.#queue(lane).getJobCounts('delayed', 'waiting', 'prioritized', 'paused')),
    );
    return counts.reduce((sum, count) => sum + Object.values(count).reduce((a, b) => a + b, 0), 0);
  }

  /** Answers when Redis does; for readiness checks. */
  async ping(): Promise<void> {
    await this.#redis().ping();
  }

  /**
   * Resolves once no job is waiting or running, none is due (on the injected clock) in any lane,
   * and no publish is under way. Delayed jobs that a test clock made due are promoted on the way. For tests.
   */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.all(this.#soon.values());
      const due = await this.#promoteDue();
      const counts = await Promise.all(
        this.#lanes.map((lane) => this.#queue(lane).getJobCounts('waiting', 'active', 'prioritized', 'paused')),
      );
      const busy = counts.some((count) => Object.values(count).some((n) => n > 0));
      if (!busy && due === 0 && this.#soon.size === 0) {
        // A publish that finishes may queue what comes next (a comment, a retry): look again after it.
        if (!this.#handlers || (await this.#handlers.idle())) return;
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  async #process(lane: Lane, job: Job<JobData>, token: string | undefined): Promise<void> {
    const data = job.data;
    const early = data.runAt - this.#options.clock.now().getTime();
    if (early > 0) {
      // Fired before its time on this process's clock (skew, or a test clock that went back).
      await job.moveToDelayed(Date.now() + early, token);
      throw new DelayedError();
    }
    if ('postId' in data) {
      await this.#handlers!.post({ postId: data.postId, runAt: new Date(data.runAt), provider: data.provider });
      return;
    }
    await this.#handlers!.due(lane, () => {
      this.#wake(lane.name, this.#options.clock.now().getTime()).catch((error: unknown) =>
        this.#options.log?.warn({ err: error, lane: lane.name }, 'could not ask another worker to share due posts'),
      );
    });
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
   * The shared connection for adding and inspecting jobs. Commands issued in the same tick go out
   * in one write (the sweep enqueues a page of posts at once).
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
}
