import type { FastifyRequest } from 'fastify';
import '@fastify/multipart';
import { AppError, BadRequestError } from '../errors.ts';
import { formatBytes } from '../media/media-content.ts';
import { csvRows, type ImportRows } from './imports.csv.ts';

/** The largest CSV file an import takes (as the `csv` text of a JSON body). */
export const MAX_CSV_BYTES = 20 * 1024 * 1024;
/** Room for the multipart framing and the two small fields around the file. */
const FRAMING_BYTES = 64 * 1024;
const FIELDS = ['dryRun', 'partial'] as const;

function flag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1' || value === 'on') return true;
  throw new BadRequestError(`${name}: "${value.slice(0, 20)}" is not a boolean; send true or false.`, { code: 'invalid_field' });
}

const tooLarge = (cause?: unknown) =>
  new AppError(413, 'too_large', `The CSV file is larger than an import takes (${formatBytes(MAX_CSV_BYTES)}).`, {
    details: { limit: MAX_CSV_BYTES },
    cause,
  });

/**
 * A multipart/form-data import: a CSV file in the part `file`, parsed into rows as it arrives
 * (never held whole), and the optional fields `dryRun` and `partial` (`true`/`false`). The body
 * POST /imports validates is built from them, as if the rows had been sent as JSON.
 */
export async function readImportUpload(request: FastifyRequest): Promise<{ rows: ImportRows; dryRun: boolean; partial: boolean }> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_CSV_BYTES + FRAMING_BYTES) throw tooLarge();
  const fields: Partial<Record<(typeof FIELDS)[number], string>> = {};
  let rows: ImportRows | undefined;
  try {
    const parts = request.parts({ limits: { fileSize: MAX_CSV_BYTES, files: 1, fields: FIELDS.length, fieldSize: 64, parts: 3 } });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw new BadRequestError(`Send the CSV file in a part named "file", not "${part.fieldname}".`, { code: 'unexpected_part' });
        }
        rows = await csvRows(part.file);
      } else if ((FIELDS as readonly string[]).includes(part.fieldname))
        fields[part.fieldname as (typeof FIELDS)[number]] = String(part.value);
      else
        throw new BadRequestError(
          `Unexpected field "${part.fieldname}": a multipart import takes the part "file" and the fields dryRun and partial.`,
          {
            code: 'unexpected_part',
          },
        );
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const e = error as { code?: string; message?: string };
    if (e.code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(error);
    if (e.code === 'FST_FILES_LIMIT' || e.code === 'FST_PARTS_LIMIT' || e.code === 'FST_FIELDS_LIMIT')
      throw new BadRequestError('Send one CSV file (part "file") and at most the fields dryRun and partial.', {
        code: 'too_many_parts',
        cause: error,
      });
    throw new BadRequestError(`The multipart body is incomplete or malformed (${e.message ?? 'unreadable'}).`, {
      code: 'bad_multipart',
      cause: error,
    });
  }
  if (!rows)
    throw new BadRequestError('The request has no CSV file: send it in a multipart/form-data part named "file".', { code: 'file_missing' });
  return { rows, dryRun: flag(fields.dryRun, 'dryRun'), partial: flag(fields.partial, 'partial') };
}
