import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { checkout } from './checkout.ts';
import { cpuMs, startHerald, stop } from './lib.ts';
import { percentile, startBenchReceiver } from './receiver.ts';

const HERALD = fileURLToPath(new URL('../bin/herald.js', import.meta.url));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/**
 * `count` posts, one channel each, all scheduled for the same instant, published by the real
 * server to a webhook receiver on loopback. Lateness is arrival at the receiver minus the
 * scheduled time.
 */
export async function burstBench(options: { count: number; leadSeconds: number; env?: Record<string, string> }) {
  const loadBefore = os.loadavg();
  const receiver = await startBenchReceiver();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-burst-'));
  const env = {
    DATA_DIR: dataDir,
    BOOTSTRAP: 'false',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    SECRET_KEY: 'cd'.repeat(32),
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    ...options.env,
  };
  const runtime = await openRuntime(loadConfig(env));
  const ws = await runtime.services.workspaces.create({ name: 'Burst' });
  const user = await runtime.services.users.create({ email: 'burst@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const channels: string[] = [];
  for (let i = 0; i < options.count; i++) {
    channels.push((await runtime.services.channels.create(ws.id, { provider: 'webhook', name: `C${i}`, config: { url: receiver.url, secret: SECRET } })).id);
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();

  const herald = await startHerald(HERALD, env);
  try {
    const due = new Date(Date.now() + options.leadSeconds * 1000);
    due.setMilliseconds(0);
    const created: string[] = [];
    for (let i = 0; i < channels.length; i += 100) {
      const res = await fetch(`http://127.0.0.1:${herald.port}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: secret, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'schedule', date: due.toISOString(), posts: channels.slice(i, i + 100).map((id) => ({ integration: { id }, value: [{ content: '<p>burst</p>' }] })) }),
      });
      if (res.status !== 200) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`);
      created.push(...((await res.json()) as Array<{ postId: string }>).map((p) => p.postId));
    }
    if (Date.now() >= due.getTime()) throw new Error('creating the posts took longer than the lead time; raise --lead');
    // The server is idle until the due instant: its CPU time from here to the last arrival is the burst's.
    const cpuBefore = cpuMs(herald.child.pid);
    const deadline = due.getTime() + 300_000;
    while (receiver.arrivals.size < created.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const times = [...receiver.arrivals.values()].map((list) => list[0]! - due.getTime()).sort((a, b) => a - b);
    const duplicates = [...receiver.arrivals.values()].filter((list) => list.length > 1).length;
    const last = times.at(-1) ?? NaN;
    const cpuPerPost = (cpuMs(herald.child.pid) - cpuBefore) / Math.max(receiver.arrivals.size, 1);
    return {
      posts: created.length,
      delivered: receiver.arrivals.size,
      duplicates,
      latenessMs: { p50: percentile(times, 50), p99: percentile(times, 99), max: last, min: times[0] },
      postsPerSecond: Math.round((created.length / Math.max(last, 1)) * 1000),
      // Load-independent: the server's CPU time (user + system) per delivered post during the burst.
      serverCpuMsPerPost: round2(cpuPerPost),
      // The machine is shared: its 1-minute load average before and after the run.
      loadAverage: { before: round2(loadBefore[0]!), after: round2(os.loadavg()[0]!) },
    };
  } finally {
    await stop(herald.child);
    await receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * A before/after pair taken in one run: `scenario` (burst or burst-scale) of the code at `ref`
 * in a checkout, then of this checkout; each with its load average. The checkout runs this
 * checkout's benchmark (bench/ is copied over the ref's), so both halves are measured the same
 * way, CPU time per post included.
 */
export async function withBaseline<T>(ref: string, scenario: string, args: string[], current: () => Promise<T>): Promise<{ baseline: { ref: string; result: unknown }; current: T }> {
  const dir = checkout(ref);
  try {
    fs.cpSync(path.dirname(fileURLToPath(import.meta.url)), path.join(dir.dir, 'bench'), { recursive: true });
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'bench/run.ts', scenario, ...args], {
      cwd: dir.dir,
      env: process.env,
      maxBuffer: 64 * 1024 ** 2,
    });
    const baseline = { ref, result: (JSON.parse(stdout) as { result: unknown }).result };
    return { baseline, current: await current() };
  } finally {
    dir.remove();
  }
}
