import type { Kysely } from 'kysely';

/**
 * Posting schedules: one row per channel with a weekly schedule of its own, and one per workspace
 * for its default (`channel_id` empty). `slots` is a JSON array of `{day, time}`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('posting_schedules')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('slots', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('posting_schedules_pk', ['workspace_id', 'channel_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('posting_schedules').execute();
}
