import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { Db, Executor } from '../db/database.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
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

/** A notification as GET /notifications lists it for a member: whether it is newer than their read marker. */
export type ListedNotification = Notification & { unread: boolean };

/** Unread notifications are counted up to this many ("100 or more"), so counting is bounded however many there are. */
export const UNREAD_LIMIT = 100;

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
  ): Promise<{ notifications: ListedNotification[]; page: number; pageSize: number; hasMore: boolean; unreadCount: number }> {
    requireScope(access, 'posts:read');
    const { workspace, channelIds } = access;
    if (page > LAST_PAGE)
      throw new BadRequestError(`page: at most ${LAST_PAGE}; the newest ${(LAST_PAGE + 1) * PAGE_SIZE} notifications can be read.`);
    const marker = await this.#marker(access);
    const [rows, unreadCount] = await Promise.all([
      repo.listNotifications(this.deps.db, workspace.id, { offset: page * PAGE_SIZE, limit: PAGE_SIZE + 1, channelIds }),
      this.#unread(access, marker),
    ]);
    return {
      notifications: rows.slice(0, PAGE_SIZE).map((row) => ({ ...toNotification(row), unread: isAfter(row, marker) })),
      page,
      pageSize: PAGE_SIZE,
      hasMore: rows.length > PAGE_SIZE && page < LAST_PAGE,
      unreadCount,
    };
  }

  /**
   * Marks the member's notifications read up to `until` (a notification's id, itself included),
   * or up to the newest they see. The marker is the member's in this workspace, whichever
   * credential or browser they use, and only moves forwards.
   */
  async markRead(access: WorkspaceAccess, until: string | undefined): Promise<{ unreadCount: number; readUntil: string | null }> {
    requireScope(access, 'posts:read');
    const { workspace, channelIds } = access;
    const db = this.deps.db;
    let row: NotificationsTable | undefined;
    if (until === undefined) [row] = await repo.listNotifications(db, workspace.id, { offset: 0, limit: 1, channelIds });
    else {
      row = await repo.findNotification(db, workspace.id, until);
      if (!row || (channelIds && row.channel_id !== null && !channelIds.includes(row.channel_id)))
        throw new NotFoundError(`No notification ${until} in this workspace.`);
    }
    if (row)
      await repo.moveReadMarker(db, {
        workspace_id: workspace.id,
        user_id: access.principal.userId,
        read_at: row.created_at,
        read_id: row.id,
        updated_at: this.deps.clock.now().toISOString(),
      });
    const marker = await this.#marker(access);
    return { unreadCount: await this.#unread(access, marker), readUntil: marker?.id ?? null };
  }

  async #marker(access: WorkspaceAccess): Promise<Marker | null> {
    const row = await repo.findReadMarker(this.deps.db, access.workspace.id, access.principal.userId);
    return row ? { at: row.read_at, id: row.read_id } : null;
  }

  #unread(access: WorkspaceAccess, marker: Marker | null): Promise<number> {
    return repo.countAfter(this.deps.db, access.workspace.id, marker, { channelIds: access.channelIds, limit: UNREAD_LIMIT });
  }
}

type Marker = { at: string; id: string };

/** Whether the notification comes after the marker in the list's order (time, then id). */
function isAfter(row: Pick<NotificationsTable, 'created_at' | 'id'>, marker: Marker | null): boolean {
  return marker === null || row.created_at > marker.at || (row.created_at === marker.at && row.id > marker.id);
}
