import type { Kysely } from 'kysely';

/**
 * Recurring posts: a series holds the rule (an RFC 5545 RRULE in a time zone), the composition
 * each occurrence repeats, and how far ahead its occurrences have been written as posts. A post
 * written for an occurrence names its series and the rule's instant it stands for; an occurrence
 * a person edited or deleted is marked, so a later edit of the series leaves it as it is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('post_series')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('starts_local', 'text', (c) => c.notNull())
    .addColumn('until', 'text')
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('materialised_until', 'text', (c) => c.notNull())
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('ended', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('post_series_by_workspace').on('post_series').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('post_series_due').on('post_series').columns(['ended', 'materialised_until']).execute();
  await db.schema.alterTable('posts').addColumn('series_id', 'text').execute();
  await db.schema.alterTable('posts').addColumn('occurrence_at', 'text').execute();
  await db.schema.alterTable('posts').addColumn('series_exception', 'text').execute();
  await db.schema.createIndex('posts_by_series').on('posts').columns(['series_id', 'occurrence_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('posts_by_series').execute();
  await db.schema.alterTable('posts').dropColumn('series_exception').execute();
  await db.schema.alterTable('posts').dropColumn('occurrence_at').execute();
  await db.schema.alterTable('posts').dropColumn('series_id').execute();
  await db.schema.dropTable('post_series').execute();
}
