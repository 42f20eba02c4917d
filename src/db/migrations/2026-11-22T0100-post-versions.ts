import type { Kysely } from 'kysely';

/**
 * `posts.version` counts the changes to a post (edits, state moves, claims), so the engine can
 * claim exactly the version it read. `post_parts.lease_until` is how long the worker calling the
 * platform holds its claim; it renews it while the call is in flight.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('posts').addColumn('version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('post_parts').addColumn('lease_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('post_parts').dropColumn('lease_until').execute();
  await db.schema.alterTable('posts').dropColumn('version').execute();
}
