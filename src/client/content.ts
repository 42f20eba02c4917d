import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './errors.ts';
import { stdio } from './stdio.ts';

export type Format = 'text' | 'markdown' | 'html';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Post content is HTML: plain text becomes paragraphs (blank lines) and line breaks, Markdown is rendered. */
export async function toHtml(text: string, format: Format): Promise<string> {
  if (format === 'html') return text.trim();
  if (format === 'markdown') {
    const { marked } = await import('marked');
    return (await marked.parse(text, { async: true, gfm: true })).trim();
  }
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

/** The format of a file by its extension: .md/.markdown, .html/.htm, anything else text. */
export function formatOf(file: string | undefined, given: string | undefined): Format {
  if (given) {
    if (given === 'text' || given === 'markdown' || given === 'html') return given;
    throw new UsageError(`Unknown format "${given}": use text, markdown or html.`);
  }
  const ext = file ? path.extname(file).toLowerCase() : '';
  if (ext === '.md' || ext === '.markdown') return 'markdown';
  if (ext === '.html' || ext === '.htm') return 'html';
  return 'text';
}

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdio().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A file's text, with a clear sentence when it cannot be read. */
export function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(unreadable(file, error));
  }
}

export function unreadable(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `No such file: ${file}`;
  if (code === 'EISDIR') return `${file} is a folder, not a file.`;
  if (code === 'EACCES') return `Cannot read ${file}: permission denied.`;
  return `Cannot read ${file}: ${(error as Error).message}`;
}
