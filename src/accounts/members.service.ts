import type { Db } from '../db/database.ts';
import { isRole, ROLES, type Role } from '../auth/scopes.ts';
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../errors.ts';
import type { ClockedQuota } from '../http/rate-limit-store.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { emailSchema, normaliseEmail } from '../users/users.schema.ts';
import type { User } from '../users/users.service.ts';
import type { WorkspacesService } from '../workspaces/workspaces.service.ts';
import * as repo from './accounts.repository.ts';
import { invitationMessage } from './mail-messages.ts';
import type { Mailer } from './mailer.ts';

export const INVITATION_TTL_MS = 14 * 24 * 60 * 60_000;
/** Invitations (each one a mail) per window, per inviter and per workspace. */
export const INVITATION_WINDOW_MS = 60 * 60_000;
export const MAX_INVITATIONS_PER_INVITER = 10;
export const MAX_INVITATIONS_PER_WORKSPACE = 20;

/** Who is acting on the members page: a signed-in user and their role in the workspace. */
export type Actor = { userId: string; email: string; workspaceId: string; role: Role };

export type Invitation = { id: string; email: string; role: Role; createdAt: string; expiresAt: string };

/** An invitation as its recipient sees it: where to, as what, from whom (null once that account is gone). */
export type ReceivedInvitation = {
  id: string;
  workspaceId: string;
  workspaceName: string;
  role: Role;
  invitedBy: string | null;
  expiresAt: string;
};

function toReceived(row: Awaited<ReturnType<typeof repo.listInvitationsToEmail>>[number]): ReceivedInvitation {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    workspaceName: row.workspace_name,
    role: isRole(row.role) ? row.role : 'viewer',
    invitedBy: row.invited_by_email,
    expiresAt: row.expires_at,
  };
}

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
 * e-mail, roles, removal; and invitations as their recipients accept or decline them. The
 * membership rules themselves (roles, the last owner) live in WorkspacesService, which the
 * operator's commands share.
 */
export class MembersService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      mailer: Mailer;
      baseUrl: string;
      workspaces: WorkspacesService;
      quota: ClockedQuota;
      later: (task: () => Promise<void>) => void;
    },
  ) {}

  #require(actor: Actor): void {
    if (!mayManageMembers(actor.role))
      throw new ForbiddenError('Only owners and admins manage the members of a workspace.', { code: 'forbidden' });
  }

  async list(actor: Actor) {
    this.#require(actor);
    const members = await this.deps.workspaces.members(actor.workspaceId);
    const invitations: Invitation[] = (
      await repo.listInvitationsOfWorkspace(this.deps.db, actor.workspaceId, this.deps.clock.now().toISOString())
    ).map((row) => ({
      id: row.id,
      email: row.email,
      role: isRole(row.role) ? row.role : 'viewer',
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }));
    return { members, invitations };
  }

  /**
   * Invites an address: a mail asks its owner to sign in and accept. Nobody joins before they
   * accept, and the answer is the same whether or not the address has an account. Returns where
   * the mail went (the recipient, or only the server's log).
   */
  async invite(actor: Actor, rawEmail: string, role: string): Promise<{ mail: Mailer['delivery'] }> {
    this.#require(actor);
    const email = normaliseEmail(rawEmail);
    if (!emailSchema.safeParse(email).success) throw new BadRequestError('That is not an e-mail address.', { code: 'invalid_email' });
    const granted = this.#checkGrant(actor, role);
    const workspace = await this.deps.workspaces.get(actor.workspaceId);
    // The members are on this page already: saying so tells the inviter nothing new.
    if ((await this.deps.workspaces.members(actor.workspaceId)).some((m) => m.email === email)) {
      throw new ConflictError(`${email} is already a member of this workspace.`, { code: 'already_member' });
    }
    await this.#countInvitation(actor);
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
    const message = invitationMessage({
      baseUrl: this.deps.baseUrl,
      email,
      workspaceName: workspace.name,
      role: granted,
      invitedBy: actor.email,
    });
    this.deps.later(() => this.deps.mailer.send(message));
    return { mail: this.deps.mailer.delivery };
  }

  /** Each invitation sends a mail: counted per inviter and per workspace, in every process alike. */
  async #countInvitation(actor: Actor): Promise<void> {
    const limits = [
      { key: `invitations|user:${actor.userId}`, max: MAX_INVITATIONS_PER_INVITER, who: 'you' },
      { key: `invitations|workspace:${actor.workspaceId}`, max: MAX_INVITATIONS_PER_WORKSPACE, who: 'this workspace' },
    ];
    for (const limit of limits) {
      const waitMs = await this.deps.quota.take(limit.key, limit.max, INVITATION_WINDOW_MS);
      if (waitMs === null) continue;
      const minutes = Math.ceil(waitMs / 60_000);
      throw new AppError(
        429,
        'rate_limited',
        `Too many invitations: ${limit.who} may send ${limit.max} an hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        {
          headers: { 'Retry-After': String(Math.ceil(waitMs / 1000)) },
        },
      );
    }
  }

  /** The invitations waiting for a user's answer. */
  async received(user: Pick<User, 'email'>): Promise<ReceivedInvitation[]> {
    return (await repo.listInvitationsToEmail(this.deps.db, user.email, this.deps.clock.now().toISOString())).map(toReceived);
  }

  /**
   * The recipient, signed in with the invited address, joins. The invitation holds only while
   * whoever sent it may still grant its role there.
   */
  async accept(user: Pick<User, 'id' | 'email'>, invitationId: string): Promise<ReceivedInvitation> {
    const gone = () => new NotFoundError('No such invitation: it was cancelled, answered or has expired.');
    const [row] = await repo.listInvitationsToEmail(this.deps.db, user.email, this.deps.clock.now().toISOString(), invitationId);
    if (!row) throw gone();
    const invitation = toReceived(row);
    const senderRole = row.invited_by === null ? null : await this.deps.workspaces.roleOf(row.workspace_id, row.invited_by);
    const claimed = await repo.deleteInvitationToEmail(this.deps.db, row.id, user.email);
    if (Number(claimed.numDeletedRows) === 0) throw gone();
    if (senderRole === null || !grantableRoles(senderRole).includes(invitation.role)) {
      throw new ConflictError(
        'This invitation no longer holds: whoever sent it may no longer grant that role there. Ask an owner of the workspace to invite you again.',
        { code: 'invitation_invalid' },
      );
    }
    try {
      await this.deps.workspaces.addMember(row.workspace_id, user.id, invitation.role);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    return invitation;
  }

  async decline(user: Pick<User, 'email'>, invitationId: string): Promise<void> {
    const result = await repo.deleteInvitationToEmail(this.deps.db, invitationId, user.email);
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError('No such invitation: it was cancelled, answered or has expired.');
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
    if (!grantableRoles(actor.role).includes(role))
      throw new ForbiddenError('Only an owner can make someone an owner.', { code: 'forbidden' });
    return role;
  }

  /** An admin may not change or remove an owner. */
  async #checkTarget(actor: Actor, userId: string): Promise<void> {
    const role = await this.deps.workspaces.roleOf(actor.workspaceId, userId);
    if (role === null) throw new NotFoundError('That user is not a member of the workspace.');
    if (role === 'owner' && actor.role !== 'owner')
      throw new ForbiddenError('Only an owner can change or remove an owner.', { code: 'forbidden' });
  }
}
