import type { Executor } from '../db/database.ts';
import type { ApiKeysTable } from './api-keys.table.ts';

export function insertKey(db: Executor, row: ApiKeysTable) {
  return db.insertInto('api_keys').values(row).execute();
}

export function findKey(db: Executor, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The key, with the current version of access data (see the access-version migration), in one query. */
export function findKeyWithAccessVersion(db: Executor, id: string) {
  return db
    .selectFrom('api_keys')
    .selectAll('api_keys')
    .select((eb) => eb.selectFrom('access_version').select('version').where('access_version.id', '=', 1).as('access_version'))
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
}

export function listKeysOfUser(db: Executor, userId: string) {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
}

export function updateKey(db: Executor, id: string, changes: Partial<Omit<ApiKeysTable, 'id' | 'user_id' | 'kind'>>) {
  return db.updateTable('api_keys').set(changes).where('id', '=', id).executeTakeFirst();
}

export function listKeys(db: Executor) {
  return db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id').execute();
}
