import type { Db } from '../db/database.ts';
import { isRole, type Role } from '../auth/scopes.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { listMembershipsOfUser } from '../workspaces/workspaces.repository.ts';
import { toWorkspace, type Workspace } from '../workspaces/workspaces.service.ts';
import * as repo from './sessions.repository.ts';
import { newToken, sha256 } from './tokens.ts';

export const SESSION_TTL_MS = 14 * 24 * 60 * 60_000;

export type Session = {
  id: string;
  userId: string;
  email: string;
  name: string | null;
  createdAt: string;
  expiresAt: string;
  /** The workspace chosen for the pages, when the user still belongs to it. */
  workspaceId: string | null;
};

/** A signed-in user's view: who they are and the workspace the pages act on. */
export type SessionContext = {
  session: Session;
  memberships: Array<{ workspace: Workspace; role: Role }>;
  current: { workspace: Workspace; role: Role } | null;
};

/**
 * Browser sessions, kept in the database so every API process shares them. The cookie holds a
 * random token; only its hash is stored. Sessions are for the pages: the REST API never reads them.
 */
export class SessionsService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async create(userId: string): Promise<{ token: string; session: Session }> {
    const token = newToken();
    const now = this.deps.clock.now();
    const row = {
      id: newId(),
      token_hash: sha256(token),
      user_id: userId,
      workspace_id: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_TTL_MS).toISOString(),
    };
    await repo.insertSession(this.deps.db, row);
    // Sessions that ran out are refused anyway; clearing the user's own keeps the table small.
    await repo.deleteExpiredSessionsOfUser(this.deps.db, userId, row.created_at);
    const found = await this.resolve(token);
    if (!found) throw new Error('A session just created cannot be read back.');
    return { token, session: found };
  }

  /** The live session a token belongs to; null when unknown or expired (an expired one is deleted). */
  async resolve(token: string | undefined): Promise<Session | null> {
    if (!token || token.length > 200) return null;
    const row = await repo.findSessionByTokenHash(this.deps.db, sha256(token));
    if (!row) return null;
    if (Date.parse(row.expires_at) <= this.deps.clock.now().getTime()) {
      await repo.deleteSession(this.deps.db, row.id);
      return null;
    }
    return {
      id: row.id,
      userId: row.user_id,
      email: row.email,
      name: row.name,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      workspaceId: row.workspace_id,
    };
  }

  /** Whether the session `id` of `userId` is still signed in (not ended, not expired): work it started in the background goes on only then. */
  async isLive(id: string, userId: string): Promise<boolean> {
    const row = await repo.findSessionById(this.deps.db, id);
    return row !== undefined && row.user_id === userId && Date.parse(row.expires_at) > this.deps.clock.now().getTime();
  }

  /** The session with the user's workspaces and the one the pages act on. */
  async context(session: Session): Promise<SessionContext> {
    const rows = await listMembershipsOfUser(this.deps.db, session.userId, null);
    const memberships = rows.flatMap((row) => (isRole(row.role) ? [{ workspace: toWorkspace(row), role: row.role }] : []));
    const current = memberships.find((m) => m.workspace.id === session.workspaceId) ?? memberships[0] ?? null;
    return { session, memberships, current };
  }

  /** Chooses the workspace the pages act on; only one the user belongs to. */
  async selectWorkspace(session: Session, workspaceId: string): Promise<boolean> {
    const rows = await listMembershipsOfUser(this.deps.db, session.userId, workspaceId);
    if (rows.length === 0) return false;
    await repo.setSessionWorkspace(this.deps.db, session.id, workspaceId);
    return true;
  }

  async end(sessionId: string): Promise<void> {
    await repo.deleteSession(this.deps.db, sessionId);
  }

  /** Signs the user out in every browser. */
  async endAll(userId: string): Promise<void> {
    await repo.deleteSessionsOfUser(this.deps.db, userId);
  }

  /** Removes expired sessions (they are refused anyway); returns how many. */
  async prune(): Promise<number> {
    return Number((await repo.deleteExpiredSessions(this.deps.db, this.deps.clock.now().toISOString())).numDeletedRows);
  }
}
