/**
 * Work under way that background work (the collection of numbers) gives way to: publishing, the
 * API's requests. Asked before each piece of background work.
 */
export interface Activity {
  /** True while the work it stands for is under way (or due). */
  busy(): Promise<boolean> | boolean;
  /** Resolves once the work may have moved on (a piece of it ended), or after `pollMs` at the latest. */
  changed(pollMs: number): Promise<void>;
}

/**
 * Waits while `activity` is busy, looking again as it changes (every `pollMs` at the latest);
 * with `maxMs`, no longer than that (real time). True if it waited. `stopped` ends the wait early.
 */
export async function waitWhileBusy(
  activity: Activity,
  options: { pollMs: number; maxMs?: number; stopped: () => boolean },
): Promise<boolean> {
  const end = options.maxMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.maxMs;
  let waited = false;
  while (!options.stopped() && (await activity.busy())) {
    const left = end - performance.now();
    if (left <= 0) break;
    waited = true;
    await activity.changed(Math.min(options.pollMs, left));
  }
  return waited;
}

/** A promise that `changed` hands out until the next change, and the change that settles it. */
export class ChangeSignal {
  #next: { promise: Promise<void>; resolve: () => void } | null = null;

  /** Resolves at the next `notify`, or after `pollMs`. */
  wait(pollMs: number): Promise<void> {
    if (!this.#next) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#next = { promise, resolve };
    }
    let timer: NodeJS.Timeout | undefined;
    const poll = new Promise<void>((resolve) => (timer = setTimeout(resolve, pollMs).unref()));
    return Promise.race([this.#next.promise, poll]).finally(() => clearTimeout(timer));
  }

  notify(): void {
    const next = this.#next;
    this.#next = null;
    next?.resolve();
  }
}
