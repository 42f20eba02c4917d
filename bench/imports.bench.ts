// A bulk import of 5,000 rows (`npm run bench -- imports [--posts N] [--runs N] [--baseline <ref>]`):
// how fast its rows are checked and its posts created, and how long the event loop is held meanwhile
// (what other requests would wait), on SQLite and, with `--backends sqlite,postgres`, on PostgreSQL
// at DATABASE_URL (a new database each run). With --baseline the same import runs on that code first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createPostgresDatabase, POSTGRES_URL } from '../test/helpers/backend.ts';
import { checkout } from './checkout.ts';
import { HERALD_ROOT } from './herald-api.ts';
import { median } from './lib.ts';

type Backend = 'sqlite' | 'postgres';

const ENV = { BOOTSTRAP: 'false', LOG_LEVEL: 'warn', SECRET_KEY: 'cd'.repeat(32) };

type Run = { checkSeconds: number; createSeconds: number; rowsCreatedPerSecond: number; loopDelayMaxMs: number; loopDelayP99Ms: number };

/** One import of `rows` rows by `root`'s code on a new database, in a process of its own (bench/import-run.ts). */
async function importOnce(root: string, backend: Backend, rows: number): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-imports-'));
  const database = backend === 'postgres' ? await createPostgresDatabase('herald_bench', POSTGRES_URL) : null;
  try {
    const output = execFileSync(process.execPath, ['--import', 'tsx', path.join(HERALD_ROOT, 'bench/import-run.ts'), root, String(rows)], {
      cwd: HERALD_ROOT,
      env: { ...process.env, ...ENV, DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : { DATABASE_URL: '' }) },
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    });
    return JSON.parse(output.toString().trim().split('\n').at(-1)!) as Run;
  } finally {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `runs` imports per backend by this checkout (and first by `baseline`'s code): each run's figures and the medians. */
export async function importsBench(options: { rows: number; runs: number; backends: Backend[]; baseline?: string | undefined }) {
  const codes: Array<[string, string]> = [];
  const base = options.baseline ? checkout(options.baseline) : null;
  if (base) codes.push(['baseline', base.dir]);
  codes.push(['current', HERALD_ROOT]);
  const result: Record<string, unknown> = { rows: options.rows };
  try {
    for (const [name, root] of codes) {
      for (const backend of options.backends) {
        const runs: Run[] = [];
        for (let i = 0; i < options.runs; i++) runs.push(await importOnce(root, backend, options.rows));
        result[`${name}.${backend}`] = {
          runs,
          rowsCreatedPerSecond: median(runs.map((r) => r.rowsCreatedPerSecond)),
          checkSeconds: median(runs.map((r) => r.checkSeconds)),
          loopDelayMaxMs: Math.max(...runs.map((r) => r.loopDelayMaxMs)),
        };
      }
    }
  } finally {
    base?.remove();
  }
  return result;
}
