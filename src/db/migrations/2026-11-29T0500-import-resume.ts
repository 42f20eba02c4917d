import type { Kysely } from 'kysely';

/**
 * What a running import needs to go on in another process after a stop or a crash: its rows and
 * who started it (kept until it ends), and a lease held by the process running it, renewed as it
 * goes; an import whose lease has run out is taken over.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('post_imports').addColumn('rows', 'text').execute();
  await db.schema.alterTable('post_imports').addColumn('principal', 'text').execute();
  await db.schema.alterTable('post_imports').addColumn('runner', 'text').execute();
  await db.schema.alterTable('post_imports').addColumn('lease_until', 'text').execute();
  await db.schema.createIndex('post_imports_running_idx').on('post_imports').columns(['status', 'lease_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('post_imports_running_idx').execute();
  for (const column of ['lease_until', 'runner', 'principal', 'rows']) await db.schema.alterTable('post_imports').dropColumn(column).execute();
}
