import type { DueClaim } from '../posts/post-transitions.ts';

export type DuePumpWork = {
  /** Claims up to `limit` due posts (an empty list when none is due). */
  claim(limit: number): Promise<DueClaim[]>;
  /** Publishes a claimed post; reports its own failures (a rejection is reported as one). */
  publish(due: DueClaim): Promise<void>;
  report(error: unknown): void;
};

/**
 * With fewer than half the slots free, how long a claim waits for more to free up (real time):
 * long enough for a burst's publishes to free slots by the batch, short enough that a few slow
 * publishes never hold up the others.
 */
export const GATHER_MS = 20;

/**
 * Publishes the due posts of one lane in this process, many per claim: each claim takes as many
 * due posts as there are free publishing slots (`concurrency` in all), and the pump claims again
 * as slots free up, until a claim finds fewer due posts than it asked for. Claims run one at a
 * time; publishes overlap. With fewer than half the slots free it waits a little for more
 * (`GATHER_MS`), so a burst is claimed by the batch rather than a post at a time.
 */
export class DuePump {
  readonly #work: DuePumpWork;
  readonly #concurrency: number;
  readonly #inflight = new Set<Promise<void>>();
  /** The claiming pass under way. */
  #pass: Promise<void> | null = null;
  /** The pass that starts after it: every drain asked for meanwhile waits on this one. */
  #queued: Promise<void> | null = null;
  #settled: { promise: Promise<void>; resolve: () => void } | null = null;

  constructor(work: DuePumpWork, concurrency: number) {
    this.#work = work;
    this.#concurrency = Math.max(1, concurrency);
  }

  /** Publishes in flight. */
  get inFlight(): number {
    return this.#inflight.size;
  }

  /**
   * Resolves once every post due now is claimed (a claim that failed is reported, not thrown).
   * A pass under way may have looked before what is due now was committed: a drain asked for
   * meanwhile waits for one more pass, which every such drain shares.
   */
  drain(share: () => void): Promise<void> {
    if (!this.#pass) return this.#begin(share);
    this.#queued ??= this.#pass.then(() => {
      this.#queued = null;
      return this.#begin(share);
    });
    return this.#queued;
  }

  /** Resolves once no publish is in flight; true if none was. */
  async idle(): Promise<boolean> {
    let quiet = true;
    while (this.#inflight.size > 0) {
      quiet = false;
      await Promise.allSettled([...this.#inflight]);
    }
    return quiet;
  }

  #begin(share: () => void): Promise<void> {
    const pass: Promise<void> = this.#claimAll(share)
      .catch((error: unknown) => this.#work.report(error))
      .finally(() => {
        if (this.#pass === pass) this.#pass = null;
      });
    this.#pass = pass;
    return pass;
  }

  async #claimAll(share: () => void): Promise<void> {
    let shared = false;
    const shareOnce = () => {
      if (shared) return;
      shared = true;
      share();
    };
    for (;;) {
      // Every slot busy: others may have room for what is due.
      if (this.#free() === 0) shareOnce();
      await this.#gather();
      const room = this.#free();
      const claims = await this.#work.claim(room);
      for (const due of claims) this.#start(due);
      if (claims.length < room) return;
      shareOnce();
    }
  }

  #free(): number {
    return this.#concurrency - this.#inflight.size;
  }

  /** Waits for a free slot, then up to `GATHER_MS` for half of them. */
  async #gather(): Promise<void> {
    while (this.#free() === 0) await this.#nextSettle();
    const half = Math.ceil(this.#concurrency / 2);
    if (this.#free() >= half) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), GATHER_MS)));
    try {
      while (this.#free() < half) {
        if ((await Promise.race([this.#nextSettle(), late])) === 'late') return;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  #nextSettle(): Promise<void> {
    if (!this.#settled) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#settled = { promise, resolve };
    }
    return this.#settled.promise;
  }

  #start(due: DueClaim): void {
    const run: Promise<void> = this.#work
      .publish(due)
      .catch((error: unknown) => this.#work.report(error))
      .finally(() => {
        this.#inflight.delete(run);
        const settled = this.#settled;
        this.#settled = null;
        settled?.resolve();
      });
    this.#inflight.add(run);
  }
}
