import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { checkout } from './checkout.ts';
import { cpuMs, freePort, load, startProcess, stop, type Load } from './lib.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** How long each new server process is loaded before its turn is measured. */
const WARM_UP_SECONDS = Number(process.env.BENCH_WARM_UP_SECONDS ?? 5);
const BARE = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

/** A workspace of 10 channels (half in a client group), its owner and a full-scope key, in a new SQLite file. */
async function seed(dataDir: string, env: Record<string, string>): Promise<string> {
  const runtime = await openRuntime(loadConfig({ ...env, DATA_DIR: dataDir }));
  const ws = await runtime.services.workspaces.create({ name: 'Bench' });
  const user = await runtime.services.users.create({ email: 'bench@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const group = await runtime.services.groups.create(ws.id, 'Clients');
  for (let i = 0; i < 10; i++) {
    await runtime.services.channels.create(ws.id, { provider: 'webhook', name: `Channel ${i}`, profile: `channel${i}`, groupId: i % 2 ? group.id : null, config: { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } });
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();
  return secret;
}

/** Removes from a copy of the database what migrations newer than `checkoutDir`'s added, so that code can open it. */
function forOlderCode(dbFile: string, checkoutDir: string) {
  const known = new Set(fs.readdirSync(path.join(checkoutDir, 'src/db/migrations')).map((f) => f.replace(/\.ts$/, '')));
  const db = new Database(dbFile);
  const newer = (db.prepare('select name from kysely_migration').all() as Array<{ name: string }>).map((r) => r.name).filter((name) => !known.has(name));
  if (newer.includes('2026-11-23T0000-access-version')) {
    for (const { name } of db.prepare("select name from sqlite_master where type = 'trigger' and name like '%access_version%'").all() as Array<{ name: string }>) db.exec(`drop trigger "${name}"`);
    db.exec('drop table access_version');
  }
  for (const name of newer) db.prepare('delete from kysely_migration where name = ?').run(name);
  db.close();
}

/** `herald serve` with standard output a pipe that another process reads (as under a service manager), ready once /status answers. */
async function startServer(bin: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  // The log's reader is a process of its own (as a service manager's would be), not this one,
  // which generates the load: reading the log here would slow the load, not the server.
  const reader = spawn('cat', [], { stdio: ['pipe', 'ignore', 'inherit'] });
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve'], { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', reader.stdin!, 'inherit'] });
  // The server holds the pipe now; the reader ends when the server does.
  reader.stdin!.destroy();
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
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

/**
 * Authenticated GET /public/v1/integrations on the real server (SQLite, 10 channels, full
 * guard: key check, workspace and role, rate limit, headers) against a bare Fastify route
 * returning the same JSON, in the same run: with LOG_LEVEL=warn (no request lines) and with
 * the default LOG_LEVEL=info, standard output a pipe that another process reads. With `baseline`
 * (a git ref), that version of the code is measured too, on a copy of the same database.
 *
 * The variants take turns, `rounds` times over: each turn starts a new process, warms it up for
 * WARM_UP_SECONDS (5 s unless BENCH_WARM_UP_SECONDS says otherwise), loads it alone for `seconds`
 * and stops it, and each round starts with the next variant. A machine whose speed drifts during
 * the run (other tenants of the host, frequency changes) then slows every variant alike, and no
 * variant's figure rests on a single process (processes of the same code differ by up to a fifth
 * for their whole life).
 */
export async function integrationsBench(options: { seconds: number; connections: number; rounds?: number; baseline?: string | undefined }) {
  const rounds = options.rounds ?? 3;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const env = { BOOTSTRAP: 'false', RATE_LIMIT_MAX: '100000000', SECRET_KEY: 'cd'.repeat(32), MIGRATE_ON_START: 'true' };
  const secret = await seed(dataDir, env);
  const older = options.baseline ? checkout(options.baseline) : null;
  const variants: Array<{ name: string; bin: string; dataDir: string; logLevel: string }> = [];
  if (older) {
    const olderDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
    fs.copyFileSync(path.join(dataDir, 'herald.db'), path.join(olderDir, 'herald.db'));
    forOlderCode(path.join(olderDir, 'herald.db'), older.dir);
    for (const logLevel of ['warn', 'info']) variants.push({ name: `baseline (${options.baseline}), LOG_LEVEL=${logLevel}`, bin: path.join(older.dir, 'bin/herald.js'), dataDir: olderDir, logLevel });
  }
  for (const logLevel of ['warn', 'info']) variants.push({ name: `current, LOG_LEVEL=${logLevel}`, bin: path.join(ROOT, 'bin/herald.js'), dataDir, logLevel });

  const results: Record<string, Load & { serverCpuMicrosecondsPerRequest: number }> = {};
  const totals = new Map<string, { loads: Load[]; cpuMs: number }>();
  type Running = { child: ChildProcess; url: string; request: { headers?: Record<string, string> } };
  const starters = new Map<string, () => Promise<Running>>();
  for (const variant of variants) {
    starters.set(variant.name, async () => {
      const server = await startServer(variant.bin, { ...env, DATA_DIR: variant.dataDir, LOG_LEVEL: variant.logLevel });
      return { child: server.child, url: `${server.url}/public/v1/integrations`, request: { headers: { authorization: secret } } };
    });
  }
  let body = '';
  starters.set('bare Fastify route', async () => {
    const bare = await startProcess(['--import', 'tsx', BARE], { BARE_BODY: body });
    return { child: bare.child, url: `http://127.0.0.1:${bare.port}/public/v1/integrations`, request: {} };
  });
  const names = [...starters.keys()];
  for (const name of names) totals.set(name, { loads: [], cpuMs: 0 });
  let running: Running | null = null;
  try {
    // The bare route answers the body the real route answers.
    running = await starters.get(variants.at(-1)!.name)!();
    body = await (await fetch(running.url, running.request)).text();
    await stop(running.child);
    running = null;
    for (let round = 0; round < rounds; round++) {
      // A new process for every turn, and each round starts with the next variant: two processes
      // of the same code, on the same database, were seen to differ by up to a fifth in CPU per
      // request for their whole life, and the one started first was often the slower.
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length]!;
        running = await starters.get(name)!();
        const check = await fetch(running.url, running.request);
        if (check.status !== 200) throw new Error(`${name}: unexpected ${check.status}: ${await check.text()}`);
        await check.arrayBuffer();
        await load(running.url, { seconds: WARM_UP_SECONDS, connections: options.connections, ...running.request });
        const before = cpuMs(running.child.pid);
        const result = await load(running.url, { seconds: options.seconds, connections: options.connections, ...running.request });
        const total = totals.get(name)!;
        total.cpuMs += cpuMs(running.child.pid) - before;
        total.loads.push(result);
        await stop(running.child);
        running = null;
      }
    }
    for (const [name, { loads, cpuMs: used }] of totals) {
      const total = loads.reduce((sum, l) => sum + l.total, 0);
      const worst = (pick: (l: Load) => number) => Math.max(...loads.map(pick));
      results[name] = {
        requestsPerSecond: Math.round(total / (rounds * options.seconds)),
        latencyP50: worst((l) => l.latencyP50),
        latencyP99: worst((l) => l.latencyP99),
        errors: loads.reduce((sum, l) => sum + l.errors, 0),
        non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
        total,
        serverCpuMicrosecondsPerRequest: Math.round((used * 1000) / total),
      };
    }
  } finally {
    if (running) await stop(running.child);
    older?.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  // Ratios of throughput (requests per second) and of capacity (the inverse of CPU time per request).
  const rps = (name: string) => results[name]?.requestsPerSecond ?? NaN;
  const capacity = (name: string) => 1 / (results[name]?.serverCpuMicrosecondsPerRequest ?? NaN);
  const ratio = (a: number, b: number) => Number((a / b).toFixed(3));
  const pairs: Array<[string, string, string]> = [
    ['current (LOG_LEVEL=warn) / bare', 'current, LOG_LEVEL=warn', 'bare Fastify route'],
    ['current (LOG_LEVEL=info) / bare', 'current, LOG_LEVEL=info', 'bare Fastify route'],
    ['current: info / warn (what request logging leaves)', 'current, LOG_LEVEL=info', 'current, LOG_LEVEL=warn'],
  ];
  if (older) {
    const b = `baseline (${options.baseline})`;
    pairs.push([`${b} (LOG_LEVEL=warn) / bare`, `${b}, LOG_LEVEL=warn`, 'bare Fastify route'], [`${b}: info / warn`, `${b}, LOG_LEVEL=info`, `${b}, LOG_LEVEL=warn`]);
  }
  // Also the median of the rounds' own ratios: the two loads of a round ran a few turns apart, not the whole run.
  const medianOfRounds = (a: string, b: string) => {
    const [la, lb] = [totals.get(a)?.loads ?? [], totals.get(b)?.loads ?? []];
    const each = la.map((l, i) => l.requestsPerSecond / (lb[i]?.requestsPerSecond ?? NaN)).sort((x, y) => x - y);
    const mid = each.length >> 1;
    return Number((each.length % 2 ? each[mid]! : (each[mid - 1]! + each[mid]!) / 2).toFixed(3));
  };
  const ratios = Object.fromEntries(
    pairs.map(([label, a, b]) => [label, { requestsPerSecond: ratio(rps(a), rps(b)), requestsPerSecondMedianOfRounds: medianOfRounds(a, b), cpuCapacity: ratio(capacity(a), capacity(b)) }]),
  );
  return { rounds, secondsPerTurn: options.seconds, results, ratios, bodyBytes: body.length };
}
