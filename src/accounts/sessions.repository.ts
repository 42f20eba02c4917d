import type { Executor } from '../db/database.ts';
import type { SessionsTable } from './accounts.table.ts';

// Only SessionsService calls these statements (it is the one importer of this module). Beside it, the
// database's foreign keys delete a user's sessions with the user and unset a deleted workspace.

export function insertSession(db: Executor, row: SessionsTable) {
  return db.insertInto('sessions').values(row).execute();
}

export function findSessionByTokenHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id',
      'sessions.user_id',
      'sessions.workspace_id',
      'sessions.created_at',
      'sessions.expires_at',
      'users.email',
      'users.name',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function findSessionById(db: Executor, id: string) {
  return db.selectFrom('sessions').select(['id', 'user_id', 'expires_at']).where('id', '=', id).executeTakeFirst();
}

export function setSessionWorkspace(db: Executor, id: string, workspaceId: string) {
  return db.updateTable('sessions').set({ workspace_id: workspaceId }).where('id', '=', id).executeTakeFirst();
}

export function deleteSession(db: Executor, id: string) {
  return db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst();
}

export function deleteSessionsOfUser(db: Executor, userId: string) {
  return db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
}

export function deleteExpiredSessionsOfUser(db: Executor, userId: string, now: string) {
  return db.deleteFrom('sessions').where('user_id', '=', userId).where('expires_at', '<=', now).executeTakeFirst();
}

export function deleteExpiredSessions(db: Executor, now: string) {
  return db.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
}
