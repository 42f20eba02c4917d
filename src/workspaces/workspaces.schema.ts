import * as z from 'zod';
import { roleSchema } from '../auth/scopes.ts';

export const workspaceSchema = z
  .object({
    id: z.string().describe('Workspace ID; send it as the `showorg` header to act on this workspace.'),
    name: z.string(),
    role: roleSchema.describe(
      "The role the key's owner holds here: owner, admin, editor (read, draft, publish, upload), contributor (read, draft, upload) or viewer (read).",
    ),
    current: z.boolean().describe('True for the workspace this request acted on (the `showorg` one, or the only one).'),
    apiAccess: z.boolean().describe("Whether the workspace's plan includes the API; calls acting on it answer 401 otherwise."),
  })
  .meta({ id: 'Workspace' });
