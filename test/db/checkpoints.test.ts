import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { backgroundCheckpoints, CHECKPOINT_FRAMES, WRITER_CHECKPOINT_FRAMES } from '../../src/db/checkpoints.ts';
import type { Db } from '../../src/db/database.ts';
import { createKysely, sqliteCheckpoints } from '../../src/db/dialect.ts';

// On SQLite, a checkpoint (copying the log into the database, and waiting for the disk) runs on a
// thread of its own: the writer, which runs on the event loop, must not wait for the disk.

const require = createRequire(import.meta.url);
const dirs: string[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-checkpoints-'));
  dirs.push(dir);
  return path.join(dir, 'herald.db');
}

async function open(): Promise<{ db: Db; file: string }> {
  const file = tempFile();
  const db = await createKysely({ kind: 'sqlite', file }, { backgroundCheckpoints: true });
  cleanups.push(() => db.destroy());
  await sql`create table notes (id integer primary key, body text)`.execute(db);
  return { db, file };
}

/** Commits `count` rows of about a page each, `perCommit` to a transaction: about one log frame per row. */
async function writePages(db: Db, count: number, perCommit = 100, from = 0): Promise<void> {
  const body = 'x'.repeat(3_500);
  for (let i = 0; i < count; i += perCommit) {
    await db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(count, i + perCommit); j += 1) await sql`insert into notes (id, body) values (${from + j}, ${body})`.execute(trx);
    });
  }
}

/** `[busy, frames in the log, frames copied]`, from a passive checkpoint of the writer's connection. */
async function logState(db: Db): Promise<{ busy: number; log: number; checkpointed: number }> {
  const { rows } = await sql<{ busy: number; log: number; checkpointed: number }>`pragma wal_checkpoint(PASSIVE)`.execute(db);
  return rows[0]!;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('SQLite background checkpoints', () => {
  it('the writer leaves the log alone up to its safety net; the thread copies it, and the log then starts afresh', async () => {
    const { db } = await open();
    const checkpoints = sqliteCheckpoints(db)!;
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]!.wal_autocheckpoint).toBe(WRITER_CHECKPOINT_FRAMES);

    // Below the threshold: no thread is started.
    await writePages(db, 200);
    checkpoints.check();
    expect(checkpoints.started).toBe(0);

    await writePages(db, CHECKPOINT_FRAMES + 500, 100, 200);
    const done = checkpoints.next();
    checkpoints.check();
    const result = await done;
    expect(checkpoints.started).toBe(1);
    expect(checkpoints.completed).toBe(1);
    // Nothing was written meanwhile: the thread copied the whole log, which the writer alone would not have touched yet.
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThanOrEqual(CHECKPOINT_FRAMES + 200);
    expect(result.checkpointed).toBe(result.log);

    // The next commit starts the log from its beginning.
    await sql`update notes set body = 'short' where id = 1`.execute(db);
    expect((await logState(db)).log).toBeLessThan(10);
    expect((await sql<{ n: number }>`select count(*) as n from notes`.execute(db)).rows).toEqual([{ n: CHECKPOINT_FRAMES + 700 }]);
  });

  it('a thread with nothing to do stops; the next need starts another; every row survives a reopening', async () => {
    const file = tempFile();
    const Sqlite = require('better-sqlite3') as typeof SqliteDatabase;
    const writer = new Sqlite(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('create table notes (id integer primary key, body text)');
    let frames = 0;
    const checkpoints = backgroundCheckpoints(writer, file, require.resolve('better-sqlite3'), () => frames, { idleStopMs: 1 });
    let closed = false;
    cleanups.push(() => checkpoints.close(() => closed || writer.close()));
    const insert = writer.prepare('insert into notes (body) values (?)');
    const write = (n: number) => writer.transaction(() => {
      for (let i = 0; i < n; i += 1) insert.run('y'.repeat(3_500));
    })();

    write(300);
    frames = CHECKPOINT_FRAMES;
    const first = checkpoints.next();
    checkpoints.check();
    expect((await first).checkpointed).toBeGreaterThanOrEqual(300);
    await checkpoints.stopped();

    write(300);
    const second = checkpoints.next();
    checkpoints.check();
    expect((await second).checkpointed).toBeGreaterThan(0);
    expect(checkpoints.started).toBe(2);
    await checkpoints.close(() => writer.close());
    closed = true;

    const again = new Sqlite(file, { readonly: true });
    expect(again.prepare('select count(*) as n from notes').get()).toEqual({ n: 600 });
    again.close();
  });

  it.skipIf(process.platform !== 'linux')('closing the database closes the thread\'s connection, then the commit watch\'s descriptor', async () => {
    const { db, file } = await open();
    await writePages(db, CHECKPOINT_FRAMES + 100);
    const checkpoints = sqliteCheckpoints(db)!;
    const done = checkpoints.next();
    checkpoints.check();
    await done;
    // Closing waits for the thread: when it resolves, no descriptor of the shared memory is left.
    await db.destroy();
    cleanups.pop();
    const shm = fs.readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === `${file}-shm`;
      } catch {
        return false;
      }
    });
    expect(shm).toEqual([]);
  });
});
