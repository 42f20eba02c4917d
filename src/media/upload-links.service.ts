import { createHash } from 'node:crypto';
import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import { ROLE_SCOPES, grantedScopes, isRole, isScope } from '../auth/scopes.ts';
import { grantIdOfPrincipal, grantScopes } from '../oauth/grant-scopes.ts';
import type { Db } from '../db/database.ts';
import { AppError, ForbiddenError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId, randomToken } from '../lib/ids.ts';
import { formatBytes, type MediaKind } from './media-content.ts';
import type { MediaService, StagedUpload } from './media.service.ts';
import * as repo from './upload-links.repository.ts';

/** How long a link works: the API promises two hours. */
export const UPLOAD_LINK_LIFETIME_MS = 2 * 3600_000;
/** At most this many files go through one link. */
export const UPLOAD_LINK_MAX_FILES = 500;
/** At most this many bytes go through one link, all files together. */
export const UPLOAD_LINK_MAX_BYTES = 10 * 1024 ** 3;

/** 43 characters of [0-9A-Za-z]: about 256 bits, so a link cannot be guessed. */
const TOKEN_LENGTH = 43;
const TOKEN_SHAPE = /^[0-9A-Za-z]{43}$/;

export type UploadLinkLimits = { maxFiles: number; maxBytes: number };

export type UploadLinksOptions = {
  /** The limits per link (the API promises UPLOAD_LINK_MAX_FILES and UPLOAD_LINK_MAX_BYTES; tests lower them). */
  limits?: Partial<UploadLinkLimits>;
  /** Test seam: runs once a file has been admitted, before it is read and counted. */
  hooks?: { admitted?: () => Promise<void> };
};

export type UploadLink = { id: string; url: string; expiresAt: string };

export type UploadLinkFile = { id: string; name: string; path: string; type: MediaKind };

export type UploadLinkContents = { id: string; status: 'empty' | 'ready'; count: number; files: UploadLinkFile[] };

/**
 * What a link's secret opens:
 * - `active`: the page works;
 * - `expired`: two hours have passed;
 * - `inactive`: the key that made it was revoked, or the OAuth access that made it was revoked
 *   (its app deleted), its user can no longer upload to the workspace (removed, demoted), or
 *   the workspace's plan lost API access;
 * - `unknown`: no such link (or it was deleted with its workspace).
 */
export type LinkState =
  | { state: 'active'; linkId: string; workspaceId: string; expiresAt: string }
  | { state: 'expired'; expiresAt: string }
  | { state: 'inactive' }
  | { state: 'unknown' };

