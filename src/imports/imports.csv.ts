import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { AppError, BadRequestError } from '../errors.ts';
import { MAX_ROWS } from './imports.schema.ts';

export type ImportRows = Array<Record<string, unknown>>;

/**
 * The rows of a CSV import, read as they arrive (text, or a stream such as an uploaded file):
 * the header names the fields, and an empty cell is a field left out. More than `MAX_ROWS`
 * rows stops the reading at once.
 */
export async function csvRows(source: string | Readable): Promise<ImportRows> {
  const input = typeof source === 'string' ? Readable.from([source]) : source;
  const parser = parse({ columns: true, skip_empty_lines: true, trim: true, bom: true, relax_column_count: false });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  const rows: ImportRows = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (rows.length === MAX_ROWS) {
        input.unpipe(parser);
        input.resume();
        throw new BadRequestError(`csv: more than ${MAX_ROWS} rows; an import takes at most ${MAX_ROWS}.`, { code: 'import_rows' });
      }
      rows.push(Object.fromEntries(Object.entries(record).filter(([, value]) => value !== '')));
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const e = error as { code?: string; statusCode?: number; message?: string };
    // The upload's own failures (too large, cut off) keep their meaning; the parser's are the CSV's.
    if (e.code?.startsWith('FST_') || e.code === 'ERR_STREAM_PREMATURE_CLOSE') throw error;
    throw new BadRequestError(`csv: ${e.message ?? String(error)}`, { code: 'invalid_csv' });
  }
  return rows;
}
