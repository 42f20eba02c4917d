import type { Executor } from '../db/database.ts';
import type { MembershipsTable, WorkspacesTable } from './workspaces.table.ts';

export function insertWorkspace(db: Executor, row: WorkspacesTable) {
  return db.insertInto('workspaces').values(row).execute();
}

export function findWorkspace(db: Executor, id: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export function updateWorkspace(db: Executor, id: string, changes: Partial<Omit<WorkspacesTable, 'id' | 'created_at'>>) {
  return db.updateTable('workspaces').set(changes).where('id', '=', id).executeTakeFirst();
}

export function insertMembership(db: Executor, row: MembershipsTable) {
  return db.insertInto('memberships').values(row).execute();
}

export function updateMembershipRole(db: Executor, workspaceId: string, userId: string, role: string) {
  return db
    .updateTable('memberships')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function deleteMembership(db: Executor, workspaceId: string, userId: string) {
  return db.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
}

/** The workspaces a user belongs to, with the role held in each, oldest membership first. */
export function listMembershipsOfUser(db: Executor, userId: string, onlyWorkspaceId: string | null) {
  let query = db
    .selectFrom('memberships')
    .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
    .select([
      'workspaces.id',
      'workspaces.name',
      'workspaces.plan_name',
      'workspaces.plan_api_access',
      'workspaces.plan_posts_per_month',
      'workspaces.plan_channels',
      'memberships.role',
    ])
    .where('memberships.user_id', '=', userId);
  if (onlyWorkspaceId !== null) query = query.where('memberships.workspace_id', '=', onlyWorkspaceId);
  return query.orderBy('memberships.created_at').orderBy('workspaces.id').execute();
}

export function countOwners(db: Executor, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
}

export function listWorkspaces(db: Executor) {
  return db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function deleteWorkspace(db: Executor, id: string) {
  return db.deleteFrom('workspaces').where('id', '=', id).executeTakeFirst();
}

/** A workspace's members with their roles, oldest membership first. */
export function listMembers(db: Executor, workspaceId: string) {
  return db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.name', 'memberships.role'])
    .where('memberships.workspace_id', '=', workspaceId)
    .orderBy('memberships.created_at')
    .orderBy('users.id')
    .execute();
}

/** What a workspace still holds that deleting it would lose without a trace: channels (with their posts) and media files. */
export async function countContents(db: Executor, workspaceId: string) {
  const [channels, media] = await Promise.all([
    db
      .selectFrom('channels')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('media')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { channels: Number(channels.n), media: Number(media.n) };
}
