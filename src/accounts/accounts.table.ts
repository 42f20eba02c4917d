/** The current sign-in code of an address (hashed; a new one replaces it) and the address's rate-limit counters. */
export interface SignInCodesTable {
  email: string;
  /** SHA-256 of the code, hex; null once used, expired or tried too often. */
  code_hash: string | null;
  expires_at: string | null;
  /** Wrong tries against the current code. */
  attempts: number;
  window_started_at: string;
  /** Codes asked for, and verifications tried, since `window_started_at`. */
  starts_in_window: number;
  verifies_in_window: number;
}

/** A signed-in browser. Only the hash of the cookie's token is kept. */
export interface SessionsTable {
  id: string;
  token_hash: string;
  user_id: string;
  /** The workspace the pages show; null picks the user's first. */
  workspace_id: string | null;
  created_at: string;
  expires_at: string;
}

/** An address an owner or admin asked to join a workspace; it becomes a membership at sign-in. */
export interface InvitationsTable {
  id: string;
  workspace_id: string;
  email: string;
  role: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
}

/** A one-time sign-in link (the owner's, printed on the first start). */
export interface SignInLinksTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}
