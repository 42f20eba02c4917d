export interface ShortLinksTable {
  code: string;
  workspace_id: string;
  post_id: string;
  url: string;
  clicks: number;
  created_at: string;
}
