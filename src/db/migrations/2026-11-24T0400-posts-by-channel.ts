import type { Kysely } from 'kysely';

/**
 * A channel's waiting posts are read by channel: deleting a channel counts, names and moves to
 * draft its scheduled posts, and refuses while one is being published. Without an index that
 * starts with the channel, those reads went through `posts_due_idx (state, next_run_at)`, over
 * the scheduled posts of every workspace. The due queries read `posts_due_order_idx` since it
 * came, so `posts_due_idx` goes: every update of a post's state still writes the same number of
 * index entries, now into an index that serves a query.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('posts_channel_state_idx').on('posts').columns(['channel_id', 'state', 'publish_at', 'id']).execute();
  await db.schema.dropIndex('posts_due_idx').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('posts_due_idx').on('posts').columns(['state', 'next_run_at']).execute();
  await db.schema.dropIndex('posts_channel_state_idx').execute();
}
