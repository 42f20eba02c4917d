import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * One counter that every change to what a channel list shows moves: a channel added, removed,
 * renamed, disabled or enabled, moved to another client group; a client group renamed or
 * removed; a workspace removed. As with the access version, the database moves it itself
 * (triggers), so API processes may keep channel lists read at the version a request sees. A
 * channel's credentials (refreshed tokens) move nothing: no list shows them.
 */
const WATCHED: Array<{ table: string; events: string[] }> = [
  {
    table: 'channels',
    events: ['INSERT', 'UPDATE OF id, workspace_id, provider, name, picture, profile, disabled, disabled_reason, client_group_id, created_at', 'DELETE'],
  },
  { table: 'client_groups', events: ['UPDATE OF id, name', 'DELETE'] },
  { table: 'workspaces', events: ['DELETE'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channels_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute();
  await db.insertInto('channels_version').values({ id: 1, version: 0 }).execute();

  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`CREATE FUNCTION channels_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE channels_version SET version = version + 1 WHERE id = 1; RETURN NULL; END $$`.execute(db);
    for (const { table, events } of WATCHED) {
      await sql
        .raw(`CREATE TRIGGER ${table}_channels_version AFTER ${events.join(' OR ')} ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION channels_version_bump()`)
        .execute(db);
    }
    return;
  }
  // SQLite has row triggers only, one event each.
  for (const { table, events } of WATCHED) {
    for (const [i, event] of events.entries()) {
      await sql
        .raw(`CREATE TRIGGER ${table}_channels_version_${i} AFTER ${event} ON ${table} BEGIN UPDATE channels_version SET version = version + 1 WHERE id = 1; END`)
        .execute(db);
    }
  }
}
