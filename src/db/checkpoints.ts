import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

// SQLite's checkpoints, off the event loop. In WAL mode a commit that finds the log past 1,000
// pages (SQLite's default) copies the log into the database file and syncs both before it
// returns: about 10 ms, during which the process answers nothing. A long-running server instead
// leaves checkpoints to a worker thread with a connection of its own. The writing connection
// then checkpoints nothing by itself (`wal_autocheckpoint = 0`), and the worker runs a PASSIVE
// checkpoint every `everyMs`, which never waits for the writer or the readers (SQLite's
// documented way to keep checkpoints out of the writer's path). Should the worker stop, the
// writing connection takes its checkpoints back.

/** SQLite's default: a commit checkpoints once the log holds this many pages. */
const AUTOCHECKPOINT_PAGES = 1000;

/** The worker's code: plain JavaScript run as a script, so it needs no loader and no file of its own in the build. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file, { fileMustExist: true });
const timer = setInterval(() => {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)');
  if (result && result.checkpointed > 0) parentPort.postMessage({ checkpointed: result.checkpointed, log: result.log });
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export type BackgroundCheckpoints = {
  /** Called after each checkpoint that copied pages: how many, of how many in the log. */
  onCheckpoint(listener: (pages: { checkpointed: number; log: number }) => void): void;
  /** Stops the worker (after its checkpoint under way, if any); the writing connection checkpoints by itself again. */
  stop(): Promise<void>;
};

/**
 * Moves the checkpoints of the SQLite database `file` (in WAL mode, open on `writer`) to a worker
 * thread. `driver` is the path of better-sqlite3's entry, which the worker loads.
 */
export function checkpointInBackground(
  writer: SqliteDatabase.Database,
  options: { file: string; driver: string; everyMs?: number },
): BackgroundCheckpoints {
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { file: options.file, driver: options.driver, everyMs: options.everyMs ?? 200 },
  });
  // The worker never keeps the process alive: a server that ends its work ends, whatever the worker does.
  worker.unref();
  writer.pragma('wal_autocheckpoint = 0');
  const listeners: Array<(pages: { checkpointed: number; log: number }) => void> = [];
  worker.on('message', (pages: { checkpointed: number; log: number }) => listeners.forEach((listener) => listener(pages)));
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const takeBack = () => {
    if (writer.open) writer.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.once('error', takeBack);
  worker.once('exit', () => {
    if (!stopping) takeBack();
  });
  return {
    onCheckpoint: (listener) => void listeners.push(listener),
    stop: async () => {
      if (stopping) return exited;
      stopping = true;
      takeBack();
      worker.postMessage('stop');
      await exited;
    },
  };
}
