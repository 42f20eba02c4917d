import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { BACKEND, freshSingleConnection, type FreshDatabase } from '../helpers/backend.ts';

// Herald's migrator asks the database which tables exist. On PostgreSQL it is told those of
// Herald's own schema only: other schemas of the same database (another deployment, another test
// file creating and dropping its own) are neither read nor resolved, so their coming and going
// cannot fail a migration.
let ours: { database: FreshDatabase; db: Db };
let other: { database: FreshDatabase; db: Db };

describe.skipIf(BACKEND !== 'postgres')('introspection (PostgreSQL): Herald’s own schema only', () => {
  beforeAll(async () => {
    ours = await freshSingleConnection();
    other = await freshSingleConnection();
    await sql`create table elsewhere (id serial primary key, note text not null)`.execute(other.db);
    await migrateToLatest(ours.db);
  });
  afterAll(async () => {
    for (const { db, database } of [ours, other]) {
      await db?.destroy();
      await database?.drop();
    }
  });

  it('lists the tables of the current schema, with their columns, and nothing of another schema', async () => {
    const schema = ours.database.target.kind === 'postgres' ? ours.database.target.schema : undefined;
    const tables = await ours.db.introspection.getTables();
    const names = tables.map((t) => t.name);
    expect(names).toContain('posts');
    expect(names).not.toContain('elsewhere');
    expect(names).not.toContain('kysely_migration');
    expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([schema]));
    const posts = tables.find((t) => t.name === 'posts')!;
    expect(posts.isView).toBe(false);
    expect(posts.columns.find((c) => c.name === 'id')).toMatchObject({ isNullable: false, dataType: 'text', isAutoIncrementing: false });
    expect(posts.columns.find((c) => c.name === 'deleted_at')).toMatchObject({ isNullable: true });

    const withInternal = (await ours.db.introspection.getTables({ withInternalKyselyTables: true })).map((t) => t.name);
    expect(withInternal).toContain('kysely_migration');

    // Seen from the other schema: its one table only, its serial column described as Kysely describes one.
    const theirs = await other.db.introspection.getTables();
    expect(theirs.map((t) => t.name)).toEqual(['elsewhere']);
    expect(theirs[0]!.columns).toEqual([
      expect.objectContaining({ name: 'id', isAutoIncrementing: true, hasDefaultValue: true, isNullable: false, dataType: 'int4' }),
      expect.objectContaining({ name: 'note', isAutoIncrementing: false, hasDefaultValue: false, isNullable: false, dataType: 'text' }),
    ]);
  });
});
