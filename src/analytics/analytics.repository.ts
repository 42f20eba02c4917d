import type { Executor } from '../db/database.ts';
import { precompiledWrite } from '../db/precompiled.ts';
import type { AnalyticsChannelsTable, AnalyticsPostsTable } from './analytics.table.ts';

/** Channels of `providers` not yet followed for numbers (at most `limit`). */
export function listUnfollowedChannels(db: Executor, providers: readonly string[], limit: number) {
  return db
    .selectFrom('channels')
    .leftJoin('analytics_channels', 'analytics_channels.channel_id', 'channels.id')
    .select(['channels.id', 'channels.workspace_id'])
    .where('channels.provider', 'in', [...providers])
    .where('channels.deleted_at', 'is', null)
    .where('analytics_channels.channel_id', 'is', null)
    .limit(limit)
    .execute();
}

export function followChannel(db: Executor, row: AnalyticsChannelsTable) {
  return db
    .insertInto('analytics_channels')
    .values(row)
    .onConflict((oc) => oc.column('channel_id').doNothing())
    .execute();
}

export function findFollowedChannel(db: Executor, channelId: string) {
  return db.selectFrom('analytics_channels').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
}

/** Channels due for collection and not held by a worker, earliest first. */
export function listDueChannels(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('analytics_channels')
    .select('channel_id')
    .where('active', '=', 1)
    .where('next_collect_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_collect_at')
    .limit(limit)
    .execute();
}

/**
 * Takes the lease on a channel: one worker collects it at a time, across processes. `due` asks
 * that it still be due (the cycle); without it the caller is an on-demand refresh.
 */
