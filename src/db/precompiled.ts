import type { CompiledQuery, Compilable, Kysely, Transaction } from 'kysely';
import type { Database } from './database.ts';
import { sqliteReader } from './dialect.ts';

/** Stands in for a parameter while the query is compiled; never a value a caller could send. */
const SLOT = '\u0000herald-parameter:';

type Slot = { name: string } | { value: unknown };

/**
 * A query that Kysely builds and compiles once (per database), then runs with each call's
 * parameters. Building a query through Kysely costs tens of microseconds, more than the
 * database takes for a primary-key read: the reads every authenticated request makes use this.
 *
 * Only for reads (the SQLite path runs them on a read-only connection).
 *
 * `build` receives `param(name)`, a placeholder for a scalar parameter (a string or a number;
 * not a list) to be bound to `args[name]` at each call.
 */
export function precompiled<Args extends Record<string, string | number>, Row>(build: (db: Kysely<Database>, param: (name: keyof Args & string) => string) => Compilable<Row>) {
  // By the database's adapter: a transaction shares it with the database it runs on.
  const byAdapter = new WeakMap<object, { query: CompiledQuery<Row>; slots: Slot[] }>();
  const compiledFor = (db: Kysely<Database> | Transaction<Database>) => {
    const adapter = db.getExecutor().adapter;
    let entry = byAdapter.get(adapter);
    if (!entry) {
      const query = build(db, (name) => `${SLOT}${name}`).compile();
      const slots = query.parameters.map((value): Slot => (typeof value === 'string' && value.startsWith(SLOT) ? { name: value.slice(SLOT.length) } : { value }));
      entry = { query, slots };
      byAdapter.set(adapter, entry);
    }
    return entry;
  };
  return async (db: Kysely<Database> | Transaction<Database>, args: Args): Promise<Row[]> => {
    const { query, slots } = compiledFor(db);
    const parameters = slots.map((slot) => ('name' in slot ? args[slot.name] : slot.value));
    // On SQLite, outside a transaction: straight to the read-only connection (see sqliteReader).
    const reader = sqliteReader(db);
    if (reader) return reader(query.sql, parameters) as Row[];
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
