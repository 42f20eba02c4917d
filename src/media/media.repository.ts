import { sql, type SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import type { MediaTable } from './media.table.ts';

export type MediaRow = MediaTable;

export function insertMedia(db: Executor, row: MediaTable) {
  return db.insertInto('media').values(row).execute();
}

export function findMedia(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('media').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function findMediaBySha256(db: Executor, workspaceId: string, sha256: string) {
  return db.selectFrom('media').selectAll().where('workspace_id', '=', workspaceId).where('sha256', '=', sha256).executeTakeFirst();
}

export function findMediaByKeys(db: Executor, workspaceId: string, keys: readonly string[]) {
  if (keys.length === 0) return Promise.resolve([]);
  return db.selectFrom('media').selectAll().where('workspace_id', '=', workspaceId).where('storage_key', 'in', keys).execute();
}

/** Only files whose name holds `search` (any case; `%`, `_` and backslashes in it are plain characters). */
function named<O>(query: SelectQueryBuilder<Database, 'media', O>, search: string | undefined) {
  if (!search) return query;
  const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
}

/** Newest first; ties (same instant) by id so pages never overlap. */
export function listMedia(db: Executor, workspaceId: string, page: { offset: number; limit: number; search?: string | undefined }) {
  return named(db.selectFrom('media').selectAll().where('workspace_id', '=', workspaceId), page.search)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export function countMedia(db: Executor, workspaceId: string, search?: string | undefined) {
  return named(
    db
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId),
    search,
  ).executeTakeFirstOrThrow();
}

export function deleteMedia(db: Executor, workspaceId: string, id: string) {
  return db.deleteFrom('media').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}
