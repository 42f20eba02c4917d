/** A request to look at one post: publish it (or its next comment) if it is due. */
export type PublishJob = {
  postId: string;
  /** When it should run; the job id includes it, so enqueueing the same job twice is harmless. */
  runAt: Date;
  /** The channel's platform, so a queue can limit concurrency per platform (`unknown` when it could not be read: any value must be accepted). */
  provider: string;
};

export type JobHandler = (job: PublishJob) => Promise<void>;

/**
 * Wakes workers when posts come due. The database stays the truth: a job only says "look at
 * this post"; the handler re-reads the row and does nothing when the work is no longer due.
 * Two implementations: in-process timers (embedded default) and BullMQ (scale-out).
 */
export interface JobQueue {
  /** Schedules `job`; adding the same post and time twice runs it once. */
  enqueue(job: PublishJob): Promise<void>;
  /** Drops pending jobs of a post (deleted, or moved back to draft). */
  remove(postId: string): Promise<void>;
  /** Starts running jobs with `handler`, at most `concurrency` at a time. */
  start(handler: JobHandler, options?: { concurrency?: number }): Promise<void>;
  /** Stops taking jobs and waits for the running ones to finish. */
  stop(): Promise<void>;
  /** Resolves once nothing is running and nothing is due (tests wait on it after moving a test clock). */
  idle?(): Promise<void>;
}
