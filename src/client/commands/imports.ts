import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { readText } from '../content.ts';
import { EXIT, UsageError } from '../errors.ts';
import { show, table } from '../output.ts';
import { act, examples } from '../program.ts';
import { stdio } from '../stdio.ts';

type Import = components['schemas']['Import'];

/** How long between two reads of a background import's progress (real time: the server does the work). */
const POLL_MS = 1000;

/** A progress bar of rows on standard error, when it is a terminal. */
function rowsBar(label: string): (done: number, total: number, end?: boolean) => void {
  if (!stdio().stderr.isTTY) return () => {};
  return (done, total, end = false) => {
    const percent = total ? Math.floor((done / total) * 100) : 100;
    const width = 24;
    const filled = Math.round((percent / 100) * width);
    stdio().stderr.write(
      `\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}% ${done}/${total} rows${end ? '\n' : ''}`,
    );
  };
}

export function register(program: Command): void {
  examples(
    program
      .command('import')
      .description(
        'import posts from a CSV file (or a JSON array of rows): check them with --dry-run, then create them; exit code 3 when any row is refused',
      )
      .argument('<file>', 'a .csv file with a header line (channels,date,content,…) or a .json array of rows')
      .option('--dry-run', 'check every row as a real import would, and create nothing')
      .option('--partial', 'create the rows that pass and report the others (default: all or nothing)')
      .action(
        act(async ({ out, opts, api }, file: string) => {
          const o = opts as { dryRun?: boolean; partial?: boolean };
          const text = readText(file);
          let body: components['schemas']['CreateImportInput'];
          if (file.toLowerCase().endsWith('.json')) {
            let rows: unknown;
            try {
              rows = JSON.parse(text);
            } catch {
              throw new UsageError(`${file} is not JSON; give a .csv file, or a .json array of rows.`);
            }
            if (!Array.isArray(rows)) throw new UsageError(`${file} holds no JSON array of rows.`);
            body = { rows: rows as Array<Record<string, never>>, dryRun: Boolean(o.dryRun), partial: Boolean(o.partial) };
          } else body = { csv: text, dryRun: Boolean(o.dryRun), partial: Boolean(o.partial) };
          const key = randomUUID();
          let result = await api().request<Import>('POST', '/imports', { json: body, headers: { 'idempotency-key': key }, retry: true });
          const bar = rowsBar(o.dryRun ? 'Checking' : 'Importing');
          while (result.status === 'running') {
            bar(result.dryRun ? result.validated : result.validated + result.created, result.dryRun ? result.total : result.total * 2);
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            result = await api().get<Import>(`/imports/${result.id}`);
          }
          bar(result.total, result.total, true);
          show(out, result, () => [
            result.status === 'stopped'
              ? `Import stopped after ${result.created} of ${result.total} rows: ${result.errors.at(-1)?.message ?? 'its credential lost its access'}`
              : result.dryRun
                ? result.errors.length
                  ? `Dry run: ${result.errors.length} problem(s) in ${result.total} rows; nothing was created.`
                  : `Dry run: all ${result.total} rows are ready to import.`
                : result.errors.length
                  ? `${result.created} of ${result.total} rows imported; ${result.errors.length} problem(s)${result.created === 0 ? ': nothing was created' : ''}.`
                  : `Imported ${result.created} rows.`,
            table(
              ['ROW', 'FIELD', 'PROBLEM'],
              result.errors.map((e) => [e.row, e.field, e.message]),
              '',
            ),
          ]);
          // Refused rows make the run a refusal, so a script can stop before importing (or after a partial import).
          if (result.errors.length > 0) stdio().exitCode = Math.max(stdio().exitCode ?? 0, EXIT.refused);
        }),
      ),
    ['herald import posts.csv --dry-run', 'herald import posts.csv', 'herald import posts.csv --partial', 'herald import rows.json --json'],
  );
}
