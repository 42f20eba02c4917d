/** A channel whose platform reports numbers: its collection schedule, lease and latest account numbers. */
export interface AnalyticsChannelsTable {
  channel_id: string;
  workspace_id: string;
  /** 0 once the channel stopped being polled (deleted, disabled, credentials refused); its history stays readable. */
  active: number;
  /** When a worker should next look at it: the earlier of `account_next_at` and its posts' next times. */
  next_collect_at: string;
  /** When its account's numbers are next read (once a day). */
  account_next_at: string;
  /** Until when one worker holds the channel; null when none does. */
  lease_until: string | null;
  lease_by: string | null;
  /** The last on-demand refresh (`refresh=true`), for the per-channel limit. */
  refreshed_at: string | null;
  /** The account's latest numbers (JSON, normalised names). */
  metrics: string | null;
  metrics_updated_at: string | null;
  /** Why the last collection failed, for people; null after a success. */
  error: string | null;
  created_at: string;
}

/** A published part (0 the post, 1… its comments) followed for numbers. */
export interface AnalyticsPostsTable {
  post_id: string;
  part: number;
  workspace_id: string;
  channel_id: string;
  release_id: string;
  release_meta: string | null;
  published_at: string;
  /** Null once past the collection horizon. */
  next_collect_at: string | null;
  /** The latest numbers (JSON, normalised names) and the platform's own fields (JSON). */
  metrics: string | null;
  raw: string | null;
  metrics_updated_at: string | null;
}

export interface AnalyticsPostSnapshotsTable {
  post_id: string;
  part: number;
  collected_at: string;
  metrics: string;
}

export interface AnalyticsChannelSnapshotsTable {
  channel_id: string;
  /** The UTC day (YYYY-MM-DD); one row per channel and day, the day's last reading. */
  day: string;
  collected_at: string;
  metrics: string;
}
