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
