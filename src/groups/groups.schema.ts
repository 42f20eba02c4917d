import * as z from 'zod';

export const clientGroupSchema = z
  .object({ id: z.string(), name: z.string() })
  .meta({ id: 'ClientGroup', description: 'A client group ("customer") that channels are filed under.' });
