import type { Kysely } from 'kysely';

/**
 * Each member's read marker in each workspace: the newest notification they have read (its time
 * and id, the list's order), so the unread count follows the member from browser to browser.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_reads')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('read_at', 'text', (c) => c.notNull())
    .addColumn('read_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('notification_reads_pk', ['workspace_id', 'user_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_reads').execute();
}
