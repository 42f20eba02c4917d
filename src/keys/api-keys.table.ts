export interface ApiKeysTable {
  id: string;
  user_id: string;
  /** `rest` keys (svc_…) or `mcp` keys (svc_mcp_…). */
  kind: string;
  name: string;
  /** SHA-256 of the secret part, hex. The secret itself is never stored. */
  secret_hash: string;
  /** JSON array of scope names. */
  scopes: string;
  /** JSON array of channel ids the key is limited to; null for every channel. */
  channel_ids: string | null;
  /** The one workspace the key is limited to; null for every workspace of its user. */
  workspace_id: string | null;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}
