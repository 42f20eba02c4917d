export interface NotificationsTable {
  id: string;
  workspace_id: string;
  /** `publish_failed`, `comment_failed`, `channel_disconnected`, `limit_warning`. */
  kind: string;
  message: string;
  post_id: string | null;
  channel_id: string | null;
  /** Keeps a notification that must appear once (e.g. a monthly limit warning) from repeating. */
  dedupe_key: string | null;
  created_at: string;
}
