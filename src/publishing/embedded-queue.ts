import type { Clock } from '../lib/clock.ts';
import { beyondHorizon, type JobHandlers, type JobQueue, type PublishJob } from './job-queue.ts';

type Entry = { id: string; job: PublishJob; at: number };

export type EmbeddedQueueOptions = {
  /** Jobs due further ahead than this are not kept (see `JobQueue.enqueue`); all are kept when unset. */
  horizonMs?: number;
  /**
   * Called when a job due within `withinMs` is added while the queue runs jobs (or is waiting
   * when it starts), so what the handler loads on first use can be loaded before the job is due.
   */
  upcoming?: { withinMs: number; prepare(): void };
};

/** setTimeout's longest delay; later jobs wake the timer more than once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The in-process queue of the embedded default: a min-heap of jobs by time and one timer for
 * the earliest. It keeps nothing: at boot the engine rebuilds it from the database. It holds only
 * the jobs due within its horizon, so its size follows the work of the next minutes, not the
 * number of scheduled posts.
 */
export class EmbeddedQueue implements JobQueue {
  readonly #clock: Clock;
  readonly #jobs = new Map<string, Entry>();
  readonly #byPost = new Map<string, Set<string>>();
  #heap: Entry[] = [];
  #timer: NodeJS.Timeout | null = null;
  #handler: JobHandlers['post'] | null = null;
  #handlers: JobHandlers | null = null;
  #concurrency = 8;
  #running = new Set<Promise<void>>();
  #stopping = false;
  /** When the timer fires (ms since the epoch), while it is set. */
  #timerAt = 0;
  #unsubscribe: (() => void) | null = null;
  readonly #upcoming: EmbeddedQueueOptions['upcoming'];
  readonly #horizonMs: number | undefined;
  constructor(clock: Clock, options: EmbeddedQueueOptions = {}) {
    this.#clock = clock;
    this.#upcoming = options.upcoming;
    this.#horizonMs = options.horizonMs;
  }

  async enqueue(job: PublishJob): Promise<void> {
    const at = job.runAt.getTime();
    if (beyondHorizon(at, this.#clock.now(), this.#horizonMs)) return this.#handlers?.beyond?.(job.runAt);
    const id = `${job.postId}:${at}`;
    if (this.#jobs.has(id)) return;
    const entry = { id, job: { ...job, runAt: new Date(at) }, at };
    this.#jobs.set(id, entry);
    let ids = this.#byPost.get(job.postId);
    if (!ids) this.#byPost.set(job.postId, (ids = new Set()));
    ids.add(id);
    this.#push(entry);
    if (this.#handler) this.#prepareFor(at);
    this.#arm();
  }

  #prepareFor(at: number): void {
    if (this.#upcoming && at - this.#clock.now().getTime() <= this.#upcoming.withinMs) this.#upcoming.prepare();
  }

  async remove(postId: string): Promise<void> {
    for (const id of this.#byPost.get(postId) ?? []) this.#jobs.delete(id);
    this.#byPost.delete(postId);
  }

  async start(handlers: JobHandlers, options: { concurrency?: number } = {}): Promise<void> {
    this.#handler = (job) => handlers.post(job);
    this.#handlers = handlers;
    this.#concurrency = options.concurrency ?? this.#concurrency;
    this.#stopping = false;
    this.#unsubscribe = this.#clock.onJump?.(() => this.#arm()) ?? null;
    this.#dropRemoved();
    if (this.#heap[0]) this.#prepareFor(this.#heap[0].at);
    this.#arm();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#unsubscribe?.();
    await Promise.allSettled([...this.#running]);
  }

  /** Jobs waiting (for tests and diagnostics). */
  get size(): number {
    return this.#jobs.size;
  }

  /** Resolves once no job is running, none is due, and the engine is not bringing any in. */
  async idle(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.#handlers && !(await this.#handlers.idle())) continue;
      if (this.#running.size === 0 && !this.#due()) return;
      await Promise.allSettled([...this.#running]);
    }
  }

  #due(): boolean {
    this.#dropRemoved();
    const first = this.#heap[0];
    return first !== undefined && first.at <= this.#clock.now().getTime();
  }

  #arm(): void {
    if (!this.#handler || this.#stopping) return;
    this.#drain();
    this.#dropRemoved();
    const first = this.#heap[0];
    if (!first || this.#running.size >= this.#concurrency) return this.#disarm();
    const now = this.#clock.now().getTime();
    const wait = Math.min(Math.max(first.at - now, 0), MAX_TIMER_MS);
    // A timer already set for that moment stays (adding many jobs for one instant sets one timer).
    if (this.#timer && this.#timerAt === now + wait) return;
    this.#disarm();
    this.#timerAt = now + wait;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#arm();
    }, wait);
  }

  #disarm(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #drain(): void {
    const now = this.#clock.now().getTime();
    while (this.#running.size < this.#concurrency) {
      this.#dropRemoved();
      const first = this.#heap[0];
      if (!first || first.at > now) return;
      this.#pop();
      this.#forget(first);
      const run = this.#handler!(first.job)
        // The handler reports its own failures; the sweep picks the post up again.
        .catch(() => {})
        .finally(() => {
          this.#running.delete(run);
          this.#arm();
        });
      this.#running.add(run);
    }
  }

  #forget(entry: Entry): void {
    this.#jobs.delete(entry.id);
    const ids = this.#byPost.get(entry.job.postId);
    ids?.delete(entry.id);
    if (ids && ids.size === 0) this.#byPost.delete(entry.job.postId);
  }

  /** Removed jobs stay in the heap until they reach the top. */
  #dropRemoved(): void {
    while (this.#heap.length && this.#jobs.get(this.#heap[0]!.id) !== this.#heap[0]) this.#pop();
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= heap[i]!.at) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #pop(): Entry | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length && last) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let smallest = i;
        if (l < heap.length && heap[l]!.at < heap[smallest]!.at) smallest = l;
        if (r < heap.length && heap[r]!.at < heap[smallest]!.at) smallest = r;
        if (smallest === i) break;
        [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
        i = smallest;
      }
    }
    return top;
  }
}
