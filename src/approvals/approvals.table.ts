/** The roles whose posts may be made to wait for approval; owners and admins are never asked. */
export const APPROVAL_ROLES = ['editor', 'contributor'] as const;
export type ApprovalRole = (typeof APPROVAL_ROLES)[number];

/** A workspace's approval setting; a workspace without a row asks no one for approval. */
export interface ApprovalSettingsTable {
  workspace_id: string;
  /** JSON array of `ApprovalRole`: the roles whose scheduled posts wait for an approver. */
  roles: string;
  updated_by: string | null;
  updated_at: string;
}

/** A step of a post's approval: asked for (`requested`, by the author), `approved` or `rejected` (by an approver). */
export const APPROVAL_DECISIONS = ['requested', 'approved', 'rejected'] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

export interface PostApprovalsTable {
  id: string;
  workspace_id: string;
  post_id: string;
  /** The step's number among the post's steps, from 1: their order. */
  seq: number;
  decision: ApprovalDecision;
  /** Who took the step; null once nobody can be named. */
  user_id: string | null;
  /** A rejection's reason (required), an approval's note (optional). */
  comment: string | null;
  created_at: string;
}
