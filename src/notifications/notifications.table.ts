export const NOTIFICATION_KINDS = [
  'publish_failed',
  'comment_failed',
  'publish_confirmed',
  'channel_disconnected',
  'limit_warning',
  'webhook_disabled',
  'approval_requested',
  'post_approved',
  'post_rejected',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export interface NotificationsTable {
  id: string;
  workspace_id: string;
  kind: NotificationKind;
  message: string;
  post_id: string | null;
  channel_id: string | null;
  /** Keeps a notification that must appear once (e.g. a monthly limit warning) from repeating. */
  dedupe_key: string | null;
  created_at: string;
}

/** A member's read marker in a workspace: the newest notification they have read, in the list's order (time, then id). */
export interface NotificationReadsTable {
  workspace_id: string;
  user_id: string;
  read_at: string;
  read_id: string;
  updated_at: string;
}
