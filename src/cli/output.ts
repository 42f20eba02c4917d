import { stdio } from '../client/stdio.ts';
import { AppError } from '../errors.ts';

export type Printer = { json: boolean };

/** Prints a result: JSON with --json, otherwise readable `key: value` lines. */
export function print(out: Printer, value: unknown, lines?: string[]): void {
  if (out.json) {
    stdio().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  if (lines) {
    stdio().stdout.write(`${lines.join('\n')}\n`);
    return;
  }
  const rows = Array.isArray(value) ? value : [value];
  for (const row of rows) {
    for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
      stdio().stdout.write(`${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}\n`);
    }
    if (rows.length > 1) stdio().stdout.write('\n');
  }
}

/** Prints a list: a JSON array with --json, otherwise one line per item (or `none`). */
export function printList<T>(out: Printer, items: readonly T[], line: (item: T) => string): void {
  if (out.json) {
    stdio().stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return;
  }
  stdio().stdout.write(items.length ? `${items.map(line).join('\n')}\n` : 'none\n');
}

/** Reports a failure and sets a non-zero exit code; a domain error shows its public message only. */
export function fail(out: Printer, error: unknown): void {
  const message = error instanceof AppError || error instanceof Error ? error.message : String(error);
  const code = error instanceof AppError ? error.code : 'error';
  if (out.json) stdio().stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
  else stdio().stderr.write(`herald: ${message}\n`);
  stdio().exitCode = 1;
}
