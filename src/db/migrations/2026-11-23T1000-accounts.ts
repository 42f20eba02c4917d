import type { Kysely } from 'kysely';

/** Sign-in codes, browser sessions, invitations and one-time sign-in links. */
export async function up(db: Kysely<any>): Promise<void> {
  // One row per e-mail address: the current code (a new one replaces it) and the address's counters.
  await db.schema
    .createTable('sign_in_codes')
    .addColumn('email', 'text', (c) => c.primaryKey())
    .addColumn('code_hash', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('window_started_at', 'text', (c) => c.notNull())
    .addColumn('starts_in_window', 'integer', (c) => c.notNull())
    .addColumn('verifies_in_window', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sign_in_codes_window_idx').on('sign_in_codes').column('window_started_at').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('invitations_workspace_email_unique', ['workspace_id', 'email'])
    .execute();
  await db.schema.createIndex('invitations_email_idx').on('invitations').column('email').execute();

  await db.schema
    .createTable('sign_in_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
}
