import * as z from 'zod';
import { authErrors } from '../http/common.schema.ts';
import { listSummary, operation, READ_ONLY } from '../operations/operation.ts';
import { clientGroupSchema } from './groups.schema.ts';

export const listGroups = operation({
  name: 'list_groups',
  scope: 'channels:read',
  call: (services, access) => services.groups.list(access),
  rest: {
    method: 'GET',
    url: '/groups',
    tags: ['Channels'],
    summary: 'List client groups',
    response: z.array(clientGroupSchema),
    errors: authErrors,
  },
  mcp: {
    title: 'List client groups',
    description: 'The client groups ("customers") channels are filed under; a group id filters list_channels and list_posts.',
    annotations: READ_ONLY,
    output: z.object({ groups: z.array(clientGroupSchema) }),
    present: (groups) => ({ groups }),
    summary: (o) => listSummary(o.groups, 'client group', (g) => `${g.name} (${g.id})`),
  },
});
