import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkpointInBackground } from '../../src/db/checkpoints.ts';
import { checkpointsOf, createKysely, stopBackgroundCheckpoints } from '../../src/db/connection.ts';
import type { Db } from '../../src/db/database.ts';

// A long-running server leaves SQLite's checkpoints to a worker thread: no commit copies the log
// into the database file on the event loop. The worker checkpoints what the writer commits, the
// writer takes checkpoints back when the worker stops (or never starts), and the database closes
// as before, its log folded in.

const require = createRequire(import.meta.url);
const dirs: string[] = [];

function newFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-checkpoints-'));
  dirs.push(dir);
  return path.join(dir, 'herald.db');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const autocheckpoint = async (db: Db) => Number(Object.values((await sql`pragma wal_autocheckpoint`.execute(db)).rows[0] as object)[0]);

/** Commits `count` rows of 4 KiB, one transaction each: about a page of log per commit. */
async function write(db: Db, count: number, from = 0): Promise<void> {
  for (let i = from; i < from + count; i++) await sql`insert into notes (id, body) values (${i}, ${'x'.repeat(4096)})`.execute(db);
}

describe('SQLite checkpoints in a worker thread', () => {
  it("checkpoint what the writer commits, while the writer's commits checkpoint nothing; the database closes with its log folded in", async () => {
    const file = newFile();
    const db = await createKysely({ kind: 'sqlite', file }, { backgroundCheckpoints: true });
    await sql`create table notes (id integer primary key, body text)`.execute(db);
    expect(await autocheckpoint(db)).toBe(0);
    const checkpointed: number[] = [];
    const copied = new Promise<void>((resolve) =>
      checkpointsOf(db)!.onCheckpoint(({ checkpointed: pages }) => {
        checkpointed.push(pages);
        resolve();
      }),
    );
    // Past SQLite's 1,000 pages: without the worker, a commit would have checkpointed.
    await write(db, 1200);
    await copied;
    expect(checkpointed[0]).toBeGreaterThan(0);
    const counted = await sql<{ n: number }>`select count(*) as n from notes`.execute(db);
    expect(counted.rows[0]!.n).toBe(1200);

    await stopBackgroundCheckpoints(db);
    expect(await autocheckpoint(db)).toBe(1000);
    await db.destroy();
    // The writer's connection closed last: SQLite folded the log into the file and removed it.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reopened = await createKysely({ kind: 'sqlite', file });
    const again = await sql<{ n: number; body: string }>`select count(*) as n, max(body) as body from notes`.execute(reopened);
    expect(again.rows[0]).toEqual({ n: 1200, body: 'x'.repeat(4096) });
    await reopened.destroy();
  });

  it('a database opened without them checkpoints in its commits, as SQLite does by default', async () => {
    const db = await createKysely({ kind: 'sqlite', file: newFile() });
    await sql`create table notes (id integer primary key, body text)`.execute(db);
    expect(checkpointsOf(db)).toBeUndefined();
    expect(await autocheckpoint(db)).toBe(1000);
    await db.destroy();
  });

  it('the writer takes checkpoints back when the worker fails', async () => {
    const file = newFile();
    const Sqlite = require('better-sqlite3') as typeof SqliteDatabase;
    const writer = new Sqlite(file);
    writer.pragma('journal_mode = WAL');
    // A driver the worker cannot load: it fails as it starts.
    const checkpoints = checkpointInBackground(writer, { file, driver: path.join(path.dirname(file), 'no-such-driver.js') });
    expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    await vi.waitFor(() => expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1000), { timeout: 20_000, interval: 20 });
    await checkpoints.stop();
    writer.close();
  });
});
