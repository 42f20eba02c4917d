/** Why a channel cannot post: its platform refused its credentials, or an operator disabled it. */
export type DisabledReason = 'needs_reconnect' | 'disabled_by_operator';

export interface ChannelsTable {
  id: string;
  workspace_id: string;
  /** The provider's identifier, e.g. `webhook` or `bluesky`. */
  provider: string;
  name: string;
  picture: string | null;
  profile: string | null;
  disabled: number;
  /** Why the channel is disabled; null when enabled. */
  disabled_reason: DisabledReason | null;
  client_group_id: string | null;
  /** Provider configuration and credentials, sealed with the instance's SecretBox. */
  credentials: string | null;
  /** The platform's own id for the account posts go to; null for channels created before it was kept. */
  internal_id: string | null;
  /** Post settings used when a post gives none of its own (JSON), or null. */
  preferred_settings: string | null;
  /** When the channel was deleted; its posts are kept. Null for a channel in use. */
  deleted_at: string | null;
  /** Until when one process holds the claim on renewing the credentials; null when none does. */
  renewing_until: string | null;
  /** Which renewal holds the claim (only it releases it); null when none does. */
  renewing_by: string | null;
  created_at: string;
  updated_at: string;
}

/** OAuth clients Herald registered with a platform host (e.g. a Mastodon instance). */
export interface OAuthAppsTable {
  provider: string;
  host: string;
  redirect_uri: string;
  client_id: string;
  /** Sealed with the instance's SecretBox. */
  client_secret: string;
  created_at: string;
}

/** A browser sign-in under way: single use, bound to the key and workspace that started it. */
export interface ConnectStatesTable {
  /** SHA-256 of the state sent to the platform. */
  id: string;
  workspace_id: string;
  /** The credential that started it: an API key's id, or `oauth:` and the OAuth grant's id of an access token. */
  key_id: string;
  /** The principal that started it, without its secret (`storedPrincipal`); null for a state made before it was kept. */
  principal: string | null;
  provider: string;
  /** Set when the sign-in reconnects this channel. */
  channel_id: string | null;
  client_group_id: string | null;
  /** What the provider keeps between start and finish, sealed. */
  pending: string;
  expires_at: string;
  created_at: string;
}
