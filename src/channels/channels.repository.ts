import { sql } from 'kysely';
import type { Executor } from '../db/database.ts';
import { listChannelPostsInState } from '../posts/posts.repository.ts';
import type { ChannelsTable, ConnectStatesTable, DisabledReason, OAuthAppsTable } from './channels.table.ts';

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

export function listChannels(
  db: Executor,
  workspaceId: string,
  filter: { groupId?: string | undefined; channelIds?: readonly string[] | null },
) {
  let query = db
    .selectFrom('channels')
    .leftJoin('client_groups', 'client_groups.id', 'channels.client_group_id')
    .select(channelColumns)
    .where('channels.workspace_id', '=', workspaceId)
    .where('channels.deleted_at', 'is', null);
  if (filter.groupId !== undefined) query = query.where('channels.client_group_id', '=', filter.groupId);
  if (filter.channelIds) {
    if (filter.channelIds.length === 0) return Promise.resolve([]);
    query = query.where('channels.id', 'in', filter.channelIds);
  }
  return query.orderBy('channels.created_at').orderBy('channels.id').execute();
}

/** The channel `id` of a workspace, with the group's name; `deleted` also finds a deleted one. */
function channelQuery(db: Executor, workspaceId: string, id: string) {
  return db
    .selectFrom('channels')
    .leftJoin('client_groups', 'client_groups.id', 'channels.client_group_id')
    .select(channelColumns)
    .where('channels.workspace_id', '=', workspaceId)
    .where('channels.id', '=', id);
}

/** A channel in use (not deleted), with its sealed credentials. */
export function findChannel(db: Executor, workspaceId: string, id: string) {
  return channelQuery(db, workspaceId, id).select('channels.credentials').where('channels.deleted_at', 'is', null).executeTakeFirst();
}

/** A channel whether in use or deleted (what its posts were written for), with when it was deleted. */
/** The workspace of a channel, in any state (the engine knows channels by id). */
export function findChannelWorkspace(db: Executor, id: string) {
  return db.selectFrom('channels').select('workspace_id').where('id', '=', id).executeTakeFirst();
}

export function findChannelAnyState(db: Executor, workspaceId: string, id: string) {
  return channelQuery(db, workspaceId, id).select('channels.deleted_at').executeTakeFirst();
}

/** The provider of each of these channels, deleted ones included. */
export async function channelProviders(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('channels').select(['id', 'provider']).where('id', 'in', ids).execute();
  return new Map(rows.map((row) => [row.id, row.provider]));
}

/** Whether a channel is deleted (or gone): the publisher's check before it claims work. */
export async function isChannelDeleted(db: Executor, id: string): Promise<boolean> {
  const row = await db.selectFrom('channels').select('deleted_at').where('id', '=', id).executeTakeFirst();
  return !row || row.deleted_at !== null;
}

/** Channels in use: what the plan's channel quota counts. */
export function countChannels(db: Executor, workspaceId: string) {
  return db
    .selectFrom('channels')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
}

/** Disables a channel; only the first of several concurrent callers sees a row change. */
export function disableChannel(db: Executor, id: string, reason: DisabledReason, at: string) {
  return db
    .updateTable('channels')
    .set({ disabled: 1, disabled_reason: reason, updated_at: at })
    .where('id', '=', id)
    .where('disabled', '=', 0)
    .executeTakeFirst();
}

