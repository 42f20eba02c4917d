import { sql, type Kysely } from 'kysely';

/**
 * A lane's claim takes the earliest due posts, in (next_run_at, id) order, a batch at a time. Only
 * posts that can come due have a `next_run_at` (a claim clears it), so an index of those alone,
 * in that order, lets each claim read its batch and stop, however many posts are due at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('posts_due_order_idx')
    .on('posts')
    .columns(['next_run_at', 'id'])
    .where(sql.ref('next_run_at'), 'is not', null)
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('posts_due_order_idx').execute();
}
