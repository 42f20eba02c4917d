/** One bulk import of posts (a dry run too): its progress and outcome. */
export interface PostImportsTable {
  id: string;
  workspace_id: string;
  idempotency_key: string | null;
  request_hash: string;
  dry_run: number;
  partial: number;
  /** `running`, `done` (validated, or created), or `invalid` (rows refused and nothing created). */
  status: ImportStatus;
  total: number;
  /** Rows checked so far. */
  validated: number;
  /** Rows whose posts were created so far. */
  created: number;
  /** JSON array of `{row, field, message}`. */
  errors: string;
  /** JSON array of `{row, postIds, group}`. */
  posts: string;
  created_at: string;
  updated_at: string;
}

export const IMPORT_STATUSES = ['running', 'done', 'invalid'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
