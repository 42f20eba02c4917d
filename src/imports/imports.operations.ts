import { authErrors, notFoundErrors } from '../http/common.schema.ts';
import { operation, READ_ONLY, writes } from '../operations/operation.ts';
import { createImportBody, importIdParams, importSchema, SYNC_ROWS, type ImportRecord } from './imports.schema.ts';

const describeImport = (o: ImportRecord) =>
  `Import ${o.id} (${o.dryRun ? 'dry run' : o.partial ? 'partial' : 'all or nothing'}): ${o.status}; ${o.validated}/${o.total} rows checked, ${o.created} created, ${o.errors.length} problem(s).`;

export const createImport = operation({
  name: 'import_posts',
  scope: 'posts:draft',
  body: createImportBody,
  idempotencyKey: true,
  call: (services, access, { idempotencyKey, ...input }) => services.imports.create(access, input, idempotencyKey),
  rest: {
    method: 'POST',
    url: '/imports',
    tags: ['Imports'],
    summary: 'Import posts in bulk (CSV or JSON), or check them with a dry run',
    description: `The rows as JSON (\`rows\`, or CSV text in \`csv\`), or a CSV file sent as multipart/form-data (the part \`file\`, with the fields \`dryRun\` and \`partial\`). One row per post: \`channels\`, \`date\` (or \`queue\`), \`content\` (text, Markdown or HTML by \`format\`), \`media\` (library paths), \`comments\`, \`settings\`, \`tags\`. Each row is checked exactly as POST /posts checks a request (channels visible to the key, dates, settings, media), and a row to schedule also by the readiness check of GET /posts/:id/missing (each platform's limits); \`errors\` lists every problem by row number and field. \`dryRun: true\` creates nothing. Otherwise all or nothing: one bad row and nothing is created (\`status: "invalid"\`); \`partial: true\` creates the good rows and reports the others. Scopes as POST /posts (\`posts:publish\` for rows to schedule or queue). Imports of up to ${SYNC_ROWS} rows answer when done; larger ones answer at once with \`status: "running"\` and run in the background: read GET /imports/{id} for progress. Send \`Idempotency-Key\` to make a retry answer the same import. An import running in the background checks its credential again before it writes (after a restart too): a key revoked, an app's access or a session ended, a member removed, or a channel of its rows no longer allowed stops it (\`status: "stopped"\`), and it creates nothing more.`,
    response: importSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Import posts in bulk',
    description: 'Checks (dryRun) or creates many posts from rows (JSON) or CSV text; answers per-row errors by row number and field.',
    annotations: writes({ openWorld: true }),
    output: importSchema,
    summary: describeImport,
  },
});

export const getImport = operation({
  name: 'get_import',
  scope: 'posts:read',
  params: importIdParams,
  call: (services, access, { id }) => services.imports.get(access, id),
  rest: {
    method: 'GET',
    url: '/imports/:id',
    tags: ['Imports'],
    summary: "An import's progress and outcome",
    description: 'Rows checked and created so far, every problem found by row and field, and the posts created by row.',
    response: importSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: "Read an import's progress",
    description: 'The progress and per-row outcome of a bulk import.',
    annotations: READ_ONLY,
    output: importSchema,
    summary: describeImport,
  },
});
