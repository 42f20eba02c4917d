import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upload_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('upload_links_workspace_idx').on('upload_links').column('workspace_id').execute();

  await db.schema
    .createTable('media')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('upload_link_id', 'text', (c) => c.references('upload_links.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The deduplication rule itself: one row per content per workspace, enforced by the database.
  await db.schema.createIndex('media_workspace_sha256_uq').on('media').columns(['workspace_id', 'sha256']).unique().execute();
  await db.schema.createIndex('media_workspace_created_idx').on('media').columns(['workspace_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('upload_link_files')
    .addColumn('upload_link_id', 'text', (c) => c.notNull().references('upload_links.id').onDelete('cascade'))
    .addColumn('media_id', 'text', (c) => c.notNull().references('media.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upload_link_files_pk', ['upload_link_id', 'media_id'])
    .execute();
  await db.schema.createIndex('upload_link_files_media_idx').on('upload_link_files').column('media_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['upload_link_files', 'media', 'upload_links']) {
    await db.schema.dropTable(table).execute();
  }
}
