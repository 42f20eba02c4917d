import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * One counter that every change to who may do what moves: a key's secret, scopes, limits or
 * revocation; a membership or role; a workspace (its plan); a user's removal. The database
 * moves it itself, with triggers, so no write path (service, operator command or hand-written
 * SQL) can forget to; API processes compare it with the version their cached memberships were
 * read at. A key's last-used time moves nothing.
 */
const WATCHED: Array<{ table: string; events: string[] }> = [
  { table: 'memberships', events: ['INSERT', 'UPDATE', 'DELETE'] },
  { table: 'api_keys', events: ['UPDATE OF user_id, kind, secret_hash, scopes, channel_ids, workspace_id, revoked_at', 'DELETE'] },
  { table: 'workspaces', events: ['UPDATE', 'DELETE'] },
  { table: 'users', events: ['DELETE'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('access_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('access_version').values({ id: 1, version: 0 }).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`CREATE FUNCTION access_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE access_version SET version = version + 1 WHERE id = 1; RETURN NULL; END $$`.execute(db);
    for (const { table, events } of WATCHED) {
      await sql
        .raw(`CREATE TRIGGER ${table}_access_version AFTER ${events.join(' OR ')} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION access_version_bump()`)
        .execute(db);
    }
    return;
  }
  // SQLite has row triggers only, one event each.
  for (const { table, events } of WATCHED) {
    for (const [i, event] of events.entries()) {
      await sql
        .raw(`CREATE TRIGGER ${table}_access_version_${i} AFTER ${event} ON ${table} BEGIN UPDATE access_version SET version = version + 1 WHERE id = 1; END`)
        .execute(db);
    }
  }
}
