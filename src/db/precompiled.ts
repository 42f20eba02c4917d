import type { CompiledQuery, Compilable, Kysely, QueryResult, Transaction } from 'kysely';
import type { Database } from './database.ts';
import { markPreparable, sqliteReader } from './connection.ts';
import type { MaybePromise } from '../lib/maybe-promise.ts';

/** Stands in for a parameter while the query is compiled; never a value a caller could send. */
const SLOT = '\u0000herald-parameter:';

type Slot = { name: string } | { value: unknown };

/** What a slot may be bound to: a scalar (a list cannot be bound to one placeholder). Null only as a value to store, never to compare with `=`. */
type Value = string | number | null;

/**
 * A query that Kysely builds and compiles once (per database), then runs with each call's
 * parameters. Building a query through Kysely costs tens of microseconds, more than the
 * database takes for a primary-key read: the reads every authenticated request makes use this,
 * and so do the publishing engine's claim and record statements.
 *
 * `build` receives `param(name)`, a placeholder for a scalar parameter (a string or a number;
 * not a list) to be bound to `args[name]` at each call.
 */
export function precompiled<Args extends Record<string, Value>, Row>(
  build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<Row>,
) {
  const run = compiledRunner<Args, Row>(build);
  return async (db: Kysely<Database> | Transaction<Database>, args: Args): Promise<Row[]> => (await run(db, args)).rows;
}

/**
 * `precompiled` for a read that may see the last committed state: on SQLite, outside a
 * transaction, it runs synchronously on the read-only connection (see `sqliteReader`) instead of
 * queueing for the single writing connection. Never for a statement that writes.
 */
export function precompiledRead<Args extends Record<string, Value>, Row>(
  build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<Row>,
) {
  const run = compiledRunner<Args, Row>(build);
  return async (db: Kysely<Database> | Transaction<Database>, args: Args): Promise<Row[]> => {
    const reader = sqliteReader(db);
    if (reader) {
      const { sql, parameters } = run.parameters(db, args);
      return reader.all(sql, parameters) as Row[];
    }
    return (await run(db, args)).rows;
  };
}

/**
 * `precompiledRead` for the first row only (undefined when there is none): a read of one row by
 * its key. On SQLite's reader the row is returned as it is, not in a promise, so a caller that
 * needs nothing else asynchronous (the key check of every request) can answer without waiting
 * for the microtask queue; `await` takes either.
 */
export function precompiledReadFirst<Args extends Record<string, Value>, Row>(
  build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<Row>,
) {
  const run = compiledRunner<Args, Row>(build);
  return (db: Kysely<Database> | Transaction<Database>, args: Args): MaybePromise<Row | undefined> => {
    const reader = sqliteReader(db);
    if (reader) {
      const { sql, parameters } = run.parameters(db, args);
      return reader.first(sql, parameters) as Row | undefined;
    }
    return run(db, args).then((result) => result.rows[0]);
  };
}

/** `precompiled` for a statement that writes: resolves with how many rows it changed. */
export function precompiledWrite<Args extends Record<string, Value>>(
  build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<unknown>,
) {
  const run = compiledRunner<Args, unknown>(build);
  return async (db: Kysely<Database> | Transaction<Database>, args: Args): Promise<number> =>
    Number((await run(db, args)).numAffectedRows ?? 0);
}

function compiledRunner<Args extends Record<string, Value>, Row>(
  build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<Row>,
) {
  // By the database's adapter: a transaction shares it with the database it runs on.
  const byAdapter = new WeakMap<object, { query: CompiledQuery<Row>; slots: Slot[] }>();
  const compiledFor = (db: Kysely<Database> | Transaction<Database>) => {
    const adapter = db.getExecutor().adapter;
    let entry = byAdapter.get(adapter);
    if (!entry) {
      const query = build(db, (name) => `${SLOT}${name}`).compile();
      markPreparable(query.sql);
      const slots = query.parameters.map((value): Slot =>
        typeof value === 'string' && value.startsWith(SLOT) ? { name: value.slice(SLOT.length) } : { value },
      );
      entry = { query, slots };
      byAdapter.set(adapter, entry);
    }
    return entry;
  };
  const parametersOf = (db: Kysely<Database> | Transaction<Database>, args: Args) => {
    const { query, slots } = compiledFor(db);
    return { query, sql: query.sql, parameters: slots.map((slot) => ('name' in slot ? args[slot.name] : slot.value)) };
  };
  const run = (db: Kysely<Database> | Transaction<Database>, args: Args): Promise<QueryResult<Row>> => {
    const { query, parameters } = parametersOf(db, args);
    return db.executeQuery<Row>({ ...query, parameters });
  };
  return Object.assign(run, { parameters: parametersOf });
}
