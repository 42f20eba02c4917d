import type { Db, Executor } from '../db/database.ts';
import { isUniqueViolation } from '../db/dialect.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import * as repo from './notifications.repository.ts';
import type { NotificationKind } from './notifications.table.ts';

export { NOTIFICATION_KINDS, type NotificationKind } from './notifications.table.ts';

export type Notification = {
  id: string;
  type: NotificationKind;
  message: string;
  postId: string | null;
  integration: string | null;
  createdAt: string;
};

export const PAGE_SIZE = 20;

export class NotificationsService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Records a notification; one with a `dedupeKey` already recorded is not repeated. */
  async notify(
    workspaceId: string,
    input: { kind: NotificationKind; message: string; postId?: string | null; channelId?: string | null; dedupeKey?: string | null },
    db: Executor = this.deps.db,
  ): Promise<void> {
    try {
      await repo.insertNotification(db, {
        id: newId(),
        workspace_id: workspaceId,
        kind: input.kind,
        message: input.message,
        post_id: input.postId ?? null,
        channel_id: input.channelId ?? null,
        dedupe_key: input.dedupeKey ?? null,
        created_at: this.deps.clock.now().toISOString(),
      });
    } catch (error) {
      if (input.dedupeKey && isUniqueViolation(error)) return;
      throw error;
    }
  }

  /** Newest first, `PAGE_SIZE` a page, pages counted from zero. */
  async list(workspaceId: string, page: number): Promise<{ notifications: Notification[]; page: number; pageSize: number; hasMore: boolean }> {
    const rows = await repo.listNotifications(this.deps.db, workspaceId, page * PAGE_SIZE, PAGE_SIZE + 1);
    return {
      notifications: rows.slice(0, PAGE_SIZE).map((row) => ({
        id: row.id,
        type: row.kind,
        message: row.message,
        postId: row.post_id,
        integration: row.channel_id,
        createdAt: row.created_at,
      })),
      page,
      pageSize: PAGE_SIZE,
      hasMore: rows.length > PAGE_SIZE,
    };
  }
}
