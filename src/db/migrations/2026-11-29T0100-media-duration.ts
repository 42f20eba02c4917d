import type { Kysely } from 'kysely';

/** A video's length in milliseconds, read from its movie header when it is stored (null for images, older files and unreadable headers). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('media').addColumn('duration_ms', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('media').dropColumn('duration_ms').execute();
}
