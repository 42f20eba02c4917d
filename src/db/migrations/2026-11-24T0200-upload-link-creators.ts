import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * An upload link is made by an API key or by an OAuth access token: the link records which
 * (the key, or the grant the token belongs to) and the user, so it stops working as soon as that
 * credential could no longer upload. Existing links were all made by keys: their user is the
 * key's owner.
 *
 * SQLite cannot drop a NOT NULL constraint: the table is rebuilt with foreign keys off (a
 * migration on SQLite runs outside a transaction), so dropping the old table neither deletes the
 * files recorded for its links nor clears the links of media; both keep referring to
 * `upload_links` by name, which the rebuilt table takes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`ALTER TABLE upload_links ALTER COLUMN created_by_key_id DROP NOT NULL`.execute(db);
    await db.schema.alterTable('upload_links').addColumn('created_by_grant_id', 'text').execute();
    await db.schema.alterTable('upload_links').addColumn('created_by_user_id', 'text', (c) => c.references('users.id').onDelete('cascade')).execute();
    await sql`UPDATE upload_links SET created_by_user_id = (SELECT k.user_id FROM api_keys k WHERE k.id = upload_links.created_by_key_id)`.execute(db);
    await sql`ALTER TABLE upload_links ALTER COLUMN created_by_user_id SET NOT NULL`.execute(db);
    await sql`ALTER TABLE upload_links ADD CONSTRAINT upload_links_creator_ck CHECK ((created_by_key_id IS NULL) <> (created_by_grant_id IS NULL))`.execute(db);
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
      .addColumn('created_by_user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('files_used', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bytes_used', 'bigint', (c) => c.notNull().defaultTo(0))
      .addCheckConstraint('upload_links_creator_ck', sql`(created_by_key_id IS NULL) <> (created_by_grant_id IS NULL)`)
      .execute();
    await sql`INSERT INTO upload_links_rebuilt (id, workspace_id, token_hash, created_by_key_id, created_by_grant_id, created_by_user_id, created_at, expires_at, files_used, bytes_used)
      SELECT l.id, l.workspace_id, l.token_hash, l.created_by_key_id, NULL, k.user_id, l.created_at, l.expires_at, l.files_used, l.bytes_used
      FROM upload_links l JOIN api_keys k ON k.id = l.created_by_key_id`.execute(db);
    await db.schema.dropTable('upload_links').execute();
    await sql`ALTER TABLE upload_links_rebuilt RENAME TO upload_links`.execute(db);
    await db.schema.createIndex('upload_links_workspace_idx').on('upload_links').column('workspace_id').execute();
    const broken = await sql<Record<string, unknown>>`PRAGMA foreign_key_check`.execute(db);
    if (broken.rows.length > 0) throw new Error(`Rebuilding upload_links broke ${broken.rows.length} references: ${JSON.stringify(broken.rows.slice(0, 5))}`);
  } finally {
    await sql`PRAGMA foreign_keys = ON`.execute(db);
  }
}
