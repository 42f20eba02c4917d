/** Where services read the time, so tests can move it. Always an instant; never local time. */
export interface Clock {
  now(): Date;
  /** Called whenever the time jumps (a test clock moving); real clocks never call it. */
  onJump?(listener: () => void): () => void;
  /**
   * Waits `ms` on this clock (a platform's processing being polled). Real clocks leave it out and
   * `waitOn` sleeps; a test clock moves itself forward instead, so no test ever sleeps.
   */
  sleep?(ms: number): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };

/** Waits `ms` on `clock`: its own `sleep` when it has one (a test clock), otherwise a timer that `signal` cancels. */
export async function waitOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (clock.sleep) return clock.sleep(ms);
  const { setTimeout: sleep } = await import('node:timers/promises');
  await sleep(ms, undefined, signal ? { signal } : {});
}

/** A clock that stands still until told to move; for tests and benchmarks. */
export class ManualClock implements Clock {
  #now: number;
  readonly #listeners = new Set<() => void>();
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#now = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(to: Date | string): void {
    this.#now = new Date(to).getTime();
    for (const listener of this.#listeners) listener();
  }
  advance(ms: number): void {
    this.set(new Date(this.#now + ms));
  }
  /** Moves the clock forward by `ms` at once: what waited on it finds the time passed. */
  async sleep(ms: number): Promise<void> {
    this.advance(ms);
  }
  onJump(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
