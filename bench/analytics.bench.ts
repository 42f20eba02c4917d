// Analytics: what a collection cycle over 100 channels and 20,000 published posts costs (platform
// calls, time, server CPU) and what it does to the API's answer times while it runs (the issue's
// bound: p99 no more than 10 % worse). One `herald serve` process (role all, SQLite) reading a local
// Mastodon run by this process; the API is loaded with and without cycles running, by turns.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/lib/ids.ts';
import { openRuntime } from '../src/runtime.ts';
import { randomArrivals } from './arrivals.ts';
import { API_ENV, WARM_UP_SECONDS } from './herald-api.ts';
import { cpuMs, freePort, load, median, stop, type Load } from './lib.ts';
import { percentile } from './receiver.ts';

const SERVER = fileURLToPath(new URL('./analytics-server.ts', import.meta.url));
const CHANNELS = 100;
const POSTS_PER_CHANNEL = 200;

/**
 * A local Mastodon answering what the collector reads: an account's counts, and statuses by id
 * (every id known, its counts growing with each read, so every reading writes a snapshot).
 */
async function startFakeMastodon() {
  let reads = 0;
  let calls = 0;
  const server = http.createServer((req, res) => {
    calls += 1;
    const url = new URL(req.url ?? '/', 'http://localhost');
    let body: unknown = { error: 'Not found' };
    let status = 404;
    if (url.pathname === '/api/v1/accounts/verify_credentials') {
      status = 200;
      body = { id: '1', username: 'bench', followers_count: 1000 + calls, following_count: 10, statuses_count: POSTS_PER_CHANNEL };
    } else if (url.pathname === '/api/v1/statuses') {
      status = 200;
      reads += 1;
      body = url.searchParams.getAll('id[]').map((id) => ({
        id,
        favourites_count: reads,
        reblogs_count: reads >> 1,
        replies_count: 1,
        quotes_count: 0,
      }));
    }
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A new SQLite file: a workspace of 100 Mastodon channels with 200 published posts each, a full-scope key; one post's id to read. */
async function seed(dataDir: string, env: Record<string, string>, instance: string) {
  const runtime = await openRuntime(loadConfig({ ...env, DATA_DIR: dataDir }));
  const ws = await runtime.services.workspaces.create({ name: 'Bench' });
  const user = await runtime.services.users.create({ email: 'bench@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const stamp = new Date().toISOString();
  let postId = '';
  for (let c = 0; c < CHANNELS; c++) {
    const channel = await runtime.services.channels.create(ws.id, {
      provider: 'mastodon',
      name: `Mastodon ${c}`,
      config: { instance, accessToken: `bench-token-${String(c).padStart(20, '0')}` },
    });
    const posts = [];
    const parts = [];
    for (let i = 0; i < POSTS_PER_CHANNEL; i++) {
      const id = newId();
      postId ||= id;
      const releaseId = `${c}-${i}`;
      posts.push({
        id,
        workspace_id: ws.id,
        group_id: newId(),
        channel_id: channel.id,
        state: 'PUBLISHED' as const,
        publish_at: stamp,
        settings: '{}',
        tags: '[]',
        short_link: 0,
        release_id: releaseId,
        release_url: null,
        error: null,
        error_kind: null,
        next_run_at: null,
        published_at: stamp,
        created_at: stamp,
        updated_at: stamp,
        deleted_at: null,
        version: 0,
      });
      parts.push({
        post_id: id,
        idx: 0,
        content: '<p>A post of the bench</p>',
        images: '[]',
        delay_minutes: 0,
        state: 'PUBLISHED' as const,
        attempts: 1,
        claimed_at: null,
        lease_until: null,
        release_id: releaseId,
        release_url: null,
        release_meta: null,
        error: null,
        published_at: stamp,
      });
    }
    await runtime.db.insertInto('posts').values(posts).execute();
    await runtime.db.insertInto('post_parts').values(parts).execute();
  }
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();
  return { secret, postId };
}

/** The analytics server process, driven by lines on its standard input (see analytics-server.ts). */
async function startAnalyticsServer(env: Record<string, string>) {
  const port = await freePort();
  // BENCH_NODE_ARGS passes flags to the server's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  // BENCH_SERVER_CPUS keeps the server on those processors (`taskset -c`, which runs node in its own
  // place): with the bench on the others (`taskset -c 1 npm run bench …`), neither takes the other's.
  const command = [process.execPath, ...nodeArgs, '--import', 'tsx', SERVER];
  const cpus = process.env.BENCH_SERVER_CPUS;
  const [file, ...args] = cpus ? ['taskset', '-c', cpus, ...command] : command;
  const child: ChildProcess = spawn(file!, args, {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = readline.createInterface({ input: child.stdout! });
  const waiting: Array<{ prefix: string; resolve: (rest: string) => void }> = [];
  lines.on('line', (line) => {
    const i = waiting.findIndex((w) => line.startsWith(`${w.prefix} `));
    if (i >= 0) waiting.splice(i, 1)[0]!.resolve(line.slice(waiting[i]?.prefix.length ?? 0));
  });
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`the analytics server exited (${code})`));
      child.once('exit', exited);
      waiting.push({
        prefix,
        resolve: (rest) => {
          child.off('exit', exited);
          resolve(rest.slice(prefix.length + 1));
        },
      });
    });
  const listening = next('listening');
  await listening;
  const ask = async <T>(command: string, answer: string | null): Promise<T> => {
    const reply = answer ? next(answer) : null;
    child.stdin!.write(`${command}\n`);
    return (reply ? JSON.parse(await reply) : undefined) as T;
  };
  return { child, url: `http://127.0.0.1:${port}`, ask };
}

type Cycle = { ticks: number; channels: number; calls: number; parts: number; failures: number; ms: number };
type Phase = Load & { serverCpuMicrosecondsPerRequest: number; platformCallsDuringLoad: number };

/**
 * `rounds` turns of: the API loaded alone (`seconds`), then loaded while collection cycles run back
 * to back (each round starts with the other, so a drift of the shared machine weighs on both). Two
 * reads are loaded, each in its own turn: `GET /integrations` (the most common call) and
 * `GET /analytics/posts/:id`. Before them, `cycles` cycles with nothing else running: their calls, time and server CPU.
 */
export async function analyticsBench(options: {
  seconds: number;
  connections: number;
  rounds: number;
  cycles: number;
  rate?: number;
  /** A control run: the "collecting" turns collect nothing, so their ratio to the others shows the spread of the measure itself. */
  control?: boolean;
}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const fake = await startFakeMastodon();
  const env = { ...API_ENV, DATA_DIR: dataDir, LOG_LEVEL: 'warn', OUTBOUND_ALLOW_LOOPBACK: 'true' };
  let server: Awaited<ReturnType<typeof startAnalyticsServer>> | null = null;
  try {
    const { secret, postId } = await seed(dataDir, env, fake.url);
    server = await startAnalyticsServer(env);
    const running = server;
    const headers = { authorization: secret };
    const reads = { integrations: '/public/v1/integrations', analyticsPost: `/public/v1/analytics/posts/${postId}` };
    for (const url of Object.values(reads)) {
      const res = await fetch(`${running.url}${url}`, { headers });
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    // The first cycle follows the channels and posts; the measured ones read them again.
    const first = await running.ask<Cycle>('cycle', 'cycle');
    const cycles: Array<Cycle & { serverCpuMs: number; platformCalls: number }> = [];
    for (let i = 0; i < options.cycles; i++) {
      const [cpu, calls] = [cpuMs(running.child.pid), fake.calls()];
      const cycle = await running.ask<Cycle>('cycle', 'cycle');
      cycles.push({ ...cycle, serverCpuMs: Math.round(cpuMs(running.child.pid) - cpu), platformCalls: fake.calls() - calls });
    }
    // One more, with a callback queued each turn: how long the cycle holds the event loop at a time (what a request arriving meanwhile waits for).
    const { held } = await running.ask<Cycle & { held: unknown }>('measured cycle', 'cycle');
    await load(`${running.url}${reads.integrations}`, { seconds: WARM_UP_SECONDS, connections: options.connections, headers });
    const phases: Record<string, { alone: Phase[]; collecting: Phase[] }> = {};
    const loopedCycles: number[] = [];
    const pooled: Record<string, { alone: number[]; collecting: number[] }> = {};
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, url] of Object.entries(reads)) {
        phases[name] ??= { alone: [], collecting: [] };
        const order = round % 2 === 0 ? (['alone', 'collecting'] as const) : (['collecting', 'alone'] as const);
        for (const phase of order) {
          if (phase === 'collecting' && !options.control) await running.ask('loop', 'looping');
          const [before, calls] = [cpuMs(running.child.pid), fake.calls()];
          // At a set rate, random arrivals from the round's seed: both phases of a round send at the same moments.
          const { latencies = [], ...result } = options.rate
            ? await randomArrivals(`${running.url}${url}`, { seconds: options.seconds, rate: options.rate, seed: round + 1, headers })
            : {
                ...(await load(`${running.url}${url}`, { seconds: options.seconds, connections: options.connections, headers })),
                latencies: [],
              };
          (pooled[name] ??= { alone: [], collecting: [] })[phase].push(...latencies);
          const used = cpuMs(running.child.pid) - before;
          const platformCalls = fake.calls() - calls;
          if (phase === 'collecting' && !options.control)
            loopedCycles.push((await running.ask<{ cycles: number }>('stop', 'looped')).cycles);
          phases[name]![phase].push({
            ...result,
            serverCpuMicrosecondsPerRequest: Math.round((used * 1000) / result.total),
            platformCallsDuringLoad: platformCalls,
          });
        }
      }
    }
    const summary = Object.fromEntries(
      Object.entries(phases).map(([name, { alone, collecting }]) => {
        const p99 = (list: Phase[]) => median(list.map((l) => l.latencyP99));
        const cpu = (list: Phase[]) => median(list.map((l) => l.serverCpuMicrosecondsPerRequest));
        const rps = (list: Phase[]) => median(list.map((l) => l.requestsPerSecond));
        // With random arrivals: the percentiles of every round's requests together (steadier than any one round's).
        const all = pooled[name]!;
        const overAll = (values: number[], p: number) =>
          Number(
            percentile(
              [...values].sort((a, b) => a - b),
              p,
            ).toFixed(2),
          );
        const together = all.alone.length
          ? {
              allRounds: {
                p99: { alone: overAll(all.alone, 99), collecting: overAll(all.collecting, 99) },
                p99Ratio: Number((overAll(all.collecting, 99) / overAll(all.alone, 99)).toFixed(3)),
                p999: { alone: overAll(all.alone, 99.9), collecting: overAll(all.collecting, 99.9) },
                requests: { alone: all.alone.length, collecting: all.collecting.length },
              },
            }
          : {};
        return [
          name,
          {
            ...together,
            p99MsMedian: { alone: p99(alone), collecting: p99(collecting) },
            p99Ratio: Number((p99(collecting) / p99(alone)).toFixed(3)),
            p99RatioPerRound: alone.map((a, i) => Number((collecting[i]!.latencyP99 / a.latencyP99).toFixed(3))),
            requestsPerSecondMedian: { alone: rps(alone), collecting: rps(collecting) },
            serverCpuMicrosecondsPerRequestMedian: { alone: cpu(alone), collecting: cpu(collecting) },
            rounds: { alone, collecting },
          },
        ];
      }),
    );
    await running.ask('exit', null);
    await new Promise((resolve) => running.child.once('exit', resolve));
    server = null;
    return {
      channels: CHANNELS,
      posts: CHANNELS * POSTS_PER_CHANNEL,
      firstCycle: first,
      cycles,
      held,
      cyclesDuringLoads: loopedCycles,
      api: summary,
    };
  } finally {
    if (server) await stop(server.child);
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
