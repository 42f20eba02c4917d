import type { ColumnType } from 'kysely';

export interface UploadLinksTable {
  id: string;
  workspace_id: string;
  /** SHA-256 of the secret in the link's URL, hex. The secret itself is never stored. */
  token_hash: string;
  /** The API key that created the link, or null when an OAuth access token did. */
  created_by_key_id: string | null;
  /** The OAuth grant of the access token that created the link, or null when an API key did. */
  created_by_grant_id: string | null;
  /** 1 when the link was made in the web app (the browser session): then neither a key nor a grant is recorded. */
  created_by_session: ColumnType<number, number | undefined, number>;
  /** Who created it; the link works only while that credential and this user could still upload. */
  created_by_user_id: string;
  created_at: string;
  expires_at: string;
  /** Files taken through the link so far (a file is counted before it is recorded, and uncounted if it is not). */
  files_used: number;
  /** Bytes of those files, all together. */
  bytes_used: number | string;
}

/** The files a person sent through a link, with the name they gave each. */
export interface UploadLinkFilesTable {
  upload_link_id: string;
  media_id: string;
  name: string;
  created_at: string;
}
