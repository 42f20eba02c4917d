import { sql, type Kysely } from 'kysely';

/**
 * What each upload link has taken so far (files, bytes), kept on the link's row so a new file
 * is admitted by one conditional update: concurrent uploads through one link cannot go past
 * its limits. Existing links start from the files already recorded for them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('upload_links').addColumn('files_used', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('upload_links').addColumn('bytes_used', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await sql`UPDATE upload_links SET
      files_used = (SELECT count(*) FROM upload_link_files f WHERE f.upload_link_id = upload_links.id),
      bytes_used = (SELECT coalesce(sum(m.size), 0) FROM upload_link_files f JOIN media m ON m.id = f.media_id WHERE f.upload_link_id = upload_links.id)`.execute(db);
}
