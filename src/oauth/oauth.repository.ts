import type { Executor } from '../db/database.ts';
import { precompiledReadFirst } from '../db/precompiled.ts';
import type { OAuthRecordsTable } from './oauth.table.ts';

export function upsertRecord(db: Executor, row: OAuthRecordsTable) {
  const { model: _model, id_hash: _id, ...changes } = row;
  return db
    .insertInto('oauth_records')
    .values(row)
    .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(changes))
    .execute();
}

export function findRecord(db: Executor, model: string, idHash: string) {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where('id_hash', '=', idHash).executeTakeFirst();
}

export function findRecordBy(db: Executor, model: string, column: 'uid' | 'user_code_hash', value: string) {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where(column, '=', value).executeTakeFirst();
}

export function consumeRecord(db: Executor, model: string, idHash: string, at: number) {
  return db.updateTable('oauth_records').set({ consumed_at: at }).where('model', '=', model).where('id_hash', '=', idHash).execute();
}

export function deleteRecord(db: Executor, model: string, idHash: string) {
  return db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', '=', idHash).execute();
}

/** Every code and token of a grant (and the grant itself when `model` is undefined). */
export function deleteByGrant(db: Executor, grantId: string, model?: string) {
  let query = db.deleteFrom('oauth_records').where('grant_id', '=', grantId);
  if (model !== undefined) query = query.where('model', '=', model);
  return query.execute();
}

/** A registered client that was to expire unless used is kept. */
export function keepClient(db: Executor, clientId: string) {
  return db
    .updateTable('oauth_records')
    .set({ expires_at: null })
    .where('model', '=', 'Client')
    .where('client_id', '=', clientId)
    .where('expires_at', 'is not', null)
    .execute();
}

export function deleteByClient(db: Executor, clientId: string) {
  return db.deleteFrom('oauth_records').where('client_id', '=', clientId).execute();
}

/** Removes what has expired, a bounded batch at a time. */
export function deleteExpired(db: Executor, nowSeconds: number, limit = 500) {
  return db
    .deleteFrom('oauth_records')
    .where((eb) =>
      eb(
        'id_hash',
        'in',
        eb
          .selectFrom('oauth_records')
          .select('id_hash')
          .where('expires_at', 'is not', null)
          .where('expires_at', '<=', nowSeconds)
          .limit(limit),
      ),
    )
    .where('expires_at', '<=', nowSeconds)
    .execute();
}

export function listGrantsOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('oauth_records')
    .selectAll()
    .where('user_id', '=', userId)
    .where('model', '=', 'Grant')
    .orderBy('expires_at', 'desc')
    .limit(200)
    .execute();
}

export function findGrantOfUser(db: Executor, userId: string, grantId: string) {
  return db
    .selectFrom('oauth_records')
    .select(['id_hash', 'grant_id', 'client_id'])
    .where('user_id', '=', userId)
    .where('model', '=', 'Grant')
    .where('grant_id', '=', grantId)
    .executeTakeFirst();
}

const tokenWithVersion = precompiledReadFirst((db, param) =>
  db
    .selectFrom('oauth_records')
    .select(['payload', 'grant_id', 'user_id', 'workspace_id', 'client_id', 'expires_at'])
    .select((eb) => eb.selectFrom('access_version').select('version').where('access_version.id', '=', 1).as('access_version'))
    .select((eb) => eb.selectFrom('channels_version').select('version').where('channels_version.id', '=', 1).as('channels_version'))
    .where('oauth_records.model', '=', 'AccessToken')
    .where('oauth_records.id_hash', '=', param('idHash')),
);

/** An access token by the hash of its value, with the access and channel-list versions: one query per request. */
export function findAccessToken(db: Executor, idHash: string) {
  return tokenWithVersion(db, { idHash });
}

/** Inserts unless a record with that model and id exists (another process got there first). */
export function insertRecordIfAbsent(db: Executor, row: OAuthRecordsTable) {
  return db
    .insertInto('oauth_records')
    .values(row)
    .onConflict((oc) => oc.columns(['model', 'id_hash']).doNothing())
    .execute();
}

export function listClientsOfUser(db: Executor, userId: string) {
  return db
    .selectFrom('oauth_records')
    .select('payload')
    .where('user_id', '=', userId)
    .where('model', '=', 'Client')
    .orderBy('id_hash')
    .limit(100)
    .execute();
}
