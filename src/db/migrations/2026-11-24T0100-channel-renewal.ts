import type { Kysely } from 'kysely';

/**
 * A claim on renewing a channel's credentials, so that one Herald process at a time renews them:
 * some platforms (X) rotate refresh tokens on every renewal, and a second process renewing with
 * the same refresh token would be refused. `renewing_until` is when the claim lapses (a renewer
 * that crashed lets go by itself); `renewing_by` names the holder, so only it releases the claim.
 * Neither is shown in any channel list, so neither moves the channels version.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channels').addColumn('renewing_until', 'text').execute();
  await db.schema.alterTable('channels').addColumn('renewing_by', 'text').execute();
}
