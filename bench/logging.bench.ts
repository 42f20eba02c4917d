import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkout } from './checkout.ts';
import { API_ENV, forOlderCode, HERALD_ROOT, seed, startServer, WARM_UP_SECONDS } from './herald-api.ts';
import { cpuMs, load, median, stop } from './lib.ts';

/** Two servers measured side by side; `b`'s CPU per request divided by `a`'s is the pair's figure. */
type Pair = { name: string; a: Side; b: Side };
type Side = { bin: string; dataDir: string; logLevel: string };

/** How long one server is loaded at a time; a round's `seconds` for each server are split into such turns. */
const TURN_SECONDS = 1.5;

/** Median, lowest and highest of a list of ratios, to three decimals. */
function spread(values: number[]) {
  const round = (x: number) => Number(x.toFixed(3));
  return {
    median: round(median(values)),
    lowest: round(Math.min(...values)),
    highest: round(Math.max(...values)),
    each: values.map(round),
  };
}

/** Runs `fn` with this process's threads on CPU `cpu` only (taskset), then as they were. */
async function onCpu<T>(cpu: string, fn: () => Promise<T>): Promise<T> {
  const mask = /:\s*([0-9a-f]+)\s*$/i.exec(execFileSync('taskset', ['-p', String(process.pid)], { encoding: 'utf8' }))?.[1];
  execFileSync('taskset', ['-a', '-p', '-c', cpu, String(process.pid)], { stdio: 'ignore' });
  try {
    return await fn();
  } finally {
    if (mask) execFileSync('taskset', ['-a', '-p', mask, String(process.pid)], { stdio: 'ignore' });
  }
}

/**
 * What request logging costs the API: authenticated GET /public/v1/integrations served by a
 * server at LOG_LEVEL=info (one JSON line per request, standard output a pipe that another
 * process reads) against the same server at LOG_LEVEL=warn (no request lines), as CPU time per
 * request. The cost is the throughput a CPU-bound server loses: 1 − (CPU per request at warn) ÷
 * (CPU per request at info).
 *
 * The two servers of a pair run side by side on the same CPU (the load generator on the other),
 * and are loaded one at a time, in turns of 1.5 s that alternate between them: whatever the
 * machine does during a round (other tenants of the host, frequency changes) reaches both
 * alike, and each is measured as it runs alone. On these machines the same server's CPU per
 * request swung by half within minutes, which buried a cost of a few percent when each variant
 * was measured for seconds at a time, minutes apart. Each round starts new processes, because
 * two processes of the same code also differ (by up to a tenth here) for their whole life; the
 * median over rounds is the figure. A control pair, the same server twice, shows what is left
 * of that noise. With `baseline` (a git ref),
 * that version's info and warn servers are a pair too. Without `taskset` (Linux), the servers
 * are not pinned, and the result says so.
 */
export async function loggingBench(options: { seconds: number; connections: number; rounds: number; baseline?: string | undefined }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const secret = await seed(dataDir, API_ENV);
  const current = path.join(HERALD_ROOT, 'bin/herald.js');
  const pairs: Pair[] = [
    {
      name: 'control: warn ÷ warn, the same server twice',
      a: { bin: current, dataDir, logLevel: 'warn' },
      b: { bin: current, dataDir, logLevel: 'warn' },
    },
    { name: 'current: info ÷ warn', a: { bin: current, dataDir, logLevel: 'warn' }, b: { bin: current, dataDir, logLevel: 'info' } },
  ];
  const older = options.baseline ? checkout(options.baseline) : null;
  if (older) {
    const olderDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
    fs.copyFileSync(path.join(dataDir, 'herald.db'), path.join(olderDir, 'herald.db'));
    forOlderCode(path.join(olderDir, 'herald.db'), older.dir);
    const bin = path.join(older.dir, 'bin/herald.js');
    pairs.push({
      name: `baseline (${options.baseline}): info ÷ warn`,
      a: { bin, dataDir: olderDir, logLevel: 'warn' },
      b: { bin, dataDir: olderDir, logLevel: 'info' },
    });
  }
  const pinned = os.cpus().length >= 2 && spawnSync('taskset', ['-V']).status === 0;
  const ratios = new Map<string, number[]>(pairs.map((pair) => [pair.name, []]));
  const cpuPerRequest = new Map<string, { a: number[]; b: number[] }>(pairs.map((pair) => [pair.name, { a: [], b: [] }]));
  let running: ChildProcess[] = [];

  const measurePair = async (pair: Pair, round: number) => {
    // Started in turns, in an order that alternates by round.
    const sides = round % 2 ? [pair.b, pair.a] : [pair.a, pair.b];
    const started: Array<{ child: ChildProcess; url: string }> = [];
    for (const side of sides) {
      const server = await startServer(
        side.bin,
        { ...API_ENV, DATA_DIR: side.dataDir, LOG_LEVEL: side.logLevel },
        pinned ? { cpus: '1' } : {},
      );
      started.push(server);
      running.push(server.child);
    }
    const [a, b] = round % 2 ? [started[1]!, started[0]!] : [started[0]!, started[1]!];
    const loadOne = (server: { url: string }, seconds: number) =>
      load(`${server.url}/public/v1/integrations`, { seconds, connections: options.connections, headers: { authorization: secret } });
    // Warmed up together; measured alone, in short turns that alternate between the two.
    await Promise.all([loadOne(a, WARM_UP_SECONDS), loadOne(b, WARM_UP_SECONDS)]);
    const turns = Math.max(1, Math.round(options.seconds / TURN_SECONDS));
    const used = [0, 0];
    const served = [0, 0];
    for (let turn = 0; turn < turns; turn++) {
      for (const i of (turn + round) % 2 ? [1, 0] : [0, 1]) {
        const server = [a, b][i]!;
        const before = cpuMs(server.child.pid);
        const result = await loadOne(server, options.seconds / turns);
        if (result.non2xx + result.errors > 0) throw new Error(`${pair.name}: requests failed`);
        used[i]! += cpuMs(server.child.pid) - before;
        served[i]! += result.total;
      }
    }
    const usA = (used[0]! * 1000) / served[0]!;
    const usB = (used[1]! * 1000) / served[1]!;
    ratios.get(pair.name)!.push(usB / usA);
    cpuPerRequest.get(pair.name)!.a.push(usA);
    cpuPerRequest.get(pair.name)!.b.push(usB);
    for (const child of running) await stop(child);
    running = [];
  };

  try {
    const run = async () => {
      for (let round = 0; round < options.rounds; round++) {
        for (let i = 0; i < pairs.length; i++) await measurePair(pairs[(round + i) % pairs.length]!, round);
      }
    };
    if (pinned) await onCpu('0', run);
    else await run();
  } finally {
    for (const child of running) await stop(child);
    older?.remove();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const result: Record<string, unknown> = {};
  for (const pair of pairs) {
    const each = ratios.get(pair.name)!;
    const cpu = cpuPerRequest.get(pair.name)!;
    const ratio = spread(each);
    result[pair.name] = {
      cpuPerRequestRatio: ratio,
      // The throughput a CPU-bound server at b's settings loses against a's.
      cost: Number((1 - 1 / ratio.median).toFixed(3)),
      cpuMicrosecondsPerRequest: { a: Number(median(cpu.a).toFixed(1)), b: Number(median(cpu.b).toFixed(1)) },
    };
  }
  return { pinned, rounds: options.rounds, secondsPerRound: options.seconds, pairs: result };
}
