/** One bulk import of posts (a dry run too): its progress and outcome. */
export interface PostImportsTable {
  id: string;
  workspace_id: string;
  idempotency_key: string | null;
  request_hash: string;
  dry_run: number;
  partial: number;
  /** `running`, `done` (validated, or created), `invalid` (rows refused and nothing created), or `stopped` (its credential lost its access). */
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
  /** JSON array of the rows, kept while the import runs, so that another process can take it over. */
  rows: string | null;
  /** JSON of the credential that started it (without its cached versions), kept while it runs. */
  principal: string | null;
  /** The process running it. */
  runner: string | null;
  /** Until when `runner` holds it; renewed with each write of progress. Null: free to take. */
  lease_until: string | null;
}

export const IMPORT_STATUSES = ['running', 'done', 'invalid', 'stopped'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
