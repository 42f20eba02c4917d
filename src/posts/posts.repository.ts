import type { ExpressionBuilder, Updateable } from 'kysely';
import type { Database, Executor } from '../db/database.ts';
import type { PartState, PostPartsTable, PostsTable, PostState } from './posts.table.ts';

// Posts and their parts as rows: the calendar's reads and the conditional updates the transitions make.

export function insertPost(db: Executor, row: PostsTable) {
  return db.insertInto('posts').values(row).execute();
}

/**
 * Rows one multi-row insert takes at most: a few thousand bound values a statement, well within
 * both databases' limits (SQLite 32,766, PostgreSQL 65,535), and a bounded piece of synchronous
 * work on SQLite.
 */
const INSERT_CHUNK = 250;

async function inChunks<R>(rows: readonly R[], insert: (chunk: R[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await insert(rows.slice(i, i + INSERT_CHUNK));
}

/** New posts, a few hundred per statement (a bulk import's batch). */
export function insertPosts(db: Executor, rows: readonly PostsTable[]) {
  return inChunks(rows, (chunk) => db.insertInto('posts').values(chunk).execute());
}

export function insertParts(db: Executor, rows: PostPartsTable[]) {
  return inChunks(rows, (chunk) => db.insertInto('post_parts').values(chunk).execute());
}

/** Media links of new posts (which have none yet). */
export function insertMediaLinks(db: Executor, rows: ReadonlyArray<{ post_id: string; media_id: string }>) {
  return inChunks(rows, (chunk) => db.insertInto('post_media').values(chunk).execute());
}

export function deleteParts(db: Executor, postId: string) {
  return db.deleteFrom('post_parts').where('post_id', '=', postId).execute();
}

export function replaceMediaLinks(db: Executor, postId: string, mediaIds: string[]) {
  return (async () => {
    await db.deleteFrom('post_media').where('post_id', '=', postId).execute();
    const unique = [...new Set(mediaIds)];
    if (unique.length)
      await db
        .insertInto('post_media')
        .values(unique.map((media_id) => ({ post_id: postId, media_id })))
        .execute();
  })();
}

/** A workspace's posts that are not deleted. */
function selectLivePosts(db: Executor, workspaceId: string) {
  return db.selectFrom('posts').selectAll().where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
}

export function findPost(db: Executor, workspaceId: string, id: string) {
  return selectLivePosts(db, workspaceId).where('id', '=', id).executeTakeFirst();
}

/** The engine reads posts without a workspace: it acts for whichever workspace owns them. */
export function findPostForEngine(db: Executor, id: string) {
  return db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Posts by id, deleted ones included (as `findPostForEngine`, for many at once). */
export function findPostsByIds(db: Executor, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('posts').selectAll().where('id', 'in', ids).execute();
}

export function listGroupPosts(db: Executor, workspaceId: string, groupId: string) {
  return selectLivePosts(db, workspaceId).where('group_id', '=', groupId).orderBy('created_at').orderBy('id').execute();
}

/** Where a page of posts in (publish_at, id) order starts: after this post (a calendar page, a channel's posts in one state). */
export type PublishPosition = { publishAt: string; id: string };

/**
 * Posts after `after` in (publish_at, id) order, written so that an index on (…, publish_at, id)
 * reads them as one range from the position: `publish_at >= x and (publish_at > x or id > y)`.
 */
export function afterPublishPosition(eb: ExpressionBuilder<Database, 'posts'>, after: PublishPosition) {
  return eb.and([
    eb('posts.publish_at', '>=', after.publishAt),
    eb.or([eb('posts.publish_at', '>', after.publishAt), eb('posts.id', '>', after.id)]),
  ]);
}

/**
 * One batch of the calendar: posts published within [from, to], in (publish_at, id) order,
 * after `after`, at most `limit` rows, read along posts_calendar_cursor_idx.
 */
export function listPostsInWindow(
  db: Executor,
  workspaceId: string,
  window: {
    from: string;
    to: string;
    groupId?: string | undefined;
    channelIds?: readonly string[] | null | undefined;
    after?: PublishPosition | null | undefined;
    limit: number;
  },
) {
  let query = db
    .selectFrom('posts')
    .innerJoin('channels', 'channels.id', 'posts.channel_id')
    .selectAll('posts')
    .select('channels.provider as provider')
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.deleted_at', 'is', null)
    .where('posts.publish_at', '<=', window.to);
  const after = window.after;
  // One lower bound, the tighter one, so the index range starts at the page and not at the window.
  if (after && after.publishAt >= window.from) {
    query = query.where((eb) => afterPublishPosition(eb, after));
  } else {
    query = query.where('posts.publish_at', '>=', window.from);
  }
  if (window.groupId !== undefined) query = query.where('channels.client_group_id', '=', window.groupId);
  if (window.channelIds) query = query.where('posts.channel_id', 'in', window.channelIds.length ? [...window.channelIds] : ['']);
  return query.orderBy('posts.publish_at').orderBy('posts.id').limit(window.limit).execute();
}

export function listParts(db: Executor, postIds: string[]) {
  if (postIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('post_parts').selectAll().where('post_id', 'in', postIds).orderBy('post_id').orderBy('idx').execute();
}

/** Conditions a post row must meet for an update to apply (the update then reports one row changed). */
export type PostGuard = {
  states?: readonly PostState[];
  notStates?: readonly PostState[];
  version?: number;
  nextRunAt?: string;
  /** Also update a deleted post (by default only live ones). */
  includeDeleted?: boolean;
};

/** Updates a post if it meets `guard`; `bump` counts the change in `version` (edits and state moves by people). */
export function updatePostIf(
  db: Executor,
  id: string,
  guard: PostGuard,
  changes: Updateable<PostsTable>,
  options: { bump?: boolean } = {},
) {
  let query = db
    .updateTable('posts')
    .set((eb) => (options.bump ? { ...changes, version: eb('version', '+', 1) } : changes))
    .where('id', '=', id);
  if (!guard.includeDeleted) query = query.where('deleted_at', 'is', null);
  if (guard.states) query = query.where('state', 'in', guard.states);
  if (guard.notStates) query = query.where('state', 'not in', guard.notStates);
  if (guard.version !== undefined) query = query.where('version', '=', guard.version);
  if (guard.nextRunAt !== undefined) query = query.where('next_run_at', '=', guard.nextRunAt);
  return query.executeTakeFirst();
}

export function findPart(db: Executor, postId: string, idx: number) {
  return db.selectFrom('post_parts').selectAll().where('post_id', '=', postId).where('idx', '=', idx).executeTakeFirst();
}

/** Updates a part if it is in one of `states` (and, with `claimedAt`, still under that claim). */
export function updatePartIf(
  db: Executor,
  postId: string,
  idx: number,
  guard: { states: readonly PartState[]; claimedAt?: string | null },
  changes: Updateable<PostPartsTable>,
) {
  let query = db
    .updateTable('post_parts')
    .set(changes)
    .where('post_id', '=', postId)
    .where('idx', '=', idx)
    .where('state', 'in', guard.states);
  if (guard.claimedAt !== undefined)
    query = guard.claimedAt === null ? query.where('claimed_at', 'is', null) : query.where('claimed_at', '=', guard.claimedAt);
  return query.executeTakeFirst();
}

export function countPostsCreatedSince(db: Executor, workspaceId: string, since: string) {
  return db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
}

/** Posts not yet published that attach a media file (the media library refuses to delete it), at most `limit`. */
export function listUnpublishedPostsUsingMedia(db: Executor, workspaceId: string, mediaId: string, limit: number) {
  return db
    .selectFrom('post_media')
    .innerJoin('posts', 'posts.id', 'post_media.post_id')
    .select('posts.id')
    .where('post_media.media_id', '=', mediaId)
    .where('posts.workspace_id', '=', workspaceId)
    .where('posts.deleted_at', 'is', null)
    .where('posts.state', '!=', 'PUBLISHED')
    .orderBy('posts.id')
    .limit(limit)
    .execute();
}

/**
 * Posts of a channel (not deleted) in one state, earliest first, at most `limit`, after `after`:
 * one range of posts_channel_state_idx, read in its order and stopped at the limit.
 */
export function listChannelPostsInState(db: Executor, channelId: string, state: PostState, after: PublishPosition | null, limit: number) {
  let query = db
    .selectFrom('posts')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('state', '=', state)
    .where('deleted_at', 'is', null);
  if (after) {
    query = query.where((eb) => afterPublishPosition(eb, after));
  }
  return query.orderBy('publish_at').orderBy('id').limit(limit).execute();
}

/**
 * Deletes up to `limit` posts of a channel, in any state, deleted ones included, with their parts
 * and media links (by the foreign keys): one statement, found along posts_channel_state_idx. How
 * many it deleted.
 */
export async function deleteChannelPosts(db: Executor, channelId: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('posts')
    .where('id', 'in', (eb) => eb.selectFrom('posts').select('id').where('channel_id', '=', channelId).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether a part of the post is being sent right now (the post itself, or a comment of a published one). */
export async function hasSendingPart(db: Executor, postId: string): Promise<boolean> {
  return (
    (await db.selectFrom('post_parts').select('idx').where('post_id', '=', postId).where('state', '=', 'SENDING').executeTakeFirst()) !==
    undefined
  );
}

/**
 * The publish times in (`after`, `until`] that posts of `channelIds` hold as slots: every live
 * post but drafts (scheduled, being published, published, failed).
 */
export async function listTakenSlots(db: Executor, channelIds: readonly string[], after: string, until: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('posts')
    .select('publish_at')
    .where('channel_id', 'in', channelIds)
    .where('deleted_at', 'is', null)
    .where('state', '!=', 'DRAFT')
    .where('publish_at', '>', after)
    .where('publish_at', '<=', until)
    .execute();
  return new Set(rows.map((row) => row.publish_at));
}

/**
 * Marks removed the occurrences of a series due after `after` that nobody is publishing or has
 * published; those a person edited or deleted on their own only `withExceptions`. The rows removed.
 */
export function removeSeriesOccurrences(db: Executor, seriesId: string, after: string, stamp: string, withExceptions: boolean) {
  let query = db
    .updateTable('posts')
    .set((eb) => ({ deleted_at: stamp, next_run_at: null, updated_at: stamp, version: eb('version', '+', 1) }))
    .where('series_id', '=', seriesId)
    .where('publish_at', '>', after)
    .where('deleted_at', 'is', null)
    .where('state', 'in', ['QUEUE', 'DRAFT', 'ERROR', 'AWAITING_APPROVAL']);
  if (!withExceptions) query = query.where('series_exception', 'is', null);
  return query.returning(['id', 'workspace_id']).execute();
}
