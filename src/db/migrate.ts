import { Migrator, type Kysely } from 'kysely';
import type { Database } from './database.ts';
import { currentSchema } from './dialect.ts';
import { migrations } from './migrations/index.ts';

async function migratorFor(db: Kysely<Database>): Promise<Migrator> {
  const schema = await currentSchema(db);
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema && { migrationTableSchema: schema }),
  });
}

/** Names of the migrations not yet applied to this database. */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const all = await (await migratorFor(db)).getMigrations();
  return all.filter((m) => !m.executedAt).map((m) => m.name);
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = await migratorFor(db);
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
