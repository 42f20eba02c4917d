import type { Kysely } from 'kysely';

/**
 * Connecting channels through the API: the platform's own id for a channel's account (so a
 * second sign-in reconnects the same channel), its preferred post settings, the OAuth clients
 * registered per platform host, and the single-use states of browser sign-ins under way.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channels').addColumn('internal_id', 'text').execute();
  await db.schema.alterTable('channels').addColumn('preferred_settings', 'text').execute();
  await db.schema.createIndex('channels_account_idx').on('channels').columns(['workspace_id', 'provider', 'internal_id']).execute();

  await db.schema
    .createTable('oauth_apps')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_apps_pk', ['provider', 'host', 'redirect_uri'])
    .execute();

  await db.schema
    .createTable('connect_states')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text')
    .addColumn('client_group_id', 'text')
    .addColumn('pending', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('connect_states_expires_idx').on('connect_states').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('connect_states').execute();
  await db.schema.dropTable('oauth_apps').execute();
  await db.schema.dropIndex('channels_account_idx').execute();
  await db.schema.alterTable('channels').dropColumn('preferred_settings').execute();
  await db.schema.alterTable('channels').dropColumn('internal_id').execute();
}
