/** A client group ("customer" in the public API) that channels are filed under. */
export interface ClientGroupsTable {
  id: string;
  workspace_id: string;
  name: string;
  created_at: string;
}
