import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/**
 * Frames in the log not yet copied into the database that start a background checkpoint: SQLite's
 * own default threshold for the checkpoint its writer runs after a commit (`wal_autocheckpoint`).
 */
export const CHECKPOINT_FRAMES = 1_000;

/**
 * The writer's own checkpoint, kept as a safety net, runs only once the log holds this many
 * frames (about 40 MB at SQLite's 4 KiB pages): when the log could not restart because writes
 * never paused, or when the background checkpoints cannot run.
 */
export const WRITER_CHECKPOINT_FRAMES = 10_000;

/** How often the main thread looks at the log's size: a 100-byte read of the shared-memory file. */
export const CHECK_EVERY_MS = 200;

/** A thread with nothing to checkpoint for this long stops (and gives its memory back); the next need starts another. */
export const IDLE_STOP_MS = 30_000;

/** What SQLite answers to `PRAGMA wal_checkpoint`: whether it was blocked, frames in the log, frames copied so far. */
export type CheckpointResult = { busy: number; log: number; checkpointed: number };

export type BackgroundCheckpoints = {
  /** Checkpoints finished by the thread so far. */
  readonly completed: number;
  /** Threads started so far (one at a time; a thread stops when idle). */
  readonly started: number;
  /** Resolves with the result of the next checkpoint the thread finishes. */
  next(): Promise<CheckpointResult>;
  /** Resolves once no thread runs (at once when none does). */
  stopped(): Promise<void>;
  /** Looks at the log now (the timer does so every `CHECK_EVERY_MS`). */
  check(): void;
  /** Stops the timer and the thread; `after` runs once the thread's connection is closed. */
  close(after?: () => void): Promise<void>;
};

/**
 * The thread's code (CommonJS, evaluated): one connection of its own to the database, which runs a
 * passive checkpoint when asked and answers with SQLite's result. A passive checkpoint never
 * waits on a lock and never blocks a reader or the writer: it copies what it can.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ result: db.pragma('wal_checkpoint(PASSIVE)')[0] });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

/**
 * Checkpoints a SQLite database in WAL mode on a thread of its own. A checkpoint copies the log's
 * pages into the database file and waits for the disk twice (SQLite syncs the log, then the
 * database, at `synchronous = NORMAL`); run by the writer after a commit, as SQLite does by
 * default, that wait blocks the event loop and every request behind it, about once every 1,000
 * pages written. Here the main thread only reads how many frames the log holds (`pending`, from
 * the shared-memory file) every `CHECK_EVERY_MS`; past `CHECKPOINT_FRAMES` it asks the thread,
 * started on first need and stopped after `IDLE_STOP_MS` without one, to checkpoint. The writer
 * keeps its own checkpoint at `WRITER_CHECKPOINT_FRAMES` as a safety net, and goes back to
 * SQLite's default if the thread cannot run.
 */
export function backgroundCheckpoints(
  writer: SqliteDatabase.Database,
  file: string,
  driver: string,
  pending: () => number | undefined,
  options: { idleStopMs?: number } = {},
): BackgroundCheckpoints {
  const idleStopMs = options.idleStopMs ?? IDLE_STOP_MS;
  writer.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_FRAMES}`);
  let thread: Worker | null = null;
  /** Resolves when the last thread started has exited. */
  let exited: Promise<void> = Promise.resolve();
  let running = false;
  let failed = false;
  let closing: Promise<void> | null = null;
  let completed = 0;
  let started = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let waiters: Array<{ resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }> = [];

  const settle = (outcome: { result?: CheckpointResult; error?: string }) => {
    running = false;
    const list = waiters;
    waiters = [];
    if (outcome.result) {
      completed += 1;
      for (const w of list) w.resolve(outcome.result);
    } else {
      for (const w of list) w.reject(new Error(outcome.error ?? 'the checkpoint thread stopped'));
    }
    armIdleStop();
  };

  /** The thread cannot run here: the writer checkpoints by itself again, as SQLite does by default. */
  const giveUp = (error: unknown) => {
    if (failed) return;
    failed = true;
    thread = null;
    if (!closing) writer.pragma(`wal_autocheckpoint = ${CHECKPOINT_FRAMES}`);
    settle({ error: `the checkpoint thread failed: ${String((error as Error)?.message ?? error)}` });
  };

  const start = (): Worker => {
    const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { file, driver } });
    started += 1;
    worker.unref();
    exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: { result?: CheckpointResult; error?: string }) => settle(message));
    worker.on('error', giveUp);
    worker.on('exit', () => {
      if (thread !== worker) return;
      thread = null;
      if (running) settle({ error: 'the checkpoint thread exited' });
    });
    return worker;
  };

  /** Asks the thread to close its connection and exit, after anything it is doing. */
  const stop = () => {
    const worker = thread;
    thread = null;
    worker?.postMessage('close');
  };

  function armIdleStop() {
    clearTimeout(idleTimer);
    if (!thread || closing) return;
    idleTimer = setTimeout(() => {
      if (!running) stop();
    }, idleStopMs);
    idleTimer.unref();
  }

  const check = () => {
    if (running || failed || closing) return;
    const frames = pending();
    if (frames === undefined || frames < CHECKPOINT_FRAMES) return;
    clearTimeout(idleTimer);
    try {
      thread ??= start();
    } catch (error) {
      giveUp(error);
      return;
    }
    running = true;
    thread.postMessage('checkpoint');
  };

  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref();

  return {
    get completed() {
      return completed;
    },
    get started() {
      return started;
    },
    next: () => new Promise<CheckpointResult>((resolve, reject) => waiters.push({ resolve, reject })),
    stopped: () => exited,
    check,
    close(after) {
      closing ??= (async () => {
        clearInterval(timer);
        clearTimeout(idleTimer);
        stop();
        await exited;
      })();
      return closing.then(() => after?.());
    },
  };
}
