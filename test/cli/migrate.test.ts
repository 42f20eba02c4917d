import { DEFAULT_MIGRATION_TABLE, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKysely } from '../../src/db/connection.ts';
import { migrateToLatest, pendingMigrations } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { freshDatabase, freshDatabaseUrl } from '../helpers/backend.ts';
import { herald, processBudget } from '../helpers/process.ts';

let env: Record<string, string>;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, SECRET_KEY: 'ab'.repeat(32) };
}, 60_000);

afterAll(async () => {
  await drop?.();
});

describe('herald migrate (migrations once per release)', () => {
  it(
    'a process started with MIGRATE_ON_START=false refuses a database that lacks migrations, naming the command',
    async () => {
      const result = await herald(['serve'], { ...env, MIGRATE_ON_START: 'false', PORT: '0', HOST: '127.0.0.1' });
      expect(result.code).toBe(78);
      expect(result.stderr).toMatch(/lacks \d+ migration\(s\).*run `herald migrate`/);
      expect(result.stderr).not.toMatch(/ at .*\.ts:\d+/);
    },
    processBudget(1),
  );

  it(
    'applies the pending migrations once, then reports the database up to date',
    async () => {
      const first = await herald(['migrate', '--json'], env);
      expect(first.code, first.stderr).toBe(0);
      const applied = (JSON.parse(first.stdout) as { applied: string[] }).applied;
      expect(applied.length).toBeGreaterThan(0);
      expect(applied[0]).toMatch(/foundation/);
      const again = await herald(['migrate'], env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout.trim()).toBe('the database is up to date');
      // And now the admin commands run without migrating anything.
      const ws = await herald(['admin', 'workspace', 'create', '--name', 'After', '--json'], { ...env, MIGRATE_ON_START: 'false' });
      expect(ws.code, ws.stderr).toBe(0);
    },
    processBudget(3),
  );
});

describe('the migration check at start-up', () => {
  const names = Object.keys(migrations);

  it('finds an up-to-date database in one read of the migration table, and leaves every other state to the migrator', async () => {
    const fresh = await freshDatabase();
    const statements: string[] = [];
    const db = await createKysely(fresh.target, { onQuery: (query) => statements.push(query.sql) });
    try {
      expect(await pendingMigrations(db)).toEqual(names);
      expect(await migrateToLatest(db)).toEqual(names);

      // Up to date: the one read (and, on PostgreSQL, the schema it is in), no lock, no transaction.
      statements.length = 0;
      expect(await migrateToLatest(db)).toEqual([]);
      expect(await pendingMigrations(db)).toEqual([]);
      const reads = statements.filter((text) => text.includes(DEFAULT_MIGRATION_TABLE));
      expect(reads).toHaveLength(2);
      expect(statements.length).toBe(fresh.target.kind === 'postgres' ? 4 : 2);

      // A migration this version has and the database lacks is pending, as the migrator reports it.
      const newest = names[names.length - 1]!;
      const table = sql.table(
        fresh.target.kind === 'postgres' ? `${fresh.target.schema}.${DEFAULT_MIGRATION_TABLE}` : DEFAULT_MIGRATION_TABLE,
      );
      const [row] = (
        await sql<{ name: string; timestamp: string }>`select name, timestamp from ${table} where name = ${newest}`.execute(db)
      ).rows;
      await sql`delete from ${table} where name = ${newest}`.execute(db);
      expect(await pendingMigrations(db)).toEqual([newest]);
      await sql`insert into ${table} (name, timestamp) values (${newest}, ${row!.timestamp})`.execute(db);

      // A migration the database records and this version does not know is refused, as before.
      await sql`insert into ${table} (name, timestamp) values (${'9999-12-31T2300-from-a-newer-version'}, ${row!.timestamp})`.execute(db);
      await expect(migrateToLatest(db)).rejects.toThrow(/9999-12-31T2300-from-a-newer-version/);
    } finally {
      await db.destroy();
      await fresh.drop();
    }
  }, 60_000);
});
