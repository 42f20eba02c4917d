import type { Db, Executor } from './database.ts';
import { limitLockWait } from './sql.ts';

/**
 * How long a batch waits for a row lock before it gives up (PostgreSQL). A batch holds the rows of
 * its first items while it takes the next ones, in id order; a transaction that takes the same
 * rows in another order (an edit of a group of posts) can close a cycle with it. PostgreSQL would
 * break the cycle after `deadlock_timeout` (1 s by default) by failing whichever waited first,
 * possibly the person's edit. Giving up sooner makes the batch the one that yields: it rolls back
 * and its items run alone, each holding one row at a time.
 */
export const BATCH_LOCK_WAIT_MS = 200;

/** How a `GroupCommit` runs its items: together in one transaction, or each on its own. */
export type GroupCommitWork<Item, Result> = {
  /** Runs one item inside a batch's transaction. Throwing rolls the whole batch back; its items then run `alone`. */
  inBatch(trx: Executor, item: Item): Promise<Result>;
  /**
   * Runs a batch of any size, a lone item included, by itself: one statement that is its own
   * transaction, with no BEGIN or COMMIT around it (and no lock-wait bound: such a statement must
   * not wait for locks). The results in the same order. Throwing runs each item `alone`. Where it
   * is given, `inBatch` is not used.
   */
  allAtOnce?(db: Db, items: Item[]): Promise<Result[]>;
  /** Runs one item in a transaction of its own: the path of a lone item, and of each item of a batch that was rolled back. */
  alone(item: Item): Promise<Result>;
  /** The order a batch's items run in (on PostgreSQL, one order of row locks for every batch, so two batches never deadlock). */
  order?(a: Item, b: Item): number;
};

type Waiting<Item, Result> = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };

/**
 * Group commit: items asked for while a batch runs, or within the same turn of the event loop,
 * run together, each by its own statements, in one transaction (one BEGIN and one COMMIT for all
 * of them). Nothing waits on a timer: an item asked for while the database is idle runs at the
 * end of the current turn, alone, by the `alone` path. A batch in which an item does not fit
 * (its `inBatch` throws) is rolled back whole, and each of its items runs `alone` instead, so a
 * batch never keeps part of its work: what it commits is what its items would have committed
 * one after the other. At most `maxBatch` items a batch, and `parallel` batches at a time: one
 * where statements run in this process (SQLite's single writer), a few where each statement is
 * a round trip (PostgreSQL), so that one batch's round trips do not hold up every other item.
 * On PostgreSQL a batch waits at most `BATCH_LOCK_WAIT_MS` for a lock, so that it, not another
 * transaction, yields when their locks cross. Work that can be done by one statement for the whole
 * batch (`allAtOnce`) skips the transaction altogether: one round trip per batch.
 */
export class GroupCommit<Item, Result> {
  readonly #db: Db;
  readonly #work: GroupCommitWork<Item, Result>;
  readonly #maxBatch: number;
  readonly #parallel: number;
  #waiting: Array<Waiting<Item, Result>> = [];
  #scheduled = false;
  #running = 0;

  constructor(db: Db, work: GroupCommitWork<Item, Result>, options: { maxBatch: number; parallel: number }) {
    this.#db = db;
    this.#work = work;
    this.#maxBatch = Math.max(1, options.maxBatch);
    this.#parallel = Math.max(1, options.parallel);
  }

  run(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#running >= this.#parallel || this.#scheduled) return;
      this.#scheduled = true;
      // The end of this turn: items asked for by the other callbacks of the same turn join in.
      setImmediate(() => {
        this.#scheduled = false;
        void this.#drain();
      });
    });
  }

  async #drain(): Promise<void> {
    this.#running += 1;
    try {
      // Items asked for while a batch ran make the next one.
      while (this.#waiting.length > 0) await this.#commit(this.#waiting.splice(0, this.#maxBatch));
    } finally {
      this.#running -= 1;
    }
  }

  async #commit(batch: Array<Waiting<Item, Result>>): Promise<void> {
    const work = this.#work;
    if (work.order) batch.sort((a, b) => work.order!(a.item, b.item));
    if (work.allAtOnce) {
      const results = await work
        .allAtOnce(
          this.#db,
          batch.map(({ item }) => item),
        )
        .catch(() => null);
      if (results) {
        batch.forEach((waiting, i) => waiting.resolve(results[i] as Result));
        return;
      }
    } else if (batch.length > 1) {
      let results: Result[] | null = null;
      try {
        results = await this.#db.transaction().execute(async (trx) => {
          await limitLockWait(trx, BATCH_LOCK_WAIT_MS);
          const out: Result[] = [];
          for (const { item } of batch) out.push(await work.inBatch(trx, item));
          return out;
        });
      } catch {
        // Rolled back: each item runs alone below, and meets its own outcome (an error included).
      }
      if (results) {
        batch.forEach((waiting, i) => waiting.resolve(results[i] as Result));
        return;
      }
    }
    await Promise.all(batch.map(({ item, resolve, reject }) => work.alone(item).then(resolve, reject)));
  }
}
