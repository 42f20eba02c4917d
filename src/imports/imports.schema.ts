import * as z from 'zod';
import { count } from '../http/common.schema.ts';
import { IMPORT_STATUSES } from './imports.table.ts';

/** Imports of more rows than this run in the background (202); smaller ones answer when done. */
export const SYNC_ROWS = 100;
/** The most rows one import takes. */
export const MAX_ROWS = 10_000;

export const importRowSchema = z
  .object({
    channels: z
      .union([z.array(z.string().min(1)).min(1).max(100), z.string().min(1)])
      .describe('Channel IDs: an array, or one string with the IDs separated by `|` (as in a CSV cell).'),
    date: z
      .string()
      .min(1)
      .describe("ISO 8601 with `Z` or an offset (e.g. `2026-12-01T09:30:00Z`), or `queue` for each channel's next free slot."),
    content: z.string().max(100_000).describe('The post: plain text, Markdown or HTML, as `format` says.'),
    format: z
      .enum(['text', 'markdown', 'html'])
      .optional()
      .describe('How `content` and comments are written (default: HTML when it has tags, else text).'),
    type: z.enum(['schedule', 'draft']).optional().describe('`schedule` (default) or `draft` (placed in the calendar at `date`).'),
    media: z
      .union([z.array(z.string().min(1)).max(50), z.string()])
      .optional()
      .describe(
        "The `path`s (URLs) of files in this workspace's media library, or other http(s) URLs fetched into the library (as POST /upload-from-url; a dry run fetches them too, and needs `media:write`): an array, or one string separated by `|`.",
      ),
    comments: z
      .union([
        z.array(z.object({ content: z.string().max(100_000), delay: z.number().int().min(0).max(10_080).optional() })).max(25),
        z.string(),
      ])
      .optional()
      .describe(
        'Comments under the post, in order: an array of `{content, delay}` (delay in minutes after the previous), or, in a CSV cell, that array as JSON.',
      ),
    settings: z
      .union([z.record(z.string(), z.unknown()), z.string()])
      .optional()
      .describe("Platform settings for every channel of the row (an object, or JSON in a CSV cell); as in POST /posts' `settings`."),
    tags: z
      .union([z.array(z.string()).max(50), z.string()])
      .optional()
      .describe('Internal labels: an array, or one string separated by `|`.'),
  })
  .meta({ id: 'ImportRow' });

export const createImportBody = z
  .object({
    rows: z.array(z.record(z.string(), z.unknown())).max(MAX_ROWS).optional().describe('The rows as JSON objects (see ImportRow).'),
    csv: z
      .string()
      .max(20 * 1024 * 1024)
      .optional()
      .describe('The rows as CSV text with a header line naming the ImportRow fields (`channels,date,content,…`). Give `rows` or `csv`.'),
    dryRun: z.boolean().default(false).describe('Check every row exactly as a real import would, and create nothing.'),
    partial: z
      .boolean()
      .default(false)
      .describe(
        'Create the rows that pass and report the others. Without it an import is all or nothing: one bad row and nothing is created.',
      ),
  })
  .meta({
    id: 'CreateImport',
    examples: [
      {
        dryRun: true,
        rows: [
          { channels: ['CHANNEL_ID'], date: '2026-12-01T09:30:00Z', content: 'Hello from a **spreadsheet**', format: 'markdown' },
          { channels: 'CHANNEL_ID|OTHER_CHANNEL_ID', date: 'queue', content: 'At the next free slot', tags: 'import|december' },
        ],
      },
      { csv: 'channels,date,content\nCHANNEL_ID,2026-12-01T09:30:00Z,Hello\n', partial: true },
    ],
  });

/** POST /imports as multipart/form-data: the form, for the OpenAPI document (imports.upload.ts reads it as a stream). */
export const importUploadBody = z
  .object({
    file: z
      .file()
      .describe(
        'The CSV file (at most 20 MB): a header line naming the ImportRow fields (`channels,date,content,…`), then one row per post. Read as it arrives, never held whole.',
      ),
    dryRun: z
      .enum(['true', 'false'])
      .optional()
      .describe(
        '`true` checks every row exactly as a real import would, and creates nothing (default `false`; `1`, `0` and `on` are taken too).',
      ),
    partial: z
      .enum(['true', 'false'])
      .optional()
      .describe('`true` creates the rows that pass and reports the others (default `false`: all or nothing).'),
  })
  .describe(
    'multipart/form-data: the part `file` (required) and, optionally, the fields `dryRun` and `partial`; any other part is a 400 `unexpected_part`, a file over 20 MB a 413.',
  );

export const importErrorSchema = z
  .object({
    row: count().describe(
      'The row number: 1 is the first row after a CSV header (or the first element of `rows`); 0 for the import as a whole (why it stopped).',
    ),
    field: z.string().describe('The row field at fault (`channels`, `date`, `content`, `media`, `settings.title`, …), or `row`.'),
    message: z.string(),
  })
  .meta({ id: 'ImportError' });

export const importSchema = z
  .object({
    id: z.string(),
    status: z
      .enum(IMPORT_STATUSES)
      .describe(
        "`running` (read it again by id), `done` (checked, and created unless a dry run), `invalid` (rows were refused and, without `partial`, nothing was created), or `stopped`: the credential that started it lost its access while it ran (a key revoked, an app's access or a session ended, a member removed, a channel no longer allowed), so it created nothing more; the reason is its last error (row 0, field `import`), the rows created before stay.",
      ),
    dryRun: z.boolean(),
    partial: z.boolean(),
    total: count().describe('Rows in the import.'),
    validated: count().describe('Rows checked so far.'),
    created: count().describe('Rows whose posts were created so far.'),
    errors: z.array(importErrorSchema).describe('Every problem found, by row and field.'),
    posts: z.array(z.object({ row: count(), postIds: z.array(z.string()), group: z.string() })).describe('The posts created, by row.'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Import' });

export const importIdParams = z.object({ id: z.string().min(1).max(100) });

export type CreateImportInput = z.infer<typeof createImportBody>;
export type ImportRecord = z.infer<typeof importSchema>;
export type ImportError = z.infer<typeof importErrorSchema>;
