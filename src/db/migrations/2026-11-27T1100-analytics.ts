import type { Kysely } from 'kysely';

/**
 * Analytics: the platforms' numbers for published posts (and their comments) and for channels'
 * accounts, collected on a decaying schedule and kept as snapshots.
 *
 * - `analytics_channels`: one row per channel whose platform reports numbers: when it is next
 *   due (`next_collect_at`, the earlier of its account's and its posts' next times), the lease
 *   of the worker collecting it, the last on-demand refresh, its account's latest numbers.
 * - `analytics_posts`: one row per published part (post or comment): its latest numbers and
 *   when it is next looked at (null once past the collection horizon).
 * - `analytics_post_snapshots`: a part's numbers over time; a snapshot is written only when the
 *   numbers changed, and collection stops at the horizon, so a part has a bounded number of them.
 * - `analytics_channel_snapshots`: an account's numbers, one row per channel and UTC day (the
 *   day's last reading), so the history grows by one row per channel per day at most.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_channels')
    .addColumn('channel_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('next_collect_at', 'text', (c) => c.notNull())
    .addColumn('account_next_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('lease_by', 'text')
    .addColumn('refreshed_at', 'text')
    .addColumn('metrics', 'text')
    .addColumn('metrics_updated_at', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('analytics_channels_due_idx').on('analytics_channels').columns(['active', 'next_collect_at']).execute();

  await db.schema
    .createTable('analytics_posts')
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text', (c) => c.notNull())
    .addColumn('release_meta', 'text')
    .addColumn('published_at', 'text', (c) => c.notNull())
    .addColumn('next_collect_at', 'text')
    .addColumn('metrics', 'text')
    .addColumn('raw', 'text')
    .addColumn('metrics_updated_at', 'text')
    .addPrimaryKeyConstraint('analytics_posts_pk', ['post_id', 'part'])
    .execute();
  await db.schema.createIndex('analytics_posts_due_idx').on('analytics_posts').columns(['channel_id', 'next_collect_at']).execute();
  await db.schema
    .createIndex('analytics_posts_published_idx')
    .on('analytics_posts')
    .columns(['workspace_id', 'published_at'])
    .execute();

  await db.schema
    .createTable('analytics_post_snapshots')
    .addColumn('post_id', 'text', (c) => c.notNull())
    .addColumn('part', 'integer', (c) => c.notNull())
    .addColumn('collected_at', 'text', (c) => c.notNull())
    .addColumn('metrics', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_post_snapshots_pk', ['post_id', 'part', 'collected_at'])
    .execute();

  await db.schema
    .createTable('analytics_channel_snapshots')
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('collected_at', 'text', (c) => c.notNull())
    .addColumn('metrics', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_channel_snapshots_pk', ['channel_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['analytics_channel_snapshots', 'analytics_post_snapshots', 'analytics_posts', 'analytics_channels'])
    await db.schema.dropTable(table).execute();
}
