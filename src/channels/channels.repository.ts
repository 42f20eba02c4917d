import type { Executor } from '../db/database.ts';
import type { ChannelsTable, ConnectStatesTable, OAuthAppsTable } from './channels.table.ts';

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
  'channels.internal_id',
  'channels.preferred_settings',
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

export function updateChannel(
  db: Executor,
  workspaceId: string,
  id: string,
  changes: Partial<Pick<ChannelsTable, 'credentials' | 'disabled' | 'disabled_reason' | 'name' | 'picture' | 'profile' | 'internal_id' | 'client_group_id' | 'preferred_settings'>> & { updated_at: string },
) {
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

/** The workspace's channel for a platform account, if it has one. */
export function findChannelByAccount(db: Executor, workspaceId: string, provider: string, internalId: string) {
  return db
    .selectFrom('channels')
    .select(['id'])
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .where('internal_id', '=', internalId)
    .orderBy('created_at')
    .executeTakeFirst();
}

/** Posts of a channel (not deleted) that are scheduled or being published, a bounded number. */
export function listWaitingPosts(db: Executor, channelId: string, limit: number) {
  return db
    .selectFrom('posts')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('deleted_at', 'is', null)
    .where('state', 'in', ['QUEUE', 'PUBLISHING'])
    .orderBy('publish_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function findOAuthApp(db: Executor, provider: string, host: string, redirectUri: string) {
  return db.selectFrom('oauth_apps').selectAll().where('provider', '=', provider).where('host', '=', host).where('redirect_uri', '=', redirectUri).executeTakeFirst();
}

/** Inserts a registration unless one exists for the same provider, host and redirect URI. */
export function insertOAuthApp(db: Executor, row: OAuthAppsTable) {
  return db.insertInto('oauth_apps').values(row).onConflict((oc) => oc.columns(['provider', 'host', 'redirect_uri']).doNothing()).execute();
}

export function deleteOAuthApp(db: Executor, provider: string, host: string, redirectUri: string) {
  return db.deleteFrom('oauth_apps').where('provider', '=', provider).where('host', '=', host).where('redirect_uri', '=', redirectUri).execute();
}

export function insertConnectState(db: Executor, row: ConnectStatesTable) {
  return db.insertInto('connect_states').values(row).execute();
}

/** Takes a state once: the row is deleted and returned, so a second callback finds nothing. */
export async function takeConnectState(db: Executor, id: string) {
  const row = await db.selectFrom('connect_states').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const deleted = await db.deleteFrom('connect_states').where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1 ? row : undefined;
}

export function purgeConnectStates(db: Executor, before: string) {
  return db.deleteFrom('connect_states').where('expires_at', '<', before).execute();
}
