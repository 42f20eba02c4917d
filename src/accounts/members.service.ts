import type { Db } from '../db/database.ts';
import { isRole, ROLES, type Role } from '../auth/scopes.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { UsersService } from '../users/users.service.ts';
import type { WorkspacesService } from '../workspaces/workspaces.service.ts';
import * as repo from './accounts.repository.ts';
import { invitationMessage } from './mail-messages.ts';
import type { Mailer } from './mailer.ts';
import { normaliseEmail } from './sign-in.service.ts';

export const INVITATION_TTL_MS = 14 * 24 * 60 * 60_000;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Who is acting on the members page: a signed-in user and their role in the workspace. */
export type Actor = { userId: string; email: string; workspaceId: string; role: Role };

export type Invitation = { id: string; email: string; role: Role; createdAt: string; expiresAt: string };

/** Owners and admins manage members; only an owner grants, changes or removes the owner role. */
export function mayManageMembers(role: Role): boolean {
  return role === 'owner' || role === 'admin';
}

/** Roles an actor may hand out. */
export function grantableRoles(role: Role): Role[] {
  if (role === 'owner') return [...ROLES];
  if (role === 'admin') return ROLES.filter((r) => r !== 'owner');
  return [];
}

/**
 * A workspace's members as its owners and admins manage them in the pages: invitations by
 * e-mail, roles, removal. The membership rules themselves (roles, the last owner) live in
 * WorkspacesService, which the operator's commands share.
 */
export class MembersService {
  constructor(private readonly deps: { db: Db; clock: Clock; mailer: Mailer; baseUrl: string; users: UsersService; workspaces: WorkspacesService; later: (task: () => Promise<void>) => void }) {}

  #require(actor: Actor): void {
    if (!mayManageMembers(actor.role)) throw new ForbiddenError('Only owners and admins manage the members of a workspace.', { code: 'forbidden' });
  }

  async list(actor: Actor) {
    this.#require(actor);
    const members = await this.deps.workspaces.members(actor.workspaceId);
    const invitations: Invitation[] = (await repo.listInvitationsOfWorkspace(this.deps.db, actor.workspaceId, this.deps.clock.now().toISOString())).map((row) => ({
      id: row.id,
      email: row.email,
      role: isRole(row.role) ? row.role : 'viewer',
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }));
    return { members, invitations };
  }

  /**
   * Invites an address. Someone who already has an account joins at once; anyone else when they
   * first sign in with it (whatever the sign-up policy). Either way a mail carries the sign-in link.
   */
  async invite(actor: Actor, rawEmail: string, role: string): Promise<{ joined: boolean }> {
    this.#require(actor);
    const email = normaliseEmail(rawEmail);
    if (!EMAIL.test(email) || email.length > 254) throw new BadRequestError('That is not an e-mail address.', { code: 'invalid_email' });
    const granted = this.#checkGrant(actor, role);
    const workspace = await this.deps.workspaces.get(actor.workspaceId);
    const existing = await this.deps.users.get(email).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (existing) {
      try {
        await this.deps.workspaces.addMember(actor.workspaceId, existing.id, granted);
      } catch (error) {
        if (error instanceof ConflictError) throw new ConflictError(`${email} is already a member of this workspace.`, { code: 'already_member' });
        throw error;
      }
    } else {
      const now = this.deps.clock.now();
      await repo.upsertInvitation(this.deps.db, {
        id: newId(),
        workspace_id: actor.workspaceId,
        email,
        role: granted,
        invited_by: actor.userId,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      });
    }
    const message = invitationMessage({ baseUrl: this.deps.baseUrl, email, workspaceName: workspace.name, role: granted, invitedBy: actor.email, existingUser: existing !== null });
    this.deps.later(() => this.deps.mailer.send(message));
    return { joined: existing !== null };
  }

  async cancelInvitation(actor: Actor, invitationId: string): Promise<void> {
    this.#require(actor);
    const result = await repo.deleteInvitation(this.deps.db, actor.workspaceId, invitationId);
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError('No such invitation.');
  }

  async setRole(actor: Actor, userId: string, role: string): Promise<void> {
    this.#require(actor);
    const granted = this.#checkGrant(actor, role);
    await this.#checkTarget(actor, userId);
    await this.deps.workspaces.setRole(actor.workspaceId, userId, granted, { keepAnOwner: true });
  }

  async remove(actor: Actor, userId: string): Promise<void> {
    this.#require(actor);
    await this.#checkTarget(actor, userId);
    await this.deps.workspaces.removeMember(actor.workspaceId, userId, { keepAnOwner: true });
  }

  #checkGrant(actor: Actor, role: string): Role {
    if (!isRole(role)) throw new BadRequestError(`Unknown role "${role}". Roles: ${ROLES.join(', ')}.`, { code: 'invalid_role' });
    if (!grantableRoles(actor.role).includes(role)) throw new ForbiddenError('Only an owner can make someone an owner.', { code: 'forbidden' });
    return role;
  }

  /** An admin may not change or remove an owner. */
  async #checkTarget(actor: Actor, userId: string): Promise<void> {
    const role = await this.deps.workspaces.roleOf(actor.workspaceId, userId);
    if (role === null) throw new NotFoundError('That user is not a member of the workspace.');
    if (role === 'owner' && actor.role !== 'owner') throw new ForbiddenError('Only an owner can change or remove an owner.', { code: 'forbidden' });
  }
}
