import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkout } from './checkout.ts';
import { API_ENV, forOlderCode, HERALD_ROOT, seed, startServer, WARM_UP_SECONDS } from './herald-api.ts';
import { cpuMs, load, median, startProcess, stop, type Load } from './lib.ts';

const BARE = fileURLToPath(new URL('./bare-server.ts', import.meta.url));

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
  const env = API_ENV;
  const secret = await seed(dataDir, env);
  const older = options.baseline ? checkout(options.baseline) : null;
  const variants: Array<{ name: string; bin: string; dataDir: string; logLevel: string }> = [];
  if (older) {
    const olderDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
    fs.copyFileSync(path.join(dataDir, 'herald.db'), path.join(olderDir, 'herald.db'));
    forOlderCode(path.join(olderDir, 'herald.db'), older.dir);
    for (const logLevel of ['warn', 'info'])
      variants.push({
        name: `baseline (${options.baseline}), LOG_LEVEL=${logLevel}`,
        bin: path.join(older.dir, 'bin/herald.js'),
        dataDir: olderDir,
        logLevel,
      });
  }
  for (const logLevel of ['warn', 'info'])
    variants.push({ name: `current, LOG_LEVEL=${logLevel}`, bin: path.join(HERALD_ROOT, 'bin/herald.js'), dataDir, logLevel });

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
    pairs.push(
      [`${b} (LOG_LEVEL=warn) / bare`, `${b}, LOG_LEVEL=warn`, 'bare Fastify route'],
      [`${b}: info / warn`, `${b}, LOG_LEVEL=info`, `${b}, LOG_LEVEL=warn`],
    );
  }
  // Also the median of the rounds' own ratios: the two loads of a round ran a few turns apart, not the whole run.
  const medianOfRounds = (a: string, b: string) => {
    const [la, lb] = [totals.get(a)?.loads ?? [], totals.get(b)?.loads ?? []];
    return Number(median(la.map((l, i) => l.requestsPerSecond / (lb[i]?.requestsPerSecond ?? NaN))).toFixed(3));
  };
  const ratios = Object.fromEntries(
    pairs.map(([label, a, b]) => [
      label,
      {
        requestsPerSecond: ratio(rps(a), rps(b)),
        requestsPerSecondMedianOfRounds: medianOfRounds(a, b),
        cpuCapacity: ratio(capacity(a), capacity(b)),
      },
    ]),
  );
  return { rounds, secondsPerTurn: options.seconds, results, ratios, bodyBytes: body.length };
}
