import type { Kysely } from 'kysely';

/**
 * The calendar is read a page at a time in (publish_at, id) order: with the id in the index,
 * each page starts where the last one ended and no page sorts or skips rows it does not return.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('posts_calendar_cursor_idx').on('posts').columns(['workspace_id', 'publish_at', 'id']).execute();
  await db.schema.dropIndex('posts_calendar_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('posts_calendar_idx').on('posts').columns(['workspace_id', 'publish_at']).execute();
  await db.schema.dropIndex('posts_calendar_cursor_idx').execute();
}
