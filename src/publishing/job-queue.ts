import type { PlatformFilter } from '../posts/post-claims.repository.ts';

/** A request to look at one post: publish it (or its next comment) if it is due. */
export type PublishJob = {
  postId: string;
  /** When it should run; the job id includes it, so enqueueing the same job twice is harmless. */
  runAt: Date;
  /** The channel's platform, so a queue can limit concurrency per platform (`unknown` when it could not be read: any value must be accepted). */
  provider: string;
};

/** A lane of posts: the platforms it publishes for, and how many of its posts a process publishes at once. */
export type Lane = { name: string; platforms: PlatformFilter; concurrency: number };

/** What a queue runs; a queue uses `post`, or `due` and `idle`. */
export type JobHandlers = {
  /** Does the next due step of one post, if it is still due. */
  post(job: PublishJob): Promise<void>;
  /**
   * Publishes the posts of `lane` that are due, many per claim: resolves once every one that was
   * due when it was called is claimed (their publishes may still be under way; see `idle`).
   * `share` asks another worker to join in: more is due than this process publishes at once.
   */
  due(lane: Lane, share: () => void): Promise<void>;
  /** Told of a job the queue turned away, due beyond its horizon (the engine brings the post in when it comes within it). */
  beyond?(runAt: Date): void;
  /** Resolves once no publish that `due` started is under way, nor any bringing in of posts that came within the horizon; true if none was. */
  idle(): Promise<boolean>;
};

/**
 * Wakes workers when posts come due. The database stays the truth: a job only says "look at
 * this post" (or "look at what is due in this lane"); the handler claims in the database and does
 * nothing when the work is no longer due. Two implementations: in-process timers, a job per post
 * (embedded default), and BullMQ, a job per lane and instant (scale-out).
 */
export interface JobQueue {
  /**
   * Schedules `job`; adding the same post and time twice runs it once. A job due beyond the
   * queue's horizon (`horizonMs` of its options) is not kept: the engine brings the post in from
   * the database as it comes within the horizon (see `Publisher.advanceHorizon`).
   */
  enqueue(job: PublishJob): Promise<void>;
  /** Drops pending jobs of a post (deleted, or moved back to draft), where jobs are per post. */
  remove(postId: string): Promise<void>;
  /** Starts running jobs with `handlers`, at most `concurrency` at a time (per lane, where the queue has lanes and no setting of its own for one). */
  start(handlers: JobHandlers, options?: { concurrency?: number }): Promise<void>;
  /** Stops taking jobs and waits for the running ones (and the publishes they started) to finish. */
  stop(): Promise<void>;
  /** Resolves once nothing is running and nothing is due (tests wait on it after moving a test clock). */
  idle?(): Promise<void>;
}

/** Whether a job due at `runAt` lies beyond a queue's horizon, and so is left in the database for now. */
export function beyondHorizon(runAt: number, now: Date, horizonMs: number | undefined): boolean {
  return horizonMs !== undefined && runAt > now.getTime() + horizonMs;
}
