import type { Executor } from '../db/database.ts';
import type { NotificationsTable } from './notifications.table.ts';

export function insertNotification(db: Executor, row: NotificationsTable) {
  return db.insertInto('notifications').values(row).execute();
}

/** Newest first; with `channelIds`, only those channels' notifications and the ones about no channel. */
export function listNotifications(
  db: Executor,
  workspaceId: string,
  page: { offset: number; limit: number; channelIds: readonly string[] | null },
) {
  const { offset, limit, channelIds } = page;
  let query = db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspaceId);
  if (channelIds)
    query = query.where((eb) =>
      eb.or([eb('channel_id', 'is', null), ...(channelIds.length ? [eb('channel_id', 'in', [...channelIds])] : [])]),
    );
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export function findNotification(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}
