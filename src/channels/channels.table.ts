export interface ChannelsTable {
  id: string;
  workspace_id: string;
  /** The provider's identifier, e.g. `webhook` or `bluesky`. */
  provider: string;
  name: string;
  picture: string | null;
  profile: string | null;
  disabled: number;
  /** Why the channel is disabled, e.g. `needs_reconnect`; null when enabled. */
  disabled_reason: string | null;
  client_group_id: string | null;
  /** Provider configuration and credentials, sealed with the instance's SecretBox. */
  credentials: string | null;
  created_at: string;
  updated_at: string;
}
