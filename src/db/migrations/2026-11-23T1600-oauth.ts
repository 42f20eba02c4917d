import type { Kysely } from 'kysely';

/**
 * What the OAuth authorization server keeps: clients, grants, codes, tokens, device codes,
 * interactions and its own signing and cookie keys, one row each, so every API process shares
 * them. Rows are found by the SHA-256 of their id (a token's id is the token itself: never
 * stored). The user, workspace and client are copied out of the payload to list and revoke.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id_hash', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('user_code_hash', 'text')
    .addColumn('user_id', 'text')
    .addColumn('workspace_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('consumed_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('oauth_records_grant_idx').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid_idx').on('oauth_records').column('uid').execute();
  await db.schema.createIndex('oauth_records_user_code_idx').on('oauth_records').column('user_code_hash').execute();
  await db.schema.createIndex('oauth_records_user_idx').on('oauth_records').columns(['user_id', 'model']).execute();
  await db.schema.createIndex('oauth_records_client_idx').on('oauth_records').column('client_id').execute();
  await db.schema.createIndex('oauth_records_expires_idx').on('oauth_records').column('expires_at').execute();
}
