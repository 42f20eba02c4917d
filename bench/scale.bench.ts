// The scale-out figures: PostgreSQL + Redis (+ roles), next to the embedded default.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { createPostgresDatabase, deleteRedisKeys } from '../test/helpers/backend.ts';
import { cpuMs, freePort, load, stop, type Load } from './lib.ts';
import { burstArrivals, scheduleBurst, startBenchReceiver } from './receiver.ts';

const HERALD = fileURLToPath(new URL('../bin/herald.js', import.meta.url));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

type Deployment = { env: Record<string, string>; close(): Promise<void> };

/** An empty deployment: a new SQLite file, or a new PostgreSQL database and Redis prefix. */
async function deployment(kind: 'embedded' | 'scale', extra: Record<string, string> = {}): Promise<Deployment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const base = {
    DATA_DIR: dataDir,
    BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    SECRET_KEY: 'cd'.repeat(32),
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    ...extra,
  };
  if (kind === 'embedded') return { env: base, close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  const database = await createPostgresDatabase('herald_bench', POSTGRES_URL);
  const prefix = `herald-bench-${randomBytes(4).toString('hex')}`;
  return {
    env: { ...base, DATABASE_URL: database.url, REDIS_URL, REDIS_PREFIX: prefix },
    close: async () => {
      await database.drop();
      await deleteRedisKeys(REDIS_URL, prefix);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The CPU time of the PostgreSQL backends serving one database, followed by polling (a backend
 * may start or end during the burst: its last reading counts). Linux only.
 */
async function databaseCpu(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const name = new URL(url).pathname.slice(1);
  const last = new Map<number, number>();
  const first = new Map<number, number>();
  return {
    async poll() {
      const { rows } = await client.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      for (const { pid } of rows) {
        const ms = cpuMs(pid);
        if (Number.isNaN(ms)) continue;
        if (!first.has(pid)) first.set(pid, ms);
        last.set(pid, ms);
      }
    },
    /** CPU since the first poll; a backend first seen later counts from its start. */
    used(startedAt: Set<number>) {
      let sum = 0;
      for (const [pid, ms] of last) sum += startedAt.has(pid) ? ms - first.get(pid)! : ms;
      return sum;
    },
    pids: () => new Set(last.keys()),
    close: () => client.end(),
  };
}

/** Redis's own CPU time (user + system), from INFO: shared by everything using this Redis. */
async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
}

/** `herald serve --role <role>` on a free port, ready once /healthz answers. */
async function startRole(env: Record<string, string>, role: 'all' | 'api' | 'worker'): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  const child = spawn(process.execPath, [...nodeArgs, HERALD, 'serve', '--role', role], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`herald --role ${role} exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`herald --role ${role} did not start within 30 s`);
}

/** A workspace with `channels` webhook channels pointing at `url`, and a key. */
async function seed(env: Record<string, string>, url: string, channels: number) {
  const runtime = await openRuntime(loadConfig({ ...env, REDIS_URL: '' }));
  try {
    const ws = await runtime.services.workspaces.create({ name: 'Bench' });
    const user = await runtime.services.users.create({ email: 'bench@example.test' });
    await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
    const ids: string[] = [];
    for (let i = 0; i < channels; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, channels - i) }, (_, j) =>
          runtime.services.channels.create(ws.id, {
            provider: 'webhook',
            name: `C${i + j}`,
            profile: `c${i + j}`,
            config: { url, secret: SECRET },
          }),
        ),
      );
      ids.push(...batch.map((c) => c.id));
    }
    const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
    return { key: secret, channels: ids };
  } finally {
    await runtime.close();
  }
}

/**
 * `count` posts, one channel each, due at one instant, published by a scale-out deployment of
 * one API process and `workers` worker processes to a receiver on loopback. Same measure as the
 * embedded `burst` scenario: lateness = arrival − scheduled time; throughput = posts ÷ time from
 * the scheduled instant to the last arrival.
 */
export async function scaleBurstBench(options: { count: number; leadSeconds: number; workers: number }) {
  const receiver = await startBenchReceiver();
  const d = await deployment('scale');
  const processes: ChildProcess[] = [];
  try {
    const { key, channels } = await seed(d.env, receiver.url, options.count);
    const api = await startRole(d.env, 'api');
    processes.push(api.child);
    for (let i = 0; i < options.workers; i++) processes.push((await startRole(d.env, 'worker')).child);
    const burst = async (round: number) => {
      const due = new Date(Date.now() + options.leadSeconds * 1000);
      due.setMilliseconds(0);
      const created = await scheduleBurst(api.url, key, channels, due, `burst ${round}`);
      const loadBefore = os.loadavg()[0]!;
      const arrivals = burstArrivals(receiver.arrivals, created, due);
      let cpu = { worker: Number.NaN, database: Number.NaN, redis: Number.NaN };
      // The workers are idle until the due instant: their CPU time from here to the last arrival is the burst's.
      const workerCpu = () => processes.slice(1).reduce((sum, child) => sum + cpuMs(child.pid), 0);
      const database = await databaseCpu(d.env.DATABASE_URL!);
      const redis = new Redis(REDIS_URL);
      try {
        await database.poll();
        const backendsBefore = database.pids();
        const redisBefore = await redisCpuMs(redis);
        const cpuBefore = workerCpu();
        const deadline = due.getTime() + 300_000;
        for (let i = 0; arrivals.count() < created.length && Date.now() < deadline; i++) {
          await new Promise((r) => setTimeout(r, 50));
          if (i % 4 === 0) await database.poll();
        }
        await database.poll();
        cpu = { worker: workerCpu() - cpuBefore, database: database.used(backendsBefore), redis: (await redisCpuMs(redis)) - redisBefore };
      } finally {
        redis.disconnect();
        await database.close();
      }
      const summary = arrivals.summary();
      const perPost = (ms: number) => Math.round((ms / Math.max(summary.delivered, 1)) * 100) / 100;
      return {
        posts: created.length,
        ...summary,
        // Load-independent: the workers' CPU time (user + system) per delivered post during the burst (PostgreSQL's and Redis's not included).
        workerCpuMsPerPost: perPost(cpu.worker),
        // The PostgreSQL backends serving this deployment's database (all processes' connections), per post.
        databaseCpuMsPerPost: perPost(cpu.database),
        // Redis's CPU per post: Redis is shared with whatever else uses it on this machine, so an upper bound.
        redisCpuMsPerPost: perPost(cpu.redis),
        // The machine is shared: its 1-minute load average before and after the burst.
        loadAverage: { before: Math.round(loadBefore * 100) / 100, after: Math.round(os.loadavg()[0]! * 100) / 100 },
      };
    };
    // As in the embedded scenario: a first burst on workers that have never published, then a second.
    const first = await burst(1);
    const second = await burst(2);
    return { workers: options.workers, first, second };
  } finally {
    for (const child of processes) await stop(child);
    await receiver.close();
    await d.close();
  }
}

/** Runs autocannon against several servers at once, splitting the connections; sums the rates. */
async function loadAll(
  urls: string[],
  options: { seconds: number; connections: number; headers: Record<string, string>; method?: 'GET' | 'POST'; body?: string },
): Promise<Load> {
  const each = await Promise.all(
    urls.map((url) => load(url, { ...options, connections: Math.max(1, Math.round(options.connections / urls.length)) })),
  );
  return {
    requestsPerSecond: each.reduce((sum, l) => sum + l.requestsPerSecond, 0),
    latencyP50: Math.max(...each.map((l) => l.latencyP50)),
    latencyP99: Math.max(...each.map((l) => l.latencyP99)),
    errors: each.reduce((sum, l) => sum + l.errors, 0),
    non2xx: each.reduce((sum, l) => sum + l.non2xx, 0),
    total: each.reduce((sum, l) => sum + l.total, 0),
  };
}

/**
 * Authenticated `GET /integrations` (10 channels) and `POST /posts` (one post scheduled a year
 * ahead, so nothing publishes during the run), against the embedded default (one process,
 * SQLite) and the scale-out API role (PostgreSQL, Redis rate limits, BullMQ) with one and two
 * processes. The workers are not running: this measures the API alone.
 */
export async function scaleApiBench(options: { seconds: number; connections: number }) {
  const results: Record<string, { integrations: Load; posts: Load }> = {};
  for (const [label, kind, processes] of [
    ['embedded, 1 process', 'embedded', 1],
    ['scale-out, 1 API process', 'scale', 1],
    ['scale-out, 2 API processes', 'scale', 2],
  ] as const) {
    const d = await deployment(kind);
    const children: ChildProcess[] = [];
    try {
      const { key, channels } = await seed(d.env, 'https://example.test/hook', 10);
      const urls: string[] = [];
      for (let i = 0; i < processes; i++) {
        const p = await startRole(d.env, kind === 'embedded' ? 'all' : 'api');
        children.push(p.child);
        urls.push(p.url);
      }
      const headers = { authorization: key, 'content-type': 'application/json' };
      const body = JSON.stringify({
        type: 'schedule',
        date: new Date(Date.now() + 365 * 86400_000).toISOString(),
        posts: [{ integration: { id: channels[0] }, value: [{ content: '<p>bench</p>' }] }],
      });
      const integrations = urls.map((u) => `${u}/public/v1/integrations`);
      const posts = urls.map((u) => `${u}/public/v1/posts`);
      await loadAll(integrations, { seconds: 2, connections: options.connections, headers });
      results[label] = {
        integrations: await loadAll(integrations, { ...options, headers }),
        posts: await loadAll(posts, { ...options, headers, method: 'POST', body }),
      };
    } finally {
      for (const child of children) await stop(child);
      await d.close();
    }
  }
  return results;
}
