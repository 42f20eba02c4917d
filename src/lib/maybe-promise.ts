/**
 * A value now, or a promise of it: what a step returns when it usually completes synchronously
 * (a read on SQLite's in-process reader, a count in memory) but may have to wait (PostgreSQL,
 * Redis, a write). A caller that takes it synchronously spares a request the microtask hops of
 * `async` functions; `await` takes either.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Runs `next` on the value at once when it is there, once the promise settles otherwise. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
