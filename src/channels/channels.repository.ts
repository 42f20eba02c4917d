import type { Executor } from '../db/database.ts';
import type { ChannelsTable } from './channels.table.ts';

export function insertChannel(db: Executor, row: ChannelsTable) {
  return db.insertInto('channels').values(row).execute();
}

const channelColumns = [
  'channels.id',
  'channels.workspace_id',
  'channels.provider',
  'channels.name',
  'channels.picture',
  'channels.profile',
  'channels.disabled',
  'channels.disabled_reason',
  'channels.client_group_id',
  'client_groups.name as client_group_name',
] as const;

export function listChannels(db: Executor, workspaceId: string, filter: { groupId?: string | undefined; channelIds?: readonly string[] | null }) {
  let query = db
    .selectFrom('channels')
    .leftJoin('client_groups', 'client_groups.id', 'channels.client_group_id')
    .select(channelColumns)
    .where('channels.workspace_id', '=', workspaceId);
  if (filter.groupId !== undefined) query = query.where('channels.client_group_id', '=', filter.groupId);
  if (filter.channelIds) {
    if (filter.channelIds.length === 0) return Promise.resolve([]);
    query = query.where('channels.id', 'in', filter.channelIds);
  }
  return query.orderBy('channels.created_at').orderBy('channels.id').execute();
}

export function findChannel(db: Executor, workspaceId: string, id: string) {
  return db
    .selectFrom('channels')
    .leftJoin('client_groups', 'client_groups.id', 'channels.client_group_id')
    .select([...channelColumns, 'channels.credentials'])
    .where('channels.workspace_id', '=', workspaceId)
    .where('channels.id', '=', id)
    .executeTakeFirst();
}

export function countChannels(db: Executor, workspaceId: string) {
  return db
    .selectFrom('channels')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
}

/** Disables a channel; only the first of several concurrent callers sees a row change. */
export function disableChannel(db: Executor, id: string, reason: string, at: string) {
  return db.updateTable('channels').set({ disabled: 1, disabled_reason: reason, updated_at: at }).where('id', '=', id).where('disabled', '=', 0).executeTakeFirst();
}

export function updateChannel(db: Executor, workspaceId: string, id: string, changes: { credentials?: string; disabled?: number; disabled_reason?: string | null; updated_at: string }) {
  return db.updateTable('channels').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function deleteChannel(db: Executor, workspaceId: string, id: string) {
  return db.deleteFrom('channels').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Posts of a channel (not deleted) that are scheduled or being published right now. */
export function countWaitingPosts(db: Executor, channelId: string) {
  return db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('channel_id', '=', channelId)
    .where('deleted_at', 'is', null)
    .where('state', 'in', ['QUEUE', 'PUBLISHING'])
    .executeTakeFirstOrThrow();
}
