import type { Executor } from '../db/database.ts';
import type { UsersTable } from './users.table.ts';

export function insertUser(db: Executor, row: UsersTable) {
  return db.insertInto('users').values(row).execute();
}

export function findUserById(db: Executor, id: string) {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findUserByEmail(db: Executor, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function listUsers(db: Executor) {
  return db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function deleteUser(db: Executor, id: string) {
  return db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
}

/** Workspaces where the user is the only owner. */
export function listSoleOwnerships(db: Executor, userId: string) {
  return db
    .selectFrom('memberships as mine')
    .innerJoin('workspaces', 'workspaces.id', 'mine.workspace_id')
    .select(['workspaces.id', 'workspaces.name'])
    .where('mine.user_id', '=', userId)
    .where('mine.role', '=', 'owner')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('memberships as other')
            .select('other.user_id')
            .whereRef('other.workspace_id', '=', 'mine.workspace_id')
            .where('other.role', '=', 'owner')
            .whereRef('other.user_id', '!=', 'mine.user_id'),
        ),
      ),
    )
    .orderBy('workspaces.id')
    .execute();
}
