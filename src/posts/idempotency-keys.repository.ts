import type { Executor } from '../db/database.ts';
import type { IdempotencyKeysTable } from './posts.table.ts';

export function insertIdempotencyKey(db: Executor, row: IdempotencyKeysTable) {
  return db.insertInto('idempotency_keys').values(row).execute();
}

export function findIdempotencyKey(db: Executor, workspaceId: string, key: string) {
  return db.selectFrom('idempotency_keys').selectAll().where('workspace_id', '=', workspaceId).where('key', '=', key).executeTakeFirst();
}

/** Stores the answer of the request that holds the key since `claimedAt`; no row changes when another took it over. */
export function completeIdempotencyKey(
  db: Executor,
  workspaceId: string,
  key: string,
  claimedAt: string,
  statusCode: number,
  response: string,
) {
  return db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, response })
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('created_at', '=', claimedAt)
    .where('status_code', 'is', null)
    .executeTakeFirst();
}

/** Gives up an unanswered key held since `claimedAt`. */
export function deleteIdempotencyKey(db: Executor, workspaceId: string, key: string, claimedAt: string) {
  return db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('created_at', '=', claimedAt)
    .where('status_code', 'is', null)
    .execute();
}

/** Hands a key to a new request, if it is still as it was read (`readCreatedAt`): only one taker wins. */
export function takeOverIdempotencyKey(
  db: Executor,
  workspaceId: string,
  key: string,
  readCreatedAt: string,
  changes: { request_hash: string; created_at: string },
) {
  return db
    .updateTable('idempotency_keys')
    .set({ ...changes, status_code: null, response: null })
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('created_at', '=', readCreatedAt)
    .executeTakeFirst();
}

export function purgeIdempotencyKeys(db: Executor, before: string) {
  return db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
