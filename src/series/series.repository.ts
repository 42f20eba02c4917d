import type { Updateable } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { PostSeriesTable } from './series.table.ts';

export function insertSeries(db: Executor, row: PostSeriesTable) {
  return db.insertInto('post_series').values(row).execute();
}

export function findSeries(db: Executor, workspaceId: string, id: string) {
  return db
    .selectFrom('post_series')
    .selectAll()
    .where('id', '=', id)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function findSeriesById(db: Executor, id: string) {
  return db.selectFrom('post_series').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export function listSeries(db: Executor, workspaceId: string, limit: number) {
  return db
    .selectFrom('post_series')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** Live series whose written occurrences end before `before`: the next to write ahead, earliest first. */
export function listSeriesToWrite(db: Executor, before: string, limit: number) {
  return db
    .selectFrom('post_series')
    .select('id')
    .where('ended', '=', 0)
    .where('deleted_at', 'is', null)
    .where('materialised_until', '<', before)
    .orderBy('materialised_until')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Updates a live series at `version` (counting the change); 0 rows when another change came first. */
export function updateSeriesAt(db: Executor, id: string, version: number, changes: Updateable<PostSeriesTable>) {
  return db
    .updateTable('post_series')
    .set((eb) => ({ ...changes, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('version', '=', version)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The occurrences of a series within (after, until] that a person edited or deleted on their own: `channel_id` and instant. */
export function listExceptions(db: Executor, seriesId: string, after: string, until: string) {
  return db
    .selectFrom('posts')
    .select(['channel_id', 'occurrence_at'])
    .where('series_id', '=', seriesId)
    .where('series_exception', 'is not', null)
    .where('occurrence_at', '>', after)
    .where('occurrence_at', '<=', until)
    .execute();
}
