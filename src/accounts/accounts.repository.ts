import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { InvitationsTable, SignInLinksTable } from './accounts.table.ts';

/**
 * Counts one request against an address's window, in one statement that is the same whether
 * or not the address was ever seen (the row is created on the first count). Returns the counts.
 */
export function countAgainstAddress(
  db: Executor,
  email: string,
  field: 'starts_in_window' | 'verifies_in_window',
  now: string,
  windowStartCutoff: string,
) {
  const other = field === 'starts_in_window' ? 'verifies_in_window' : 'starts_in_window';
  const stale = sql<boolean>`sign_in_codes.window_started_at <= ${windowStartCutoff}`;
  return db
    .insertInto('sign_in_codes')
    .values({
      email,
      code_hash: null,
      expires_at: null,
      attempts: 0,
      window_started_at: now,
      starts_in_window: field === 'starts_in_window' ? 1 : 0,
      verifies_in_window: field === 'verifies_in_window' ? 1 : 0,
    })
    .onConflict((oc) =>
      oc.column('email').doUpdateSet({
        [field]: sql`CASE WHEN ${stale} THEN 1 ELSE sign_in_codes.${sql.ref(field)} + 1 END`,
        [other]: sql`CASE WHEN ${stale} THEN 0 ELSE sign_in_codes.${sql.ref(other)} END`,
        window_started_at: sql`CASE WHEN ${stale} THEN ${now} ELSE sign_in_codes.window_started_at END`,
      }),
    )
    .returning(['starts_in_window', 'verifies_in_window'])
    .executeTakeFirstOrThrow();
}

/** Stores a new code for an address, replacing the one before and its tries. */
export function replaceCode(db: Executor, email: string, codeHash: string, expiresAt: string) {
  return db
    .updateTable('sign_in_codes')
    .set({ code_hash: codeHash, expires_at: expiresAt, attempts: 0 })
    .where('email', '=', email)
    .executeTakeFirst();
}

export function findCode(db: Executor, email: string) {
  return db.selectFrom('sign_in_codes').selectAll().where('email', '=', email).executeTakeFirst();
}

/** Counts a wrong try; the code dies at `maxAttempts`. */
export function countWrongTry(db: Executor, email: string, codeHash: string, maxAttempts: number) {
  return db
    .updateTable('sign_in_codes')
    .set({
      attempts: sql`attempts + 1`,
      code_hash: sql`CASE WHEN attempts + 1 >= ${maxAttempts} THEN NULL ELSE code_hash END`,
    })
    .where('email', '=', email)
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

/** Uses a code up: succeeds for one caller only. */
export function consumeCode(db: Executor, email: string, codeHash: string) {
  return db
    .updateTable('sign_in_codes')
    .set({ code_hash: null, expires_at: null, attempts: 0 })
    .where('email', '=', email)
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

/** Rows of addresses whose window is over and whose code is gone or dead: they hold nothing any more. */
export function deleteIdleCodes(db: Executor, windowStartCutoff: string, now: string) {
  return db
    .deleteFrom('sign_in_codes')
    .where('window_started_at', '<=', windowStartCutoff)
    .where((eb) => eb.or([eb('code_hash', 'is', null), eb('expires_at', '<=', now)]))
    .executeTakeFirst();
}

export function upsertInvitation(db: Executor, row: InvitationsTable) {
  return db
    .insertInto('invitations')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'email'])
        .doUpdateSet({ role: row.role, invited_by: row.invited_by, created_at: row.created_at, expires_at: row.expires_at }),
    )
    .execute();
}

export function listInvitationsOfWorkspace(db: Executor, workspaceId: string, now: string) {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('expires_at', '>', now)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function listInvitationsOfEmail(db: Executor, email: string, now: string) {
  return db.selectFrom('invitations').selectAll().where('email', '=', email).where('expires_at', '>', now).orderBy('created_at').execute();
}

/** The live invitations sent to an address, with their workspace's name and who sent them. */
export function listInvitationsToEmail(db: Executor, email: string, now: string, onlyId?: string) {
  let query = db
    .selectFrom('invitations')
    .innerJoin('workspaces', 'workspaces.id', 'invitations.workspace_id')
    .leftJoin('users', 'users.id', 'invitations.invited_by')
    .select([
      'invitations.id',
      'invitations.workspace_id',
      'workspaces.name as workspace_name',
      'invitations.role',
      'invitations.invited_by',
      'users.email as invited_by_email',
      'invitations.expires_at',
    ])
    .where('invitations.email', '=', email)
    .where('invitations.expires_at', '>', now);
  if (onlyId !== undefined) query = query.where('invitations.id', '=', onlyId);
  return query.orderBy('invitations.created_at').orderBy('invitations.id').execute();
}

/** Deletes an invitation sent to an address: succeeds for one caller only. */
export function deleteInvitationToEmail(db: Executor, id: string, email: string) {
  return db.deleteFrom('invitations').where('id', '=', id).where('email', '=', email).executeTakeFirst();
}

export function deleteInvitation(db: Executor, workspaceId: string, id: string) {
  return db.deleteFrom('invitations').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function insertSignInLink(db: Executor, row: SignInLinksTable) {
  return db.insertInto('sign_in_links').values(row).execute();
}

/** Uses a link up: succeeds for one caller only, while it is valid. */
export function consumeSignInLink(db: Executor, tokenHash: string, now: string) {
  return db
    .updateTable('sign_in_links')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id'])
    .executeTakeFirst();
}
