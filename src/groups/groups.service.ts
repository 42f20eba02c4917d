import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { Db } from '../db/database.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import * as repo from './groups.repository.ts';

export type ClientGroup = { id: string; name: string };

export class GroupsService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** The operator's path (`herald admin group create`): callers have no way to create groups. */
  async create(workspaceId: string, name: string): Promise<ClientGroup> {
    const trimmed = name.trim();
    if (!trimmed) throw new BadRequestError('A client group needs a name.');
    const row = { id: newId(), workspace_id: workspaceId, name: trimmed, created_at: this.deps.clock.now().toISOString() };
    await repo.insertGroup(this.deps.db, row);
    return { id: row.id, name: row.name };
  }

  async list(access: WorkspaceAccess): Promise<ClientGroup[]> {
    requireScope(access, 'channels:read');
    const rows = await repo.listGroups(this.deps.db, access.workspace.id);
    return rows.map((row) => ({ id: row.id, name: row.name }));
  }

  /** Another workspace's group is "not found", exactly like a missing one. */
  async get(workspaceId: string, id: string): Promise<ClientGroup> {
    const row = await repo.findGroup(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No client group ${id} in this workspace.`);
    return { id: row.id, name: row.name };
  }
}
