import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { BACKEND } from './backend.ts';
import type { TestApp } from './app.ts';

/** A statement as the app sent it (see `createTestApp`'s `onQuery`). */
export type Statement = { sql: string; parameters: readonly unknown[] };

/** The plan of one statement as text: SQLite's query plan, or PostgreSQL's with sequential scans made a last resort. */
export async function planOf(t: TestApp, statement: Statement): Promise<string> {
  if (BACKEND === 'sqlite') {
    const plan = await t.runtime.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${statement.sql}`, [...statement.parameters]),
    );
    return plan.rows.map((row) => row.detail).join('\n');
  }
  return (t.runtime.db as Kysely<Database>).transaction().execute(async (trx: Transaction<Database>) => {
    await trx.executeQuery(CompiledQuery.raw('set local enable_seqscan = off'));
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${statement.sql}`, [...statement.parameters]));
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
