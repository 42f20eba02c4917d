import { sha256 } from '../accounts/tokens.ts';
import type { Db } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { findKey } from '../keys/api-keys.repository.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { KeyKind } from '../keys/key-format.ts';
import type { Clock } from '../lib/clock.ts';
import { grantIdOfPrincipal, grantScopes } from '../oauth/grant-scopes.ts';
import { findRecord } from '../oauth/oauth.repository.ts';
import type { AccessService, WorkspaceAccess } from './access.service.ts';
import { isScope, type Scope } from './scopes.ts';

/** A principal as kept with work that outlives its request: what access is rebuilt from, without the versions a request read it at. */
export function storedPrincipal(principal: Principal): string {
  const { keyId, credential, userId, kind, scopes, channelIds, workspaceId } = principal;
  return JSON.stringify({ keyId, credential, userId, kind, scopes, channelIds, workspaceId });
}

/**
 * The credential that started work which goes on after its request (a bulk import in the
 * background, taken over after a restart), as it stands now. The work keeps the credential's
 * principal (without its secret); before it writes, it asks here whether that credential still
 * may act: an API key not revoked (with its scopes, channels and workspace limit as they are now),
 * an OAuth grant not revoked nor expired, a browser session not ended; and its user still a member
 * of the workspace, with the role's scopes as they are now.
 */
export class CredentialStanding {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      access: AccessService;
      sessions: { isLive(id: string, userId: string): Promise<boolean> };
    },
  ) {}

  /**
   * The access the credential of `stored` has in `workspaceId` now. A revoked or expired
   * credential is a 403 `credential_revoked`; a user no longer a member (or a plan without API
   * access) is refused as a request would be.
   */
  async access(stored: Principal, workspaceId: string): Promise<WorkspaceAccess> {
    const principal = await this.#current(stored);
    if (!principal)
      throw new ForbiddenError(
        stored.credential === 'session'
          ? 'The browser session that started it has ended.'
          : stored.credential === 'oauth'
            ? "The app's access that started it was revoked or has expired."
            : 'The API key that started it was revoked or deleted.',
        { code: 'credential_revoked' },
      );
    return this.deps.access.select(principal, workspaceId);
  }

  /** The principal as its credential stands now (nothing cached), or null when it may no longer act. */
  async #current(stored: Principal): Promise<Principal | null> {
    const { keyId, credential = 'key', userId, kind, workspaceId } = stored;
    const now = this.deps.clock.now().getTime();
    if (credential === 'session') {
      const live = await this.deps.sessions.isLive(keyId.slice('session:'.length), userId);
      return live ? { keyId, credential, userId, kind, scopes: stored.scopes, channelIds: stored.channelIds, workspaceId } : null;
    }
    if (credential === 'oauth') {
      const grantId = grantIdOfPrincipal(keyId);
      const grant = grantId === null ? undefined : await findRecord(this.deps.db, 'Grant', sha256(grantId));
      if (!grant || grant.user_id !== userId || grant.workspace_id !== workspaceId) return null;
      if (grant.expires_at !== null && Number(grant.expires_at) * 1000 <= now) return null;
      const held = new Set(grantScopes(grant.payload));
      return { keyId, credential, userId, kind, scopes: stored.scopes.filter((s) => held.has(s)), channelIds: null, workspaceId };
    }
    const key = await findKey(this.deps.db, keyId);
    if (!key || key.revoked_at !== null || key.user_id !== userId || key.kind !== kind) return null;
    return {
      keyId,
      credential,
      userId,
      kind: key.kind as KeyKind,
      scopes: (JSON.parse(key.scopes) as string[]).filter((s): s is Scope => isScope(s)),
      channelIds: key.channel_ids === null ? null : (JSON.parse(key.channel_ids) as string[]),
      workspaceId: key.workspace_id,
    };
  }
}
