import type { Insertable } from 'kysely';
import type { Executor } from '../db/database.ts';
import type { UploadLinkFilesTable, UploadLinksTable } from './upload-links.table.ts';

export function insertUploadLink(db: Executor, row: Insertable<UploadLinksTable>) {
  return db.insertInto('upload_links').values(row).execute();
}

export function findUploadLink(db: Executor, workspaceId: string, id: string) {
  return db.selectFrom('upload_links').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/**
 * A link by its secret's hash, with what decides whether it still works: the workspace's
 * plan, the credential that made it (an API key, or the OAuth grant of an access token; null
 * once deleted) and its user's role in the workspace (null once removed).
 */
export function findUploadLinkByTokenHash(db: Executor, tokenHash: string) {
  return db
    .selectFrom('upload_links')
    .innerJoin('workspaces', 'workspaces.id', 'upload_links.workspace_id')
    .leftJoin('api_keys', 'api_keys.id', 'upload_links.created_by_key_id')
    .leftJoin('oauth_records as grants', (join) =>
      join.onRef('grants.grant_id', '=', 'upload_links.created_by_grant_id').on('grants.model', '=', 'Grant'),
    )
    .leftJoin('memberships', (join) =>
      join
        .onRef('memberships.workspace_id', '=', 'upload_links.workspace_id')
        .onRef('memberships.user_id', '=', 'upload_links.created_by_user_id'),
    )
    .select([
      'upload_links.id',
      'upload_links.workspace_id',
      'upload_links.created_at',
      'upload_links.expires_at',
      'upload_links.created_by_key_id',
      'upload_links.created_by_grant_id',
      'upload_links.created_by_session',
      'workspaces.plan_api_access',
      'api_keys.scopes as key_scopes',
      'api_keys.workspace_id as key_workspace_id',
      'api_keys.revoked_at as key_revoked_at',
      'grants.payload as grant_payload',
      'grants.workspace_id as grant_workspace_id',
      'grants.expires_at as grant_expires_at',
      'memberships.role as owner_role',
    ])
    .where('upload_links.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The files sent through a link, oldest first, with the name the person gave each. */
export function listUploadLinkFiles(db: Executor, linkId: string) {
  return db
    .selectFrom('upload_link_files')
    .innerJoin('media', 'media.id', 'upload_link_files.media_id')
    .select([
      'media.id',
      'upload_link_files.name',
      'media.storage_key',
      'media.type',
      'media.mime_type',
      'media.size',
      'upload_link_files.created_at',
    ])
    .where('upload_link_files.upload_link_id', '=', linkId)
    .orderBy('upload_link_files.created_at')
    .orderBy('media.id')
    .execute();
}

/** What a link has taken so far. */
export function uploadLinkUsage(db: Executor, linkId: string) {
  return db
    .selectFrom('upload_links')
    .select(['files_used as files', 'bytes_used as bytes'])
    .where('id', '=', linkId)
    .executeTakeFirstOrThrow();
}

/**
 * Counts one more file of `bytes` against a link, only if it still fits its limits. One
 * conditional update: the database decides, so concurrent uploads cannot go past the limits.
 * True when the file was counted.
 */
export async function takeUploadLinkSlot(
  db: Executor,
  linkId: string,
  bytes: number,
  limits: { maxFiles: number; maxBytes: number },
): Promise<boolean> {
  const result = await db
    .updateTable('upload_links')
    .set((eb) => ({ files_used: eb('files_used', '+', 1), bytes_used: eb('bytes_used', '+', bytes) }))
    .where('id', '=', linkId)
    .where('files_used', '<', limits.maxFiles)
    .where((eb) => eb(eb('bytes_used', '+', bytes), '<=', limits.maxBytes))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives back a slot taken for a file that was not recorded after all. */
export function releaseUploadLinkSlot(db: Executor, linkId: string, bytes: number) {
  return db
    .updateTable('upload_links')
    .set((eb) => ({ files_used: eb('files_used', '-', 1), bytes_used: eb('bytes_used', '-', bytes) }))
    .where('id', '=', linkId)
    .execute();
}

/** Adds a file to a link; the same file twice through one link is one entry. */
export async function insertUploadLinkFile(db: Executor, row: UploadLinkFilesTable): Promise<boolean> {
  const result = await db
    .insertInto('upload_link_files')
    .values(row)
    .onConflict((oc) => oc.columns(['upload_link_id', 'media_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Ends a link at `now` unless it has already ended; whether the link exists is `findUploadLinkById`'s. */
export function expireUploadLink(db: Executor, id: string, now: string) {
  return db.updateTable('upload_links').set({ expires_at: now }).where('id', '=', id).where('expires_at', '>', now).execute();
}

export function findUploadLinkById(db: Executor, id: string) {
  return db.selectFrom('upload_links').select(['id', 'workspace_id', 'expires_at']).where('id', '=', id).executeTakeFirst();
}