/** The grant an OAuth principal's access token belongs to. */
function grantIdOf(keyId: string): string {
  const grantId = grantIdOfPrincipal(keyId);
  if (!grantId) throw new ForbiddenError('This OAuth access token belongs to no grant; ask for a new one.', { code: 'invalid_token' });
  return grantId;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export class UploadLinksService {
  readonly limits: UploadLinkLimits;

  constructor(private readonly deps: { db: Db; clock: Clock; baseUrl: string; media: MediaService; uploadLinks?: UploadLinksOptions }) {
    this.limits = { maxFiles: UPLOAD_LINK_MAX_FILES, maxBytes: UPLOAD_LINK_MAX_BYTES, ...deps.uploadLinks?.limits };
  }

  /** The page a person opens; the secret in it is all the page needs. */
  urlOf(token: string): string {
    return `${this.deps.baseUrl}/u/${token}`;
  }

  /**
   * A new link for the caller's workspace; it works for two hours, and only while the credential
   * that made it (an API key, or an OAuth token's grant) could still upload. One made with the
   * browser session (the web app) depends on its member's role only: a session lasts less than
   * its link, and signing out does not take back a link already shared.
   */
  async create(access: WorkspaceAccess): Promise<UploadLink> {
    requireScope(access, 'media:write');
    const { principal: creator, workspace } = access;
    const oauth = creator.credential === 'oauth';
    // A link made in the web app (the browser session) is bound to its member alone: it works its two hours while they may upload here.
    const session = creator.credential === 'session';
    const token = randomToken(TOKEN_LENGTH);
    const now = this.deps.clock.now();
    const row = {
      id: newId(),
      workspace_id: workspace.id,
      token_hash: hashToken(token),
      created_by_key_id: oauth || session ? null : creator.keyId,
      created_by_grant_id: oauth ? grantIdOf(creator.keyId) : null,
      created_by_session: session ? 1 : 0,
      created_by_user_id: creator.userId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + UPLOAD_LINK_LIFETIME_MS).toISOString(),
      files_used: 0,
      bytes_used: 0,
    };
    await repo.insertUploadLink(this.deps.db, row);
    return { id: row.id, url: this.urlOf(token), expiresAt: row.expires_at };
  }

  /**
   * What has arrived through a link, oldest first. A link of another workspace (or one that
   * does not exist) has the same empty answer: it is not an error, and it reveals nothing.
   */
  async contents(access: WorkspaceAccess, id: string): Promise<UploadLinkContents> {
    requireScope(access, 'media:write');
    const link = await repo.findUploadLink(this.deps.db, access.workspace.id, id);
    const files = link ? await this.#files(link.id) : [];
    return { id, status: files.length > 0 ? 'ready' : 'empty', count: files.length, files };
  }

  async #files(linkId: string): Promise<UploadLinkFile[]> {
    const rows = await repo.listUploadLinkFiles(this.deps.db, linkId);
    return rows.map((row) => ({ id: row.id, name: row.name, path: this.deps.media.pathOf(row.storage_key), type: row.type as MediaKind }));
  }

  /**
   * The operator's: ends a link now, as its two hours would (to try what a person then sees);
   * the files sent through it stay in the library. A link already ended keeps its end.
   */
  async expire(id: string): Promise<{ id: string; workspaceId: string; expiresAt: string }> {
    await repo.expireUploadLink(this.deps.db, id, this.deps.clock.now().toISOString());
    const row = await repo.findUploadLinkById(this.deps.db, id);
    if (!row) throw new NotFoundError(`No upload link ${id}.`);
    return { id: row.id, workspaceId: row.workspace_id, expiresAt: row.expires_at };
  }

  /** Whether the secret opens a link right now. */
  async resolve(token: string): Promise<LinkState> {
    if (!TOKEN_SHAPE.test(token)) return { state: 'unknown' };
    const row = await repo.findUploadLinkByTokenHash(this.deps.db, hashToken(token));
    if (!row) return { state: 'unknown' };
    if (this.deps.clock.now().getTime() >= Date.parse(row.expires_at)) return { state: 'expired', expiresAt: row.expires_at };
    const ownerMayUpload = row.owner_role !== null && isRole(row.owner_role) && ROLE_SCOPES[row.owner_role].has('media:write');
    if (Number(row.plan_api_access) !== 1 || !ownerMayUpload || !this.#creatorMayUpload(row)) return { state: 'inactive' };
    return { state: 'active', linkId: row.id, workspaceId: row.workspace_id, expiresAt: row.expires_at };
  }

  /** Whether the key or OAuth grant that made a link could still upload to its workspace (its user's role is checked apart); a session's link has neither. */
  #creatorMayUpload(row: NonNullable<Awaited<ReturnType<typeof repo.findUploadLinkByTokenHash>>>): boolean {
    const mayUpload = (scopes: string[]) => grantedScopes(scopes.filter(isScope)).has('media:write');
    // Made with the browser session: its member's role, checked apart, is the only condition.
    if (Number(row.created_by_session) === 1) return true;
    if (row.created_by_key_id !== null) {
      return (
        row.key_scopes !== null &&
        row.key_revoked_at === null &&
        mayUpload(JSON.parse(row.key_scopes) as string[]) &&
        (row.key_workspace_id === null || row.key_workspace_id === row.workspace_id)
      );
    }
    if (row.grant_payload === null || row.grant_workspace_id !== row.workspace_id) return false;
    if (row.grant_expires_at !== null && Number(row.grant_expires_at) * 1000 <= this.deps.clock.now().getTime()) return false;
    // The grant's scopes, over both resources (a token for the MCP server makes links with mcp:write).
    return mayUpload(grantScopes(row.grant_payload));
  }

  /** The files of an active link, for its page; nothing else of the library is ever shown. */
  async filesOf(token: string): Promise<UploadLinkFile[]> {
    const link = await this.#requireActive(token);
    return this.#files(link.linkId);
  }

  /**
   * Checks that the link takes one more file of about `declaredBytes` (the request's size, if
   * known). Called before the file is read, so a refused upload costs nothing; `add` decides.
   */
  async admit(token: string, declaredBytes: number | undefined): Promise<Extract<LinkState, { state: 'active' }>> {
    const link = await this.#requireActive(token);
    const usage = await repo.uploadLinkUsage(this.deps.db, link.linkId);
    this.#checkRoom(usage, declaredBytes ?? 0);
    await this.deps.uploadLinks?.hooks?.admitted?.();
    return link;
  }

  /**
   * Records a staged file as sent through the link, under the name the person gave it. The file
   * is counted against the link's limits first, by one conditional update, so concurrent
   * uploads cannot go past them; a file refused there is discarded and never reaches the library.
   */
  async add(link: Extract<LinkState, { state: 'active' }>, staged: StagedUpload): Promise<UploadLinkFile> {
    const { db } = this.deps;
    if (!(await repo.takeUploadLinkSlot(db, link.linkId, staged.size, this.limits))) {
      await this.deps.media.discard(staged).catch(() => {});
      this.#checkRoom(await repo.uploadLinkUsage(db, link.linkId), staged.size);
      // The link had room again by the time it was read (another upload failed and gave its slot back).
      throw this.#fullError('files');
    }
    let recorded = false;
    try {
      const { media } = await this.deps.media.commit(link.workspaceId, staged, { uploadLinkId: link.linkId });
      // The same file twice through one link is one entry, counted once.
      recorded = await repo.insertUploadLinkFile(db, {
        upload_link_id: link.linkId,
        media_id: media.id,
        name: staged.name,
        created_at: this.deps.clock.now().toISOString(),
      });
      return { id: media.id, name: staged.name, path: media.path, type: media.type };
    } finally {
      if (!recorded) await repo.releaseUploadLinkSlot(db, link.linkId, staged.size);
    }
  }

  #checkRoom(usage: { files: number; bytes: number | string }, bytes: number): void {
    if (Number(usage.files) >= this.limits.maxFiles) throw this.#fullError('files');
    if (Number(usage.bytes) + bytes > this.limits.maxBytes) throw this.#fullError('bytes');
  }

  #fullError(what: 'files' | 'bytes'): ForbiddenError {
    return what === 'files'
      ? new ForbiddenError(`This link has taken the most files it accepts (${this.limits.maxFiles}). Ask for a new link.`, {
          code: 'link_full',
        })
      : new ForbiddenError(
          `This link has taken the most data it accepts (${formatBytes(this.limits.maxBytes)} in all). Ask for a new link.`,
          { code: 'link_full' },
        );
  }

  async #requireActive(token: string): Promise<Extract<LinkState, { state: 'active' }>> {
    const link = await this.resolve(token);
    if (link.state === 'active') return link;
    if (link.state === 'expired') throw new AppError(410, 'link_expired', 'This upload link has expired; ask for a new one.');
    if (link.state === 'inactive') throw new AppError(410, 'link_inactive', 'This upload link is no longer active; ask for a new one.');
    throw new AppError(404, 'link_not_found', 'This upload link does not exist. Check that the address is complete.');
  }
}
