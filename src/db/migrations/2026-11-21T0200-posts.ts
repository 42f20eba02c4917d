import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('posts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull().references('channels.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('publish_at', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('short_link', 'integer', (c) => c.notNull())
    .addColumn('release_id', 'text')
    .addColumn('release_url', 'text')
    .addColumn('error', 'text')
    .addColumn('error_kind', 'text')
    .addColumn('next_run_at', 'text')
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('posts_calendar_idx').on('posts').columns(['workspace_id', 'publish_at']).execute();
  await db.schema.createIndex('posts_group_idx').on('posts').columns(['workspace_id', 'group_id']).execute();
  await db.schema.createIndex('posts_due_idx').on('posts').columns(['state', 'next_run_at']).execute();
  await db.schema.createIndex('posts_month_idx').on('posts').columns(['workspace_id', 'created_at']).execute();

  // One row per element of `value`: part 0 is the post, 1… the comments under it.
  await db.schema
    .createTable('post_parts')
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('images', 'text', (c) => c.notNull())
    .addColumn('delay_minutes', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('release_id', 'text')
    .addColumn('release_url', 'text')
    .addColumn('release_meta', 'text')
    .addColumn('error', 'text')
    .addColumn('published_at', 'text')
    .addPrimaryKeyConstraint('post_parts_pk', ['post_id', 'idx'])
    .execute();
  await db.schema.createIndex('post_parts_sending_idx').on('post_parts').columns(['state', 'claimed_at']).execute();

  await db.schema
    .createTable('post_media')
    .addColumn('post_id', 'text', (c) => c.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('media_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('post_media_pk', ['post_id', 'media_id'])
    .execute();
  await db.schema.createIndex('post_media_media_idx').on('post_media').column('media_id').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('post_id', 'text')
    .addColumn('channel_id', 'text')
    .addColumn('dedupe_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_list_idx').on('notifications').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('notifications_dedupe_idx').on('notifications').columns(['workspace_id', 'dedupe_key']).unique().execute();

  await db.schema
    .createTable('short_links')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('short_links_post_url_idx').on('short_links').columns(['post_id', 'url']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['short_links', 'notifications', 'idempotency_keys', 'post_media', 'post_parts', 'posts']) {
    await db.schema.dropTable(table).execute();
  }
}
