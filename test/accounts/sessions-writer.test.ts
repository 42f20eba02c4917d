import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(): Array<{ file: string; text: string }> {
  return fs
    .readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith(`db${path.sep}migrations`))
    .map((file) => ({ file: file.split(path.sep).join('/'), text: fs.readFileSync(path.join(SRC, file), 'utf8') }));
}

describe('sessions', () => {
  it('have one writer: only sessions.repository.ts names their table, and only SessionsService imports it', () => {
    const all = sources();
    expect(all.filter((s) => /['"]sessions['"]/.test(s.text)).map((s) => s.file)).toEqual(['accounts/sessions.repository.ts']);
    expect(all.filter((s) => /sessions\.repository(\.ts)?['"]/.test(s.text)).map((s) => s.file)).toEqual(['accounts/sessions.service.ts']);
  });
});
