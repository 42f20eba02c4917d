import type { Kysely, Transaction } from 'kysely';
import type { ApiKeysTable } from '../keys/api-keys.table.ts';
import type { ChannelsTable } from '../channels/channels.table.ts';
import type { ClientGroupsTable } from '../groups/groups.table.ts';
import type { UsersTable } from '../users/users.table.ts';
import type { MembershipsTable, WorkspacesTable } from '../workspaces/workspaces.table.ts';
import type { MetaTable } from './meta.table.ts';

export interface Database {
  meta: MetaTable;
  users: UsersTable;
  workspaces: WorkspacesTable;
  memberships: MembershipsTable;
  client_groups: ClientGroupsTable;
  channels: ChannelsTable;
  api_keys: ApiKeysTable;
}

export type Db = Kysely<Database>;
/** What a repository takes: the database or a transaction on it. */
export type Executor = Kysely<Database> | Transaction<Database>;
