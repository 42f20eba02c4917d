/** Work a request starts after it has answered (sending mail); tracked so a test or a stop can wait for it. */
export class BackgroundWork {
  readonly #running = new Set<Promise<void>>();
  constructor(private readonly onError: (error: unknown) => void) {}

  run(task: () => Promise<void>): void {
    const promise = Promise.resolve()
      .then(task)
      .catch((error: unknown) => this.onError(error))
      .finally(() => this.#running.delete(promise));
    this.#running.add(promise);
  }

  /** Resolves once nothing started so far is still running. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
