import type { SelectQueryBuilder } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import type { NotificationReadsTable, NotificationsTable } from './notifications.table.ts';

/** Only the notifications a key limited to `channelIds` sees: those channels' and the ones about no channel. */
function visible<O>(
  query: SelectQueryBuilder<Database, 'notifications', O>,
  channelIds: readonly string[] | null,
): SelectQueryBuilder<Database, 'notifications', O> {
  if (!channelIds) return query;
  return query.where((eb) =>
    eb.or([eb('channel_id', 'is', null), ...(channelIds.length ? [eb('channel_id', 'in', [...channelIds])] : [])]),
  );
}

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
  return visible(db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspaceId), channelIds)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit)
    .execute();
}

export function findNotification(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The member's read marker in the workspace, if they ever read any. */
export function findReadMarker(db: Executor, workspaceId: string, userId: string) {
  return db
    .selectFrom('notification_reads')
    .select(['read_at', 'read_id'])
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Moves the member's read marker to `row`'s, only forwards (list order: time, then id): an older one sent late changes nothing. */
export function moveReadMarker(db: Executor, row: NotificationReadsTable) {
  return db
    .insertInto('notification_reads')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'user_id'])
        .doUpdateSet((eb) => ({
          read_at: eb.ref('excluded.read_at'),
          read_id: eb.ref('excluded.read_id'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        .where((eb) =>
          eb.or([
            eb('excluded.read_at', '>', eb.ref('notification_reads.read_at')),
            eb.and([
              eb('excluded.read_at', '=', eb.ref('notification_reads.read_at')),
              eb('excluded.read_id', '>', eb.ref('notification_reads.read_id')),
            ]),
          ]),
        ),
    )
    .execute();
}

/**
 * How many notifications the member sees after `marker` (all of them without one), counting at
 * most `limit`: the count reads at most that many index entries, however many there are.
 */
export async function countAfter(
  db: Executor,
  workspaceId: string,
  marker: { at: string; id: string } | null,
  options: { channelIds: readonly string[] | null; limit: number },
): Promise<number> {
  let query = visible(db.selectFrom('notifications').select('id').where('workspace_id', '=', workspaceId), options.channelIds);
  if (marker)
    query = query.where((eb) =>
      eb.or([eb('created_at', '>', marker.at), eb.and([eb('created_at', '=', marker.at), eb('id', '>', marker.id)])]),
    );
  const row = await db
    .selectFrom(query.limit(options.limit).as('unread'))
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
