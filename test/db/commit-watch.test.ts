import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { createKysely, sqliteReader, type SqliteReader } from '../../src/db/connection.ts';
import { processBudget } from '../helpers/process.ts';

// On SQLite, whether anything was committed since a mark is told from the WAL-index header,
// without a read transaction: every request's key check relies on it (a revocation made by any
// process applies on the next request), so a commit must never go unseen.

const run = promisify(execFile);
const opened: Array<{ db: Db; dir: string }> = [];

async function open(): Promise<{ db: Db; reader: SqliteReader; file: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-commits-'));
  const file = path.join(dir, 'herald.db');
  const db = await createKysely({ kind: 'sqlite', file });
  opened.push({ db, dir });
  await sql`create table notes (id integer primary key, body text)`.execute(db);
  return { db, reader: sqliteReader(db)!, file };
}

/** Descriptors of this process open on `file`'s shared-memory file (Linux). */
function shmDescriptors(file: string): number {
  return fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === `${file}-shm`;
    } catch {
      return false;
    }
  }).length;
}

afterEach(async () => {
  for (const { db, dir } of opened.splice(0)) {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

describe('SQLite commit watch', () => {
  it('reads and an idle database leave the mark as it was; a commit through the same database moves it', async () => {
    const { db, reader } = await open();
    const mark = reader.commitMark()!;
    expect(mark).toBeInstanceOf(Buffer);
    expect(reader.all('select * from notes', [])).toEqual([]);
    await sql`select * from notes`.execute(db);
    expect(reader.committedSince(mark)).toBe(false);
    await sql`insert into notes (id, body) values (1, 'one')`.execute(db);
    expect(reader.committedSince(mark)).toBe(true);
    const next = reader.commitMark()!;
    expect(reader.committedSince(next)).toBe(false);
    // A transaction that rolls back publishes nothing.
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`insert into notes (id, body) values (2, 'two')`.execute(trx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(reader.committedSince(next)).toBe(false);
  });

  it('a commit after the log restarts from its beginning moves the mark, even at the same size', async () => {
    const { db, reader } = await open();
    await sql`insert into notes (id, body) values (1, 'one')`.execute(db);
    // Copy every page back into the database and empty the log: the next commit starts it afresh.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    const mark = reader.commitMark()!;
    await sql`update notes set body = 'uno' where id = 1`.execute(db);
    expect(reader.committedSince(mark)).toBe(true);
    const again = reader.commitMark()!;
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    await sql`update notes set body = 'one' where id = 1`.execute(db);
    expect(reader.committedSince(again)).toBe(true);
  });

  it(
    'a commit by another operating-system process moves the mark',
    async () => {
      const { reader, file } = await open();
      const mark = reader.commitMark()!;
      const script = `const Database = require('better-sqlite3'); const db = new Database(process.argv[1]); db.prepare("insert into notes (id, body) values (7, 'from afar')").run(); db.close();`;
      await run(process.execPath, ['-e', script, file], { cwd: process.cwd() });
      expect(reader.committedSince(mark)).toBe(true);
      expect(reader.first('select body from notes where id = 7', [])).toEqual({ body: 'from afar' });
    },
    processBudget(1, 20_000),
  );

  it.skipIf(process.platform !== 'linux')(
    "its descriptor of the shared-memory file is closed with the database, after SQLite's own",
    async () => {
      const { db, file } = await open();
      // SQLite's connections hold the file too; the watch adds one descriptor of its own.
      const before = shmDescriptors(file);
      expect(before).toBeGreaterThanOrEqual(2);
      await db.destroy();
      opened.pop();
      expect(shmDescriptors(file)).toBe(0);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  );
});