export async function leaseChannel(
  db: Executor,
  channelId: string,
  input: { now: string; until: string; by: string; due: boolean },
): Promise<boolean> {
  let query = db
    .updateTable('analytics_channels')
    .set({ lease_until: input.until, lease_by: input.by })
    .where('channel_id', '=', channelId)
    .where('active', '=', 1)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', input.now)]));
  if (input.due) query = query.where('next_collect_at', '<=', input.now);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Extends a lease its holder still has (`by`) to `until`; false when it ran out and another worker took the channel. */
export async function extendLease(db: Executor, channelId: string, by: string, until: string): Promise<boolean> {
  const result = await db
    .updateTable('analytics_channels')
    .set({ lease_until: until })
    .where('channel_id', '=', channelId)
    .where('lease_by', '=', by)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends a lease with what the collection learnt; only its holder's update applies. */
export function settleChannel(
  db: Executor,
  channelId: string,
  by: string,
  changes: Partial<
    Pick<AnalyticsChannelsTable, 'active' | 'next_collect_at' | 'account_next_at' | 'metrics' | 'metrics_updated_at' | 'error'>
  >,
) {
  return db
    .updateTable('analytics_channels')
    .set({ ...changes, lease_until: null, lease_by: null })
    .where('channel_id', '=', channelId)
    .where('lease_by', '=', by)
    .execute();
}

/** Spends the channel's on-demand refresh: true when none was made since `notAfter`. */
export async function takeRefresh(db: Executor, channelId: string, now: string, notAfter: string): Promise<boolean> {
  const result = await db
    .updateTable('analytics_channels')
    .set({ refreshed_at: now })
    .where('channel_id', '=', channelId)
    .where((eb) => eb.or([eb('refreshed_at', 'is', null), eb('refreshed_at', '<=', notAfter)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function upsertChannelSnapshot(db: Executor, row: { channel_id: string; day: string; collected_at: string; metrics: string }) {
  return db
    .insertInto('analytics_channel_snapshots')
    .values(row)
    .onConflict((oc) => oc.columns(['channel_id', 'day']).doUpdateSet({ collected_at: row.collected_at, metrics: row.metrics }))
    .execute();
}

/**
 * Parts of the channel's posts published since `since` (with a platform id) that are not followed
 * yet. Read from the channel's posts (their channel and state index) outwards: the cross join is
 * SQLite's documented way to keep that order, where the parts' state index would otherwise lead it
 * to read every published part of every channel (PostgreSQL plans it as the inner join it is).
 */
export function listUnfollowedParts(db: Executor, channelId: string, since: string, limit: number) {
  return db
    .selectFrom('posts')
    .crossJoin('post_parts')
    .whereRef('post_parts.post_id', '=', 'posts.id')
    .leftJoin('analytics_posts', (join) =>
      join.onRef('analytics_posts.post_id', '=', 'post_parts.post_id').onRef('analytics_posts.part', '=', 'post_parts.idx'),
    )
    .select([
      'posts.id as post_id',
      'posts.workspace_id',
      'post_parts.idx',
      'post_parts.release_id',
      'post_parts.release_meta',
      'post_parts.published_at',
    ])
    .where('posts.channel_id', '=', channelId)
    .where('posts.state', 'in', ['PUBLISHED', 'PUBLISHING', 'QUEUE', 'ERROR'])
    .where('posts.publish_at', '>=', since)
    .where('posts.deleted_at', 'is', null)
    .where('post_parts.state', '=', 'PUBLISHED')
    .where('post_parts.release_id', 'is not', null)
    .where('analytics_posts.post_id', 'is', null)
    .limit(limit)
    .execute();
}

export function followParts(db: Executor, rows: AnalyticsPostsTable[]) {
  return db
    .insertInto('analytics_posts')
    .values(rows)
    .onConflict((oc) => oc.columns(['post_id', 'part']).doNothing())
    .execute();
}

/** The channel's parts due for collection (or those of `postId`, due or not), earliest first. */
export function listDueParts(db: Executor, channelId: string, input: { now: string; limit: number; postId?: string | undefined }) {
  let query = db.selectFrom('analytics_posts').selectAll().where('channel_id', '=', channelId);
  query = input.postId ? query.where('post_id', '=', input.postId) : query.where('next_collect_at', '<=', input.now);
  return query.orderBy('next_collect_at').limit(input.limit).execute();
}

/** The earliest time one of the channel's parts is due; null when none is followed any more. */
export async function nextPartDue(db: Executor, channelId: string): Promise<string | null> {
  const row = await db
    .selectFrom('analytics_posts')
    .select((eb) => eb.fn.min('next_collect_at').as('next'))
    .where('channel_id', '=', channelId)
    .where('next_collect_at', 'is not', null)
    .executeTakeFirst();
  return (row?.next as string | null | undefined) ?? null;
}

/** A part's latest reading and when it is next read. */
type PartReading = {
  post_id: string;
  part: number;
  next_collect_at: string | null;
  metrics: string;
  raw: string;
  metrics_updated_at: string;
};

// A reading of a part writes these two statements (the cycle runs them for every part it reads):
// compiled once, not built through Kysely each time.
const storeReadingStatement = precompiledWrite<PartReading>((db, param) =>
  db
    .updateTable('analytics_posts')
    .set({
      next_collect_at: param('next_collect_at'),
      metrics: param('metrics'),
      raw: param('raw'),
      metrics_updated_at: param('metrics_updated_at'),
    })
    .where('post_id', '=', param('post_id'))
    .where('part', '=', param('part') as unknown as number),
);

const nextCollectionStatement = precompiledWrite<{ post_id: string; part: number; next_collect_at: string | null }>((db, param) =>
  db
    .updateTable('analytics_posts')
    .set({ next_collect_at: param('next_collect_at') })
    .where('post_id', '=', param('post_id'))
    .where('part', '=', param('part') as unknown as number),
);

const insertPostSnapshotStatement = precompiledWrite<{ post_id: string; part: number; collected_at: string; metrics: string }>(
  (db, param) =>
    db
      .insertInto('analytics_post_snapshots')
      .values({
        post_id: param('post_id'),
        part: param('part') as unknown as number,
        collected_at: param('collected_at'),
        metrics: param('metrics'),
      })
      .onConflict((oc) => oc.columns(['post_id', 'part', 'collected_at']).doUpdateSet({ metrics: param('metrics') })),
);

/** Stores a part's latest reading and when it is next read. */
export function storePartReading(db: Executor, row: PartReading) {
  return storeReadingStatement(db, row);
}

/** Sets when a part is next read (its platform gave no reading this time). */
export function setPartNextCollection(db: Executor, postId: string, part: number, next: string | null) {
  return nextCollectionStatement(db, { post_id: postId, part, next_collect_at: next });
}

export function insertPostSnapshot(db: Executor, row: { post_id: string; part: number; collected_at: string; metrics: string }) {
  return insertPostSnapshotStatement(db, row);
}

// Reads for the API.

export function listPostParts(db: Executor, postId: string) {
  return db.selectFrom('analytics_posts').selectAll().where('post_id', '=', postId).orderBy('part').execute();
}

export function listPostSnapshots(db: Executor, postId: string) {
  return db
    .selectFrom('analytics_post_snapshots')
    .select(['part', 'collected_at', 'metrics'])
    .where('post_id', '=', postId)
    .orderBy('part')
    .orderBy('collected_at')
    .execute();
}

export function listChannelSnapshots(db: Executor, channelId: string, fromDay: string, toDay: string) {
  return db
    .selectFrom('analytics_channel_snapshots')
    .select(['day', 'collected_at', 'metrics'])
    .where('channel_id', '=', channelId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .orderBy('day')
    .execute();
}

/** The posts (part 0) of a workspace published in a window, with their latest numbers; optionally of some channels only. */
export function listPublishedPosts(
  db: Executor,
  workspaceId: string,
  input: { start: string; end: string; channelIds: readonly string[] | null },
) {
  let query = db
    .selectFrom('analytics_posts')
    .select(['post_id', 'channel_id', 'published_at', 'metrics', 'metrics_updated_at'])
    .where('workspace_id', '=', workspaceId)
    .where('part', '=', 0)
    .where('published_at', '>=', input.start)
    .where('published_at', '<=', input.end);
  if (input.channelIds) query = query.where('channel_id', 'in', input.channelIds.length ? [...input.channelIds] : ['']);
  return query.orderBy('published_at').execute();
}

/** Clicks on the short links of posts, counted by Herald's redirect, by post. */
export async function shortLinkClicks(db: Executor, postIds: readonly string[]): Promise<Map<string, number>> {
  if (postIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('short_links')
    .select((eb) => ['post_id', eb.fn.sum<number | string>('clicks').as('clicks')])
    .where('post_id', 'in', [...postIds])
    .groupBy('post_id')
    .execute();
  return new Map(rows.map((row) => [row.post_id, Number(row.clicks)]));
}
