import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { Db, Executor } from '../db/database.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { BadRequestError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import * as repo from './notifications.repository.ts';
import type { NotificationKind, NotificationsTable } from './notifications.table.ts';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';

export { NOTIFICATION_KINDS, type NotificationKind } from './notifications.table.ts';

export type Notification = {
  id: string;
  type: NotificationKind;
  message: string;
  postId: string | null;
  integration: string | null;
  createdAt: string;
};

/** A stored notification as the API shows it. */
export function toNotification(row: NotificationsTable): Notification {
  return {
    id: row.id,
    type: row.kind,
    message: row.message,
    postId: row.post_id,
    integration: row.channel_id,
    createdAt: row.created_at,
  };
}

export const PAGE_SIZE = 20;
/** The last page served: each page skips the ones before it, so how deep a request may reach is bounded (the newest 10,000). */
export const LAST_PAGE = 499;

export class NotificationsService {
  constructor(private readonly deps: { db: Db; clock: Clock; webhookOutbox: WebhookOutbox }) {}

  /** Records a notification (the internal path: the publisher, plan limits); one with a `dedupeKey` already recorded is not repeated. */
  async notify(
    workspaceId: string,
    input: { kind: NotificationKind; message: string; postId?: string | null; channelId?: string | null; dedupeKey?: string | null },
    db: Executor = this.deps.db,
  ): Promise<void> {
    const id = newId();
    try {
      await this.deps.webhookOutbox.recordWith(
        db,
        (trx) =>
          repo.insertNotification(trx, {
            id,
            workspace_id: workspaceId,
            kind: input.kind,
            message: input.message,
            post_id: input.postId ?? null,
            channel_id: input.channelId ?? null,
            dedupe_key: input.dedupeKey ?? null,
            created_at: this.deps.clock.now().toISOString(),
          }),
        () => [{ workspaceId, type: 'notification.created', subjectId: id }],
      );
    } catch (error) {
      if (input.dedupeKey && isUniqueViolation(error)) return;
      throw error;
    }
  }

  /**
   * Newest first, `PAGE_SIZE` a page, pages counted from zero up to `LAST_PAGE`. A key limited
   * to some channels sees the notifications about those channels and the workspace-wide ones.
   */
  async list(
    access: WorkspaceAccess,
    page: number,
  ): Promise<{ notifications: Notification[]; page: number; pageSize: number; hasMore: boolean }> {
    requireScope(access, 'posts:read');
    const { workspace, channelIds } = access;
    if (page > LAST_PAGE)
      throw new BadRequestError(`page: at most ${LAST_PAGE}; the newest ${(LAST_PAGE + 1) * PAGE_SIZE} notifications can be read.`);
    const rows = await repo.listNotifications(this.deps.db, workspace.id, { offset: page * PAGE_SIZE, limit: PAGE_SIZE + 1, channelIds });
    return {
      notifications: rows.slice(0, PAGE_SIZE).map(toNotification),
      page,
      pageSize: PAGE_SIZE,
      hasMore: rows.length > PAGE_SIZE && page < LAST_PAGE,
    };
  }
}
