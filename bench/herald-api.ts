// A seeded Herald API server for the request-path scenarios (integrations, logging).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { freePort } from './lib.ts';

/** This checkout: the current code's `bin/herald.js` is here. */
export const HERALD_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** How long each new server process is loaded before it is measured. */
export const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 5);

/** The server's settings for these scenarios, besides DATA_DIR and LOG_LEVEL. */
export const API_ENV = { BOOTSTRAP: 'false', RATE_LIMIT_MAX: '100000000', SECRET_KEY: 'cd'.repeat(32), MIGRATE_ON_START: 'true' };

/** A workspace of 10 channels (half in a client group), its owner and a full-scope key, in a new SQLite file. */
export async function seed(dataDir: string, env: Record<string, string>): Promise<string> {
  const runtime = await openRuntime(loadConfig({ ...env, DATA_DIR: dataDir }));
  const ws = await runtime.services.workspaces.create({ name: 'Bench' });
  const user = await runtime.services.users.create({ email: 'bench@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const group = await runtime.services.groups.create(ws.id, 'Clients');
  for (let i = 0; i < 10; i++) {
    await runtime.services.channels.create(ws.id, {
      provider: 'webhook',
      name: `Channel ${i}`,
      profile: `channel${i}`,
      groupId: i % 2 ? group.id : null,
      config: { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();
  return secret;
}

/** Removes from a copy of the database what migrations newer than `checkoutDir`'s added, so that code can open it. */
export function forOlderCode(dbFile: string, checkoutDir: string) {
  const known = new Set(fs.readdirSync(path.join(checkoutDir, 'src/db/migrations')).map((f) => f.replace(/\.ts$/, '')));
  const db = new Database(dbFile);
  const newer = (db.prepare('select name from kysely_migration').all() as Array<{ name: string }>)
    .map((r) => r.name)
    .filter((name) => !known.has(name));
  if (newer.includes('2026-11-23T0000-access-version')) {
    for (const { name } of db
      .prepare("select name from sqlite_master where type = 'trigger' and name like '%access_version%'")
      .all() as Array<{ name: string }>)
      db.exec(`drop trigger "${name}"`);
    db.exec('drop table access_version');
  }
  for (const name of newer) db.prepare('delete from kysely_migration where name = ?').run(name);
  db.close();
}

/** `herald serve` with standard output a pipe that another process reads (as under a service manager), ready once /status answers. */
export async function startServer(
  bin: string,
  env: Record<string, string>,
  options: { cpus?: string } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  // The log's reader is a process of its own (as a service manager's would be), not this one,
  // which generates the load: reading the log here would slow the load, not the server.
  const reader = spawn('cat', [], { stdio: ['pipe', 'ignore', 'inherit'] });
  // With `cpus`, the server runs on those CPUs only (taskset), its threads included.
  const command = [...(options.cpus ? ['taskset', '-c', options.cpus] : []), process.execPath, ...nodeArgs, bin, 'serve'];
  const child = spawn(command[0]!, command.slice(1), {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', reader.stdin!, 'inherit'],
  });
  // The server holds the pipe now; the reader ends when the server does.
  reader.stdin!.destroy();
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/public/v1/status`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${bin} did not start within 60 s`);
}
