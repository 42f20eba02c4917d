/**
 * What background work that must never delay publishing (the collection of numbers) asks of the
 * publishing engine before each platform call: publishing goes first. The engine of a process
 * that publishes gives it (see `Publisher.activity`), on either queue.
 */
export interface PublishingActivity {
  /**
   * True while a post has a step due that no worker has claimed yet (any process: the database
   * says), or while this process is claiming or publishing.
   */
  busy(): Promise<boolean>;
  /** Resolves once this process's publishing may have moved on: a publish or claim ended, or `pollMs` passed (for work of other processes). */
  changed(pollMs: number): Promise<void>;
}

/** Waits while publishing is busy; true if it waited. `stopped` ends the wait early. */
export async function waitForPublishing(activity: PublishingActivity, pollMs: number, stopped: () => boolean): Promise<boolean> {
  let waited = false;
  while (!stopped() && (await activity.busy())) {
    waited = true;
    await activity.changed(pollMs);
  }
  return waited;
}
