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
