import type { Db } from '../db/database.ts';
import { andThen, type MaybePromise } from '../lib/maybe-promise.ts';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import { listMembershipsOfUser } from '../workspaces/workspaces.repository.ts';
import { toWorkspace, type Workspace } from '../workspaces/workspaces.service.ts';
import { effectiveScopes, grantedScopes, isRole, type Role, type Scope } from './scopes.ts';

/** What a request may do: the workspace it acts on, the owner's role there, and the scopes left. */
export type WorkspaceAccess = {
  principal: Principal;
  workspace: Workspace;
  role: Role;
  scopes: ReadonlySet<Scope>;
  /** Channel ids the key is limited to; null for all channels of the workspace. */
  channelIds: readonly string[] | null;
};

export type Membership = { workspace: Workspace; role: Role };

/** Users (with their keys' workspace limit) whose memberships are kept, at most; the oldest goes first. */
const MAX_CACHED = 10_000;

export class AccessService {
  /** Memberships by user and key limit, with the access version they were read at. */
  readonly #cache = new Map<string, { version: string; memberships: readonly Membership[] }>();

  /** Effective scopes by the key's list of scopes (the same frozen list for every request of a key) and role. */
  readonly #scopes = new WeakMap<readonly Scope[], Map<Role, ReadonlySet<Scope>>>();

  constructor(private readonly deps: { db: Db }) {}

  #effectiveScopes(keyScopes: readonly Scope[], role: Role): ReadonlySet<Scope> {
    let byRole = this.#scopes.get(keyScopes);
    if (!byRole) this.#scopes.set(keyScopes, (byRole = new Map()));
    let scopes = byRole.get(role);
    if (!scopes) byRole.set(role, (scopes = effectiveScopes(keyScopes, role)));
    return scopes;
  }

  /**
   * The workspaces the key can act in. They are read from the database unless this process
   * read them at the access version the request's key was read with: every change to
   * memberships, roles, plans or keys moves that version (database triggers), in every
   * process at once, so a change applies from the very next request anywhere. Kept ones are
   * returned synchronously.
   */
  memberships(principal: Principal): MaybePromise<readonly Membership[]> {
    const version = principal.accessVersion;
    const key = `${principal.userId}/${principal.workspaceId ?? '*'}`;
    const cached = version === undefined ? undefined : this.#cache.get(key);
    if (cached && cached.version === version) return cached.memberships;
    return listMembershipsOfUser(this.deps.db, principal.userId, principal.workspaceId).then((rows) => {
      const memberships = Object.freeze(
        rows.flatMap((row) => (isRole(row.role) ? [Object.freeze({ workspace: freezeWorkspace(toWorkspace(row)), role: row.role })] : [])),
      );
      if (version !== undefined) {
        this.#cache.delete(key);
        if (this.#cache.size >= MAX_CACHED) this.#cache.delete(this.#cache.keys().next().value!);
        this.#cache.set(key, { version, memberships });
      }
      return memberships;
    });
  }

  /**
   * The workspaces the key can act in, each with its owner's role there; the selected one (or
   * the only one) is marked `current`.
   */
  async workspaces(principal: Principal, selected: string | undefined) {
    const memberships = await this.memberships(principal);
    const current = selected !== undefined || memberships.length === 1 ? (await this.select(principal, selected)).workspace.id : null;
    return memberships.map((m) => ({
      id: m.workspace.id,
      name: m.workspace.name,
      role: m.role,
      current: m.workspace.id === current,
      apiAccess: m.workspace.plan.apiAccess,
    }));
  }

  /**
   * Picks the workspace a request acts on. `selected` is the `showorg` header. A key that
   * spans several workspaces must name one; it is never guessed.
   */
  select(principal: Principal, selected: string | undefined): MaybePromise<WorkspaceAccess> {
    return andThen(this.memberships(principal), (memberships) => this.#choose(principal, selected, memberships));
  }

  #choose(principal: Principal, selected: string | undefined, memberships: readonly Membership[]): WorkspaceAccess {
    let chosen: Membership | undefined;
    if (selected !== undefined) {
      chosen = memberships.find((m) => m.workspace.id === selected);
      if (!chosen) {
        throw new ForbiddenError(
          `This key has no access to workspace "${selected}" (its owner is not a member there, or the key is limited to another workspace).`,
          {
            code: 'workspace_forbidden',
            details: { workspace: selected, role: null },
          },
        );
      }
    } else if (memberships.length === 1) {
      chosen = memberships[0];
    } else if (memberships.length === 0) {
      throw new ForbiddenError(
        principal.workspaceId
          ? "The key's owner is no longer a member of the workspace this key is limited to."
          : "The key's owner is not a member of any workspace.",
        { code: 'no_workspace', details: { role: null } },
      );
    } else {
      throw new ForbiddenError(
        `This key spans ${memberships.length} workspaces; send the "showorg" header with one of their ids (GET /public/v1/workspaces lists them).`,
        { code: 'workspace_required', details: { workspaces: memberships.map((m) => m.workspace.id) } },
      );
    }
    if (!chosen) throw new Error('unreachable');
    if (!chosen.workspace.plan.apiAccess) {
      throw new UnauthorizedError(`The plan of workspace "${chosen.workspace.name}" does not include API access.`, {
        code: 'plan_without_api',
      });
    }
    return {
      principal,
      workspace: chosen.workspace,
      role: chosen.role,
      scopes: this.#effectiveScopes(principal.scopes, chosen.role),
      channelIds: principal.channelIds,
    };
  }
}

/** Cached workspaces are shared by requests: none may change one. */
function freezeWorkspace(workspace: Workspace): Workspace {
  Object.freeze(workspace.plan);
  return Object.freeze(workspace);
}

/** Throws a 403 that names the missing scope and the owner's role. */
export function requireScope(access: WorkspaceAccess, scope: Scope): void {
  if (access.scopes.has(scope)) return;
  const keyHasIt = grantedScopes(access.principal.scopes).has(scope);
  throw new ForbiddenError(
    keyHasIt
      ? `Missing scope "${scope}": the key has it, but its owner's role "${access.role}" in this workspace does not allow it.`
      : `Missing scope "${scope}": the key was not granted it (the owner's role here is "${access.role}").`,
    { code: 'missing_scope', details: { scope, role: access.role } },
  );
}

/**
 * Whether a channel-limited key may see and use `channelId`. The one rule every service applies
 * (REST, MCP and the CLI share it); a channel outside the key's list is answered like another
 * workspace's: not found, or forbidden where the caller named it to post to it.
 */
export function mayUseChannel(access: Pick<WorkspaceAccess, 'channelIds'>, channelId: string): boolean {
  return access.channelIds === null || access.channelIds.includes(channelId);
}
