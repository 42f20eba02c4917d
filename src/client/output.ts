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

/** Tags that end a line of text where they stand; any other tag (`<strong>`, `<a>`…) is inline. */
const BREAKING_TAG =
  /<\/?(?:p|div|br|hr|h[1-6]|ul|ol|li|blockquote|pre|table|thead|tbody|tr|td|th|figure|figcaption|section|article|header|footer)\b[^>]*>/gi;

/**
 * Text with tags removed, on one line, shortened to `max` characters. As in the text a post sends,
 * a paragraph or a line break parts words and an inline tag does not: `We launch <b>today</b>.`
 * reads "We launch today.".
 */
export function excerpt(html: string, max = 48): string {
  const text = html
    .replace(BREAKING_TAG, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Reports a failure on standard error and sets the exit code that tells its kind (the gravest,
 * when a command reports several). `file` is the file it concerns, for a command that goes
 * through several and carries on after one fails.
 */
export function fail(out: Out, error: unknown, file?: string): void {
  stdio().exitCode = Math.max(stdio().exitCode ?? 0, exitCodeOf(error));
  const about = file === undefined ? {} : { file };
  if (out.json) {
    const body =
      error instanceof ApiRefusal
        ? { ...about, status: error.status, error: error.body }
        : {
            ...about,
            error: {
              kind: error instanceof UsageError ? 'usage' : error instanceof NetworkFailure ? 'network' : 'internal',
              message: (error as Error).message,
            },
          };
    stdio().stderr.write(`${JSON.stringify(body)}\n`);
    return;
  }
  // A usage error about a file names it already ("No such file: a.png").
  const prefix = file === undefined || error instanceof UsageError ? '' : `${file}: `;
  if (error instanceof ApiRefusal) stdio().stderr.write(`herald: ${prefix}${error.message} (HTTP ${error.status})\n`);
  else if (error instanceof UsageError || error instanceof NetworkFailure) stdio().stderr.write(`herald: ${prefix}${error.message}\n`);
  else stdio().stderr.write(`herald: ${prefix}unexpected error: ${(error as Error)?.stack ?? String(error)}\n`);
}

/** A sentence on standard error (waits, retries, progress), never mixed into the answer. */
export function notice(sentence: string): void {
  stdio().stderr.write(`herald: ${sentence}\n`);
}
