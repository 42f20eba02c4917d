/** One stored object of the authorization server (see the oauth migration). */
export interface OAuthRecordsTable {
  /** The kind: Client, Grant, AccessToken, RefreshToken, AuthorizationCode, DeviceCode, Interaction, Session… */
  model: string;
  /** SHA-256 (hex) of the object's id; for tokens the id is the token itself. */
  id_hash: string;
  /** The object as JSON. */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  user_code_hash: string | null;
  user_id: string | null;
  workspace_id: string | null;
  client_id: string | null;
  /** Seconds since the epoch; null for what does not expire (registered clients, keys). */
  expires_at: number | string | bigint | null;
  consumed_at: number | string | bigint | null;
}
