import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { BACKEND, freshSingleConnection, type FreshDatabase } from '../helpers/backend.ts';

// A PostgreSQL connection can end while a request or a publish holds it (a restart, a failover, an
// administrator ending sessions). The work on it fails and is retried by its owner; the process
// must not crash, and the pool must replace the connection.
let database: FreshDatabase;
let db: Db;

describe.skipIf(BACKEND !== 'postgres')('a PostgreSQL connection lost while in use', () => {
  beforeAll(async () => {
    // One connection, so the test knows which one the pool hands out next.
    ({ database, db } = await freshSingleConnection());
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('fails the work on it without an uncaught error, and the next query gets a new connection', async () => {
    const pids: number[] = [];
    await db.connection().execute(async (conn) => {
      pids.push((await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(conn)).rows[0]!.pid);
      await expect(sql`select pg_terminate_backend(pg_backend_pid())`.execute(conn)).rejects.toThrow(/terminat/);
      // By the time this fails the connection has ended while still checked out of the pool:
      // the moment `pg` reports the loss as an 'error' event on the client.
      await expect(sql`select 1`.execute(conn)).rejects.toThrow();
    });
    await db
      .transaction()
      .execute(async (trx) => {
        await expect(sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx)).rejects.toThrow(/terminat/);
      })
      .catch(() => {});
    const next = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
    expect(next.rows[0]!.pid).not.toBe(pids[0]);
  });
});
