import type { Db, Executor } from '../db/database.ts';
import { sqliteReader, type SqliteReader } from '../db/connection.ts';
import { precompiledReadFirst } from '../db/precompiled.ts';
import type { ApiKeysTable } from './api-keys.table.ts';

export function insertKey(db: Executor, row: ApiKeysTable) {
  return db.insertInto('api_keys').values(row).execute();
}

export function findKey(db: Executor, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

const keyWithVersions = precompiledReadFirst((db, param) =>
  db
    .selectFrom('api_keys')
    .selectAll('api_keys')
    .select((eb) => eb.selectFrom('access_version').select('version').where('access_version.id', '=', 1).as('access_version'))
    .select((eb) => eb.selectFrom('channels_version').select('version').where('channels_version.id', '=', 1).as('channels_version'))
    .where('api_keys.id', '=', param('id')),
);

/**
 * The key, with the current versions of access data and of channel lists (see the
 * access-version and channels-version migrations), in one query compiled once: every
 * authenticated request makes it.
 */
export function findKeyWithVersions(db: Executor, id: string) {
  return keyWithVersions(db, { id });
}

const versions = precompiledReadFirst((db) =>
  db
    .selectFrom('access_version')
    .select('access_version.version as access_version')
    .select((eb) => eb.selectFrom('channels_version').select('version').where('channels_version.id', '=', 1).as('channels_version'))
    .where('access_version.id', '=', 1),
);

/** The current versions of access data and of channel lists, alone. */
export function findVersions(db: Executor) {
  return versions(db, {});
}

/** Tells whether anything was committed since a mark, without reading a table (see `SqliteReader.committedSince`). */
export type CommitWatch = Pick<SqliteReader, 'commitMark' | 'committedSince'>;

/** Where reads are in-process (SQLite), the database's commit watch; undefined elsewhere. The same answer for the database's whole life. */
export function commitWatch(db: Db): CommitWatch | undefined {
  return sqliteReader(db);
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
