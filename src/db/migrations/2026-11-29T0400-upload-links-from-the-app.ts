import { PostgresAdapter, sql, type Kysely } from 'kysely';

const CREATOR_CHECK = sql`(created_by_session = 1 AND created_by_key_id IS NULL AND created_by_grant_id IS NULL)
  OR (created_by_session = 0 AND (created_by_key_id IS NULL) <> (created_by_grant_id IS NULL))`;

/**
 * An upload link can also be made in the web app, with the browser session: such a link records
 * neither a key nor a grant, only its member (`created_by_session = 1`). The check that a link
 * names exactly one creating credential is widened to allow that.
 *
 * SQLite cannot change a CHECK constraint: the table is rebuilt with foreign keys off, as in
 * 2026-11-24T0200-upload-link-creators (the files and media recorded for the links keep
 * referring to `upload_links` by name, which the rebuilt table takes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await db.schema.alterTable('upload_links').addColumn('created_by_session', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await sql`ALTER TABLE upload_links DROP CONSTRAINT upload_links_creator_ck`.execute(db);
    await sql`ALTER TABLE upload_links ADD CONSTRAINT upload_links_creator_ck CHECK (${CREATOR_CHECK})`.execute(db);
    return;
  }
  await sql`PRAGMA foreign_keys = OFF`.execute(db);
  try {
    await db.schema
      .createTable('upload_links_rebuilt')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_by_key_id', 'text', (c) => c.references('api_keys.id').onDelete('cascade'))
      .addColumn('created_by_grant_id', 'text')
      .addColumn('created_by_session', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_by_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('files_used', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes_used', 'bigint', (c) => c.notNull().defaultTo(0))
      .addCheckConstraint('upload_links_creator_ck', CREATOR_CHECK)
      .execute();
    await sql`INSERT INTO upload_links_rebuilt (id, workspace_id, token_hash, created_by_key_id, created_by_grant_id, created_by_session, created_by_user_id, created_at, expires_at, files_used, bytes_used)
      SELECT id, workspace_id, token_hash, created_by_key_id, created_by_grant_id, 0, created_by_user_id, created_at, expires_at, files_used, bytes_used
      FROM upload_links`.execute(db);
    await db.schema.dropTable('upload_links').execute();
    await sql`ALTER TABLE upload_links_rebuilt RENAME TO upload_links`.execute(db);
    await db.schema.createIndex('upload_links_workspace_idx').on('upload_links').column('workspace_id').execute();
    const broken = await sql<Record<string, unknown>>`PRAGMA foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`Rebuilding upload_links broke ${broken.rows.length} references: ${JSON.stringify(broken.rows.slice(0, 5))}`);
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
