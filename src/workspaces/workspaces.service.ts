import type { Db, Executor } from '../db/database.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import { isRole, type Role } from '../auth/scopes.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { findUserById } from '../users/users.repository.ts';
import * as repo from './workspaces.repository.ts';
import type { WorkspacesTable } from './workspaces.table.ts';

export type Plan = { name: string; apiAccess: boolean; postsPerMonth: number | null; channels: number | null };
export type Workspace = { id: string; name: string; plan: Plan };

type WorkspaceRow = Pick<WorkspacesTable, 'id' | 'name' | 'plan_name' | 'plan_api_access' | 'plan_posts_per_month' | 'plan_channels'>;

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    name: row.name,
    plan: {
      name: row.plan_name,
      apiAccess: Number(row.plan_api_access) === 1,
      postsPerMonth: row.plan_posts_per_month === null ? null : Number(row.plan_posts_per_month),
      channels: row.plan_channels === null ? null : Number(row.plan_channels),
    },
  };
}

export const DEFAULT_PLAN: Plan = { name: 'self-hosted', apiAccess: true, postsPerMonth: null, channels: null };

/**
 * Workspaces and memberships for the internal path: the operator's commands, the first start and
 * sign-up. No method acts for a caller: a member's changes go through MembersService, which checks
 * the member's role first, and a key's workspaces through AccessService.
 */
