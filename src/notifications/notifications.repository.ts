import type { Executor } from '../db/database.ts';
import type { NotificationsTable } from './notifications.table.ts';

export function insertNotification(db: Executor, row: NotificationsTable) {
  return db.insertInto('notifications').values(row).execute();
}

export function listNotifications(db: Executor, workspaceId: string, offset: number, limit: number) {
  return db
    .selectFrom('notifications')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}
