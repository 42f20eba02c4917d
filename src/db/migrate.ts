import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { currentSchema } from './sql.ts';
import { migrations } from './migrations/index.ts';

function migratorFor(db: Kysely<Database>, schema: string | undefined): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema && { migrationTableSchema: schema }),
  });
}

/**
 * True when the database records exactly the migrations this version has, read in one query.
 * That is what nearly every start and operator command finds, and the migrator would take its
 * lock, check its tables (reading every table's columns on SQLite) and open a transaction to find
 * it. Anything else (no migration table yet, a pending or an unknown migration, an unreachable
 * database) is left to the migrator, which applies, refuses or fails exactly as it always did.
 */
async function upToDate(db: Kysely<Database>, schema: string | undefined): Promise<boolean> {
  try {
    const table = sql.table(schema ? `${schema}.${DEFAULT_MIGRATION_TABLE}` : DEFAULT_MIGRATION_TABLE);
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    const known = Object.keys(migrations);
    return applied.size === known.length && known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const schema = await currentSchema(db);
  if (await upToDate(db, schema)) return [];
  const all = await migratorFor(db, schema).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const schema = await currentSchema(db);
  if (await upToDate(db, schema)) return [];
  const { error, results } = await migratorFor(db, schema).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
