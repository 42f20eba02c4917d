import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Executor } from '../../src/db/database.ts';
import { GroupCommit } from '../../src/db/group-commit.ts';
import { BACKEND, freshSingleConnection, POSTGRES_URL, type FreshDatabase } from '../helpers/backend.ts';

// A group-commit batch holds the rows of its first items while it takes the next ones. Another
// transaction taking the same rows in the other order closes a cycle with it; the batch must be
// the one that yields (it rolls back and its items run alone), never the other transaction, which
// may be a person's edit answering 500.
let database: FreshDatabase;
let db: Db;
let other: pg.Client;
let admin: pg.Client;

describe.skipIf(BACKEND !== 'postgres')('group commit and row locks taken in another order (PostgreSQL)', () => {
  beforeAll(async () => {
    // One connection: the session settings below hold for every statement of the batch.
    ({ database, db } = await freshSingleConnection());
    const target = database.target as Extract<FreshDatabase['target'], { kind: 'postgres' }>;
    await sql`create table gc_rows (id text primary key, n integer not null)`.execute(db);
    await sql`insert into gc_rows (id, n) values ('a', 0), ('b', 0)`.execute(db);
    // PostgreSQL would break the cycle after deadlock_timeout by failing whichever waited first
    // (here the other transaction). Ten seconds in both sessions keeps that far from the batch's
    // own bound, however slow the machine.
    await sql`set deadlock_timeout = '10s'`.execute(db);
    other = new pg.Client({ connectionString: POSTGRES_URL });
    admin = new pg.Client({ connectionString: POSTGRES_URL });
    await Promise.all([other.connect(), admin.connect()]);
    await other.query(`set search_path to ${target.schema}; set deadlock_timeout = '10s'`);
  });
  afterAll(async () => {
    await other?.end();
    await admin?.end();
    await db?.destroy();
    await database?.drop();
  });

  it('the batch gives up its locks and redoes its items alone; the other transaction commits', async () => {
    let releaseBatch!: () => void;
    const gate = new Promise<void>((resolve) => (releaseBatch = resolve));
    let firstHeld!: () => void;
    const held = new Promise<void>((resolve) => (firstHeld = resolve));
    let batches = 0;
    const update = async (executor: Executor, id: string) =>
      (await sql<{ n: number }>`update gc_rows set n = n + 1 where id = ${id} returning n`.execute(executor)).rows[0]!.n;
    const commit = new GroupCommit<string, number>(
      db,
      {
        inBatch: async (trx, id) => {
          const n = await update(trx, id);
          if (id === 'a' && batches++ === 0) {
            firstHeld();
            await gate;
          }
          return n;
        },
        alone: (id) => db.transaction().execute((trx) => update(trx, id)),
        order: (x, y) => x.localeCompare(y),
      },
      { maxBatch: 64, parallel: 1 },
    );

    await other.query('begin');
    await other.query(`update gc_rows set n = n + 10 where id = 'b'`);
    const results = Promise.all([commit.run('b'), commit.run('a')]);
    await held; // the batch holds row a
    const otherPid = (await other.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const otherWrite = other.query(`update gc_rows set n = n + 10 where id = 'a'`);
    // The other transaction waits for row a…
    for (let i = 0; ; i++) {
      const { rows } = await admin.query(`select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`, [otherPid]);
      if (rows.length > 0) break;
      if (i > 1500) throw new Error('the other transaction never waited for the row lock');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // …and the batch goes on to row b, which the other transaction holds: a cycle.
    releaseBatch();
    await otherWrite;
    await other.query('commit');
    // The batch was rolled back; each item ran alone after the other transaction's commit.
    expect(await results).toEqual([11, 11]);
    const { rows } = await sql<{ id: string; n: number }>`select id, n from gc_rows order by id`.execute(db);
    expect(rows).toEqual([
      { id: 'a', n: 11 },
      { id: 'b', n: 11 },
    ]);
  }, 60_000);
});
