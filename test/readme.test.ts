import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { adminCommand } from '../src/cli/admin.commands.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const docs = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the documentation stands alone in a clone', () => {
  it('points at nothing outside the repository, and every relative link resolves', () => {
    const problems: string[] = [];
    for (const file of docs) {
      const text = read(file);
      if (/\.\.\/shared|`\.\.\//.test(text)) problems.push(`${file} mentions a path outside the repository`);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:|^#/.test(target!)) continue;
        const resolved = path.resolve(path.dirname(path.join(ROOT, file)), target!.split('#')[0]!);
        if (!resolved.startsWith(ROOT) || !fs.existsSync(resolved)) problems.push(`${file} links ${target}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the README names the API reference: the OpenAPI document and /developers', () => {
    const readme = read('README.md');
    expect(readme).toContain('[`openapi/public-api-v1.json`](openapi/public-api-v1.json)');
    expect(readme).toMatch(/\/public\/v1\/openapi\.json/);
    expect(readme).toMatch(/http:\/\/localhost:3000\/developers/);
  });

  it('every `herald admin` command the README shows exists, and every command is shown', () => {
    const known = new Set<string>();
    for (const group of adminCommand().commands) for (const command of group.commands) known.add(`${group.name()} ${command.name()}`);
    const shown = new Set([...read('README.md').matchAll(/npx herald admin (\w[\w-]*) (\w[\w-]*)/g)].map((m) => `${m[1]} ${m[2]}`));
    expect([...shown].filter((c) => !known.has(c))).toEqual([]);
    expect([...known].filter((c) => !shown.has(c))).toEqual([]);
  });
});
