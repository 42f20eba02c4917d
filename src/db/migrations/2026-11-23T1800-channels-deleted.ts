import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Deleting a channel keeps its posts: the channel is marked deleted (`deleted_at`) instead of
 * removed, so its drafts and published history stay readable, and connecting the same account
 * again restores it under the same id. Marking and restoring change what channel lists show,
 * so both move the channels version, as every other such change does.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channels').addColumn('deleted_at', 'text').execute();
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`CREATE TRIGGER channels_deleted_channels_version AFTER UPDATE OF deleted_at ON channels FOR EACH STATEMENT EXECUTE FUNCTION channels_version_bump()`.execute(db);
    return;
  }
  await sql`CREATE TRIGGER channels_deleted_channels_version AFTER UPDATE OF deleted_at ON channels BEGIN UPDATE channels_version SET version = version + 1 WHERE id = 1; END`.execute(db);
}
