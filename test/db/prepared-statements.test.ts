import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { precompiled } from '../../src/db/precompiled.ts';
import { BACKEND, freshSingleConnection, type FreshDatabase } from '../helpers/backend.ts';

// The statements compiled once (`precompiled`) run on PostgreSQL as prepared statements: parsed
// once per connection, then only bound and executed.
const userById = precompiled<{ id: string }, Record<string, unknown>>((db, param) =>
  db.selectFrom('users').selectAll().where('id', '=', param('id')),
);

let database: FreshDatabase;
let db: Db;

describe.skipIf(BACKEND !== 'postgres')('prepared statements (PostgreSQL)', () => {
  beforeAll(async () => {
    // One connection, so the statements the test looks for are on the connection it asks.
    ({ database, db } = await freshSingleConnection());
    await migrateToLatest(db);
    await db
      .insertInto('users')
      .values({ id: 'u1', email: 'prepared@example.test', name: null, created_at: '2026-11-23T09:00:00.000Z' })
      .execute();
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map((r) => r.statement);

  it('a statement compiled once is prepared on the connection and reused, not prepared again', async () => {
    expect(await userById(db, { id: 'u1' })).toMatchObject([{ id: 'u1' }]);
    expect(await userById(db, { id: 'u2' })).toEqual([]);
    const statements = await prepared();
    expect(statements.filter((s) => s.includes('from "users"'))).toHaveLength(1);
  });

  it('after a migration changes the columns it returns, one run fails and the next prepares it afresh', async () => {
    expect(await userById(db, { id: 'u1' })).toMatchObject([{ id: 'u1' }]);
    await sql`alter table users add column prepared_probe text`.execute(db);
    // PostgreSQL refuses a prepared statement whose result columns changed…
    await expect(userById(db, { id: 'u1' })).rejects.toThrow(/cached plan must not change result type/);
    // …once: the next run prepares it under a new name, and sees the new column.
    expect(await userById(db, { id: 'u1' })).toMatchObject([{ id: 'u1', prepared_probe: null }]);
  });

  it('a statement that is not compiled once is not prepared', async () => {
    const before = await prepared();
    await db.selectFrom('users').select('email').where('id', '=', 'u1').execute();
    expect(await prepared()).toEqual(before);
  });
});
