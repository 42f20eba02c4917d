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
import { burstArrivals, scheduleBurst, startBenchReceiver } from './receiver.ts';

const HERALD = fileURLToPath(new URL('../bin/herald.js', import.meta.url));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/**
 * `count` posts, one channel each, all scheduled for the same instant, published by the real
 * server to a webhook receiver on loopback. Lateness is arrival at the receiver minus the
 * scheduled time. Two bursts on one server: the first after it starts (nothing published yet),
 * then a second one, each with its own figures.
 */
export async function burstBench(options: { count: number; leadSeconds: number; env?: Record<string, string>; webhooks?: boolean }) {
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
    channels.push(
      (await runtime.services.channels.create(ws.id, { provider: 'webhook', name: `C${i}`, config: { url: receiver.url, secret: SECRET } }))
        .id,
    );
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();

  const herald = await startHerald(HERALD, env);
  // With `webhooks`: one endpoint subscribed to post.published, on a receiver of its own.
  const hooks = options.webhooks ? await startBenchReceiver() : null;
  try {
    if (hooks) {
      const res = await fetch(`http://127.0.0.1:${herald.port}/public/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: secret, 'content-type': 'application/json' },
        body: JSON.stringify({ url: hooks.url, eventTypes: ['post.published'] }),
      });
      if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${await res.text()}`);
    }
    const burst = async (round: number) => {
      hooks?.arrivals.clear();
      const due = new Date(Date.now() + options.leadSeconds * 1000);
      due.setMilliseconds(0);
      const created = await scheduleBurst(`http://127.0.0.1:${herald.port}`, secret, channels, due, `burst ${round}`);
      // The server is idle until the due instant: its CPU time from here to the last arrival is the burst's.
      const loadBefore = os.loadavg()[0]!;
      const cpuBefore = cpuMs(herald.child.pid);
      const deadline = due.getTime() + 300_000;
      const arrivals = burstArrivals(receiver.arrivals, created, due);
      while (arrivals.count() < created.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const summary = arrivals.summary();
      const cpuPerPost = (cpuMs(herald.child.pid) - cpuBefore) / Math.max(summary.delivered, 1);
      // Every post.published event delivered (one per post), and how fast, counted from the due instant.
      let webhooks: Record<string, number> | undefined;
      if (hooks) {
        while (hooks.arrivals.size < created.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const firsts = [...hooks.arrivals.values()].map((list) => list[0]!).sort((a, b) => a - b);
        const lastMs = (firsts.at(-1) ?? Number.NaN) - due.getTime();
        webhooks = {
          // The server's CPU time per post from the due instant to the last delivery: publishing and delivering together.
          serverCpuMsPerPostWithDeliveries: round2((cpuMs(herald.child.pid) - cpuBefore) / Math.max(summary.delivered, 1)),
          events: created.length,
          delivered: hooks.arrivals.size,
          duplicates: [...hooks.arrivals.values()].reduce((n, list) => n + list.length - 1, 0),
          lastDeliveredAfterDueMs: lastMs,
          deliveriesPerSecond: Math.round((hooks.arrivals.size / Math.max(lastMs, 1)) * 1000),
        };
      }
      return {
        posts: created.length,
        ...summary,
        // Load-independent: the server's CPU time (user + system) per delivered post during the burst.
        serverCpuMsPerPost: round2(cpuPerPost),
        ...(webhooks && { webhooks }),
        // The machine is shared: its 1-minute load average before and after the burst.
        loadAverage: { before: round2(loadBefore), after: round2(os.loadavg()[0]!) },
      };
    };
    // The first burst meets a process that has never published: V8 compiles the publishing path
    // (and undici's HTTP parser) while it runs. The second, on the same server, is a server that has.
    const first = await burst(1);
    const second = await burst(2);
    return { first, second, loadAverageAtStart: round2(loadBefore[0]!) };
  } finally {
    await stop(herald.child);
    await receiver.close();
    await hooks?.close();
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
export async function withBaseline<T>(
  ref: string,
  scenario: string,
  args: string[],
  current: () => Promise<T>,
): Promise<{ baseline: { ref: string; result: unknown }; current: T }> {
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
