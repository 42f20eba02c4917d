/** A weekly posting schedule: a channel's own, or (`channel_id` empty) the workspace's default. */
export interface PostingSchedulesTable {
  workspace_id: string;
  /** The channel's id; empty for the workspace's default schedule. */
  channel_id: string;
  /** An IANA time zone name. */
  time_zone: string;
  /** JSON array of `{day, time}`. */
  slots: string;
  updated_at: string;
}
