import type { Executor } from '../db/database.ts';
import type { ClientGroupsTable } from './groups.table.ts';

export function insertGroup(db: Executor, row: ClientGroupsTable) {
  return db.insertInto('client_groups').values(row).execute();
}

export function listGroups(db: Executor, workspaceId: string) {
  return db.selectFrom('client_groups').selectAll().where('workspace_id', '=', workspaceId).orderBy('name').orderBy('id').execute();
}

export function findGroup(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('client_groups').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}