export function updateChannel(
  db: Executor,
  workspaceId: string,
  id: string,
  changes: Partial<
    Pick<
      ChannelsTable,
      | 'credentials'
      | 'disabled'
      | 'disabled_reason'
      | 'name'
      | 'picture'
      | 'profile'
      | 'internal_id'
      | 'client_group_id'
      | 'preferred_settings'
    >
  > & { updated_at: string },
) {
  return db
    .updateTable('channels')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Marks a channel deleted; its posts stay. Only the first of concurrent callers changes the row. */
export function markChannelDeleted(db: Executor, workspaceId: string, id: string, at: string) {
  return db
    .updateTable('channels')
    .set({ deleted_at: at, updated_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Brings a deleted channel back with new credentials, enabled. */
export function restoreChannel(
  db: Executor,
  workspaceId: string,
  id: string,
  changes: Pick<ChannelsTable, 'credentials' | 'internal_id' | 'picture' | 'profile' | 'updated_at'>,
) {
  return db
    .updateTable('channels')
    .set({ ...changes, deleted_at: null, disabled: 0, disabled_reason: null })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is not', null)
    .executeTakeFirst();
}

/** Removes a channel for good, in use or deleted, once its posts are purged (any left over go with it, by the foreign keys). */
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

/** A post of the channel being published right now, if any. */
export function findPublishingPost(db: Executor, channelId: string) {
  return db
    .selectFrom('posts')
    .select('id')
    .where('channel_id', '=', channelId)
    .where('deleted_at', 'is', null)
    .where('state', '=', 'PUBLISHING')
    .executeTakeFirst();
}

/** The workspace's channel for a platform account, if it has one: one in use first, else a deleted one (to restore). */
export function findChannelByAccount(db: Executor, workspaceId: string, provider: string, internalId: string) {
  return db
    .selectFrom('channels')
    .select(['id', 'deleted_at'])
    .where('workspace_id', '=', workspaceId)
    .where('provider', '=', provider)
    .where('internal_id', '=', internalId)
    .orderBy(sql`case when deleted_at is null then 0 else 1 end`)
    .orderBy('deleted_at', 'desc')
    .orderBy('created_at')
    .executeTakeFirst();
}

/** Posts of a channel (not deleted) that are scheduled or being published, earliest first, at most `limit`. */
export async function listWaitingPosts(db: Executor, channelId: string, limit: number) {
  // One ordered range per state, merged: a single query over both states would sort all of them.
  const [queued, publishing] = await Promise.all([
    listChannelPostsInState(db, channelId, 'QUEUE', null, limit),
    listChannelPostsInState(db, channelId, 'PUBLISHING', null, limit),
  ]);
  return [...queued, ...publishing]
    .sort((a, b) => (a.publish_at === b.publish_at ? (a.id < b.id ? -1 : 1) : a.publish_at < b.publish_at ? -1 : 1))
    .slice(0, limit);
}

export function findOAuthApp(db: Executor, provider: string, host: string, redirectUri: string) {
  return db
    .selectFrom('oauth_apps')
    .selectAll()
    .where('provider', '=', provider)
    .where('host', '=', host)
    .where('redirect_uri', '=', redirectUri)
    .executeTakeFirst();
}

/** Inserts a registration unless one exists for the same provider, host and redirect URI. */
export function insertOAuthApp(db: Executor, row: OAuthAppsTable) {
  return db
    .insertInto('oauth_apps')
    .values(row)
    .onConflict((oc) => oc.columns(['provider', 'host', 'redirect_uri']).doNothing())
    .execute();
}

export function deleteOAuthApp(db: Executor, provider: string, host: string, redirectUri: string) {
  return db
    .deleteFrom('oauth_apps')
    .where('provider', '=', provider)
    .where('host', '=', host)
    .where('redirect_uri', '=', redirectUri)
    .execute();
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

/**
 * Takes the claim on renewing a channel's credentials when no one holds it or its holder's time
 * ran out; true when this call took it. A disabled or deleted channel is never claimed.
 */
export async function claimRenewal(db: Executor, id: string, holder: string, now: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('channels')
    .set({ renewing_until: until, renewing_by: holder })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('disabled', '=', 0)
    .where((eb) => eb.or([eb('renewing_until', 'is', null), eb('renewing_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What a renewal watches on a channel: its sealed credentials, whether it can post, who holds the claim. */
export function findRenewal(db: Executor, id: string) {
  return db
    .selectFrom('channels')
    .select(['credentials', 'disabled', 'deleted_at', 'renewing_until', 'renewing_by'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Stores renewed credentials and lets go of the claim if `holder` still has it. The credentials
 * are stored even when the claim lapsed meanwhile: the renewal spent the old refresh token, so
 * the new tokens are the only ones that work.
 */
export function storeRenewed(db: Executor, id: string, holder: string, credentials: string, at: string) {
  const mine = sql<boolean>`renewing_by = ${holder}`;
  return db
    .updateTable('channels')
    .set({
      credentials,
      updated_at: at,
      renewing_until: sql<string | null>`case when ${mine} then null else renewing_until end`,
      renewing_by: sql<string | null>`case when ${mine} then null else renewing_by end`,
    })
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Lets go of the claim, if `holder` still has it. */
export function releaseRenewal(db: Executor, id: string, holder: string) {
  return db
    .updateTable('channels')
    .set({ renewing_until: null, renewing_by: null })
    .where('id', '=', id)
    .where('renewing_by', '=', holder)
    .executeTakeFirst();
}
