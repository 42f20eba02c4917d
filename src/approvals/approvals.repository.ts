import type { Executor } from '../db/database.ts';
import type { ApprovalSettingsTable, PostApprovalsTable } from './approvals.table.ts';

// Approval settings and the steps of posts' approvals, as rows.

export function findSettings(db: Executor, workspaceId: string) {
  return db.selectFrom('approval_settings').selectAll().where('workspace_id', '=', workspaceId).executeTakeFirst();
}

/** Writes a workspace's setting, replacing the one it had. */
export async function saveSettings(db: Executor, row: ApprovalSettingsTable): Promise<void> {
  await db
    .insertInto('approval_settings')
    .values(row)
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ roles: row.roles, updated_by: row.updated_by, updated_at: row.updated_at }))
    .execute();
}

/**
 * Adds a step after the post's others. Called inside the transaction that moved the post, which
 * holds its row: no other step of the post can be numbered meanwhile (the unique index stands guard).
 */
export async function insertStep(db: Executor, row: Omit<PostApprovalsTable, 'seq'>): Promise<void> {
  const last = await db
    .selectFrom('post_approvals')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('post_id', '=', row.post_id)
    .executeTakeFirst();
  await db
    .insertInto('post_approvals')
    .values({ ...row, seq: Number(last?.seq ?? 0) + 1 })
    .execute();
}

/** The steps of the approvals of `postIds`, oldest first, with the name and address of who took each (null once the user is gone). */
export function listSteps(db: Executor, postIds: readonly string[]) {
  if (postIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('post_approvals')
    .leftJoin('users', 'users.id', 'post_approvals.user_id')
    .select([
      'post_approvals.post_id',
      'post_approvals.decision',
      'post_approvals.user_id',
      'post_approvals.comment',
      'post_approvals.created_at',
      'users.email',
      'users.name',
    ])
    .where('post_approvals.post_id', 'in', postIds)
    .orderBy('post_approvals.post_id')
    .orderBy('post_approvals.seq')
    .execute();
}

/** Who last asked for the approval of a post (its author for the decision), or null. */
export async function lastRequester(db: Executor, postId: string): Promise<string | null> {
  const row = await db
    .selectFrom('post_approvals')
    .select('user_id')
    .where('post_id', '=', postId)
    .where('decision', '=', 'requested')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.user_id ?? null;
}

/** A workspace's posts awaiting approval, by publish date, at most `limit`, on `channelIds` when given. */
export function listAwaiting(db: Executor, workspaceId: string, channelIds: readonly string[] | null, limit: number) {
  let query = db
    .selectFrom('posts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('state', '=', 'AWAITING_APPROVAL')
    .where('deleted_at', 'is', null);
  if (channelIds) query = channelIds.length ? query.where('channel_id', 'in', channelIds) : query.where('id', '=', '');
  return query.orderBy('publish_at').orderBy('id').limit(limit).execute();
}
