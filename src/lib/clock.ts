/** Where services read the time, so tests can move it. Always an instant; never local time. */
export interface Clock {
  now(): Date;
  /** Called whenever the time jumps (a test clock moving); real clocks never call it. */
  onJump?(listener: () => void): () => void;
}

export const systemClock: Clock = { now: () => new Date() };

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
  onJump(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Waits `ms` as `clock` counts time: a timer on the system clock; on a clock that jumps (a test
 * clock), until it has been moved at least that far, so a test decides when the wait ends.
 */
export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  const until = clock.now().getTime() + ms;
  return new Promise<void>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | undefined;
    const done = (error?: unknown) => {
      clearTimeout(timer);
      unsubscribe?.();
      signal?.removeEventListener('abort', aborted);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve();
    };
    const aborted = () => done(signal?.reason ?? new Error('aborted'));
    if (signal?.aborted) return aborted();
    signal?.addEventListener('abort', aborted, { once: true });
    if (ms <= 0) return done();
    if (clock.onJump) {
      unsubscribe = clock.onJump(() => {
        if (clock.now().getTime() >= until) done();
      });
    } else {
      timer = setTimeout(() => done(), ms);
    }
  });
}