export class WorkspacesService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Creates a workspace; with `ownerId`, that user is its owner from the start (both or neither are saved). */
  async create(input: { name: string; plan?: Partial<Plan>; ownerId?: string | undefined }): Promise<Workspace> {
    const name = input.name.trim();
    if (!name) throw new BadRequestError('A workspace needs a name.');
    if (input.ownerId !== undefined && !(await findUserById(this.deps.db, input.ownerId)))
      throw new NotFoundError(`No user ${input.ownerId}.`);
    const plan = { ...DEFAULT_PLAN, ...input.plan };
    const row = {
      id: newId(),
      name,
      plan_name: plan.name,
      plan_api_access: plan.apiAccess ? 1 : 0,
      plan_posts_per_month: plan.postsPerMonth,
      plan_channels: plan.channels,
      created_at: this.deps.clock.now().toISOString(),
    };
    const ownerId = input.ownerId;
    await this.deps.db.transaction().execute(async (trx) => {
      await repo.insertWorkspace(trx, row);
      if (ownerId !== undefined)
        await repo.insertMembership(trx, { workspace_id: row.id, user_id: ownerId, role: 'owner', created_at: row.created_at });
    });
    return toWorkspace(row);
  }

  async list(): Promise<Workspace[]> {
    return (await repo.listWorkspaces(this.deps.db)).map(toWorkspace);
  }

  async members(workspaceId: string): Promise<Array<{ userId: string; email: string; name: string | null; role: Role }>> {
    await this.get(workspaceId);
    return (await repo.listMembers(this.deps.db, workspaceId)).map((m) => ({
      userId: m.id,
      email: m.email,
      name: m.name,
      role: m.role as Role,
    }));
  }

  /**
   * Deletes a workspace with its members, client groups, keys limited to it, upload links and
   * notifications. Refused while it has channels, deleted ones included (with their posts), or media files: those are
   * deleted first, on purpose.
   */
  async delete(id: string): Promise<Workspace> {
    const workspace = await this.get(id);
    const left = await repo.countContents(this.deps.db, id);
    if (left.channels > 0 || left.media > 0) {
      const what = [left.channels > 0 && `${left.channels} channel(s)`, left.media > 0 && `${left.media} media file(s)`]
        .filter(Boolean)
        .join(' and ');
      throw new ConflictError(
        `Workspace ${id} still has ${what}; delete them first (herald admin channel delete --purge, DELETE /public/v1/media/:id).`,
        { code: 'workspace_not_empty' },
      );
    }
    await repo.deleteWorkspace(this.deps.db, id);
    return workspace;
  }

  async get(id: string): Promise<Workspace> {
    const row = await repo.findWorkspace(this.deps.db, id);
    if (!row) throw new NotFoundError(`No workspace ${id}.`);
    return toWorkspace(row);
  }

  async setPlan(id: string, changes: Partial<Plan>): Promise<Workspace> {
    for (const [name, size] of [
      ['postsPerMonth', changes.postsPerMonth],
      ['channels', changes.channels],
    ] as const) {
      if (size !== undefined && size !== null && !(Number.isInteger(size) && size >= 0)) {
        throw new BadRequestError(`The ${name} quota must be a whole number of at least 0, or unlimited.`);
      }
    }
    if (changes.name !== undefined && !changes.name.trim()) throw new BadRequestError('A plan needs a name.');
    const update: Parameters<typeof repo.updateWorkspace>[2] = {};
    if (changes.name !== undefined) update.plan_name = changes.name;
    if (changes.apiAccess !== undefined) update.plan_api_access = changes.apiAccess ? 1 : 0;
    if (changes.postsPerMonth !== undefined) update.plan_posts_per_month = changes.postsPerMonth;
    if (changes.channels !== undefined) update.plan_channels = changes.channels;
    if (Object.keys(update).length > 0) {
      const result = await repo.updateWorkspace(this.deps.db, id, update);
      if (Number(result.numUpdatedRows) === 0) throw new NotFoundError(`No workspace ${id}.`);
    }
    return this.get(id);
  }

  async addMember(workspaceId: string, userId: string, role: string): Promise<{ workspaceId: string; userId: string; role: Role }> {
    const checked = checkRole(role);
    await this.get(workspaceId);
    if (!(await findUserById(this.deps.db, userId))) throw new NotFoundError(`No user ${userId}.`);
    try {
      await repo.insertMembership(this.deps.db, {
        workspace_id: workspaceId,
        user_id: userId,
        role: checked,
        created_at: this.deps.clock.now().toISOString(),
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError('That user is already a member of the workspace; use set-role to change the role.', { cause: error });
      throw error;
    }
    return { workspaceId, userId, role: checked };
  }

  /**
   * Changes a member's role. With `keepAnOwner` (the members page), the last owner cannot be
   * demoted; the operator's command may leave a workspace without one on purpose.
   */
  async setRole(
    workspaceId: string,
    userId: string,
    role: string,
    options: { keepAnOwner?: boolean } = {},
  ): Promise<{ workspaceId: string; userId: string; role: Role }> {
    const checked = checkRole(role);
    await this.deps.db.transaction().execute(async (trx) => {
      if (options.keepAnOwner && checked !== 'owner') await refuseLastOwner(trx, workspaceId, userId, 'change the role of');
      const result = await repo.updateMembershipRole(trx, workspaceId, userId, checked);
      if (Number(result.numUpdatedRows) === 0) throw new NotFoundError('That user is not a member of the workspace.');
    });
    return { workspaceId, userId, role: checked };
  }

  /** Removes a member; with `keepAnOwner`, never the last owner. */
  async removeMember(workspaceId: string, userId: string, options: { keepAnOwner?: boolean } = {}): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      if (options.keepAnOwner) await refuseLastOwner(trx, workspaceId, userId, 'remove');
      const result = await repo.deleteMembership(trx, workspaceId, userId);
      if (Number(result.numDeletedRows) === 0) throw new NotFoundError('That user is not a member of the workspace.');
    });
  }

  /** The role a user holds in a workspace, or null. */
  async roleOf(workspaceId: string, userId: string): Promise<Role | null> {
    const [row] = await repo.listMembershipsOfUser(this.deps.db, userId, workspaceId);
    return row && isRole(row.role) ? row.role : null;
  }
}

async function refuseLastOwner(trx: Executor, workspaceId: string, userId: string, action: string): Promise<void> {
  const [membership] = await repo.listMembershipsOfUser(trx, userId, workspaceId);
  if (membership?.role !== 'owner') return;
  if (Number((await repo.countOwners(trx, workspaceId)).n) <= 1) {
    throw new ConflictError(`You cannot ${action} the last owner of the workspace; make another member owner first.`, {
      code: 'last_owner',
    });
  }
}

function checkRole(role: string): Role {
  if (!isRole(role)) throw new BadRequestError(`Unknown role "${role}". Roles: owner, admin, editor, contributor, viewer.`);
  return role;
}
