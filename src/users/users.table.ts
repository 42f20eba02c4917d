export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
}
