import type { Kysely } from 'kysely';

/**
 * Approval before publishing: a workspace's setting (the roles whose scheduled posts wait for an
 * approver; no row: none do), and every step of a post's approval (asked for, approved, rejected),
 * who took it, when and with what comment, read by post in time order.
 * A post waiting for approval is in the new state `AWAITING_APPROVAL` (a text column: no change).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('approval_settings')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey())
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('post_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('comment', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A post's steps in order (several may share a millisecond); one step per number.
  await db.schema.createIndex('post_approvals_post_idx').on('post_approvals').columns(['post_id', 'seq']).unique().execute();
  // The posts awaiting approval of a workspace, by date: the approvers' list.
  await db.schema.createIndex('posts_workspace_state_idx').on('posts').columns(['workspace_id', 'state', 'publish_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('posts_workspace_state_idx').execute();
  await db.schema.dropTable('post_approvals').execute();
  await db.schema.dropTable('approval_settings').execute();
}
