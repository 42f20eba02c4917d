import { ApiRefusal, exitCodeOf, UsageError, NetworkFailure } from './errors.ts';
import { stdio } from './stdio.ts';

export type Out = { json: boolean };

/** Prints exactly what the API answered with --json, otherwise the readable form. */
export function show(out: Out, value: unknown, human: () => string | string[]): void {
  if (out.json) {
    stdio().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    return;
  }
  const text = human();
  const lines = Array.isArray(text) ? text.join('\n') : text;
  stdio().stdout.write(lines.endsWith('\n') ? lines : `${lines}\n`);
}

/** A table with a header row, columns padded to their widest cell; `empty` when there are no rows. */
export function table(headers: string[], rows: Array<Array<string | number | boolean | null | undefined>>, empty: string): string {
  if (!rows.length) return empty;
  const cells = [headers, ...rows.map((row) => row.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** A size for people: KB below a megabyte, MB from there. */
export function bytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}

/** `key: value` lines, keys aligned. */
export function fields(pairs: Array<[string, string | number | boolean | null | undefined]>): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v === null || v === undefined || v === '' ? '-' : String(v)}`).join('\n');
}

/** Text with tags removed, on one line, shortened to `max` characters. */
export function excerpt(html: string, max = 48): string {
  const text = html.replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Reports a failure on standard error and sets the exit code that tells its kind. */
export function fail(out: Out, error: unknown): void {
  stdio().exitCode = exitCodeOf(error);
  if (out.json) {
    const body =
      error instanceof ApiRefusal ? { status: error.status, error: error.body } : { error: { kind: error instanceof UsageError ? 'usage' : error instanceof NetworkFailure ? 'network' : 'internal', message: (error as Error).message } };
    stdio().stderr.write(`${JSON.stringify(body)}\n`);
    return;
  }
  if (error instanceof ApiRefusal) stdio().stderr.write(`herald: ${error.message} (HTTP ${error.status})\n`);
  else if (error instanceof UsageError || error instanceof NetworkFailure) stdio().stderr.write(`herald: ${error.message}\n`);
  else stdio().stderr.write(`herald: unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
}

/** A sentence on standard error (waits, retries, progress), never mixed into the answer. */
export function notice(sentence: string): void {
  stdio().stderr.write(`herald: ${sentence}\n`);
}
