export interface WorkspacesTable {
  id: string;
  name: string;
  plan_name: string;
  /** 1 when the plan includes the public API; 0 answers every call with 401. */
  plan_api_access: number;
  /** Quota sizes; null means unlimited. */
  plan_posts_per_month: number | null;
  plan_channels: number | null;
  created_at: string;
}

export interface MembershipsTable {
  workspace_id: string;
  user_id: string;
  role: string;
  created_at: string;
}
