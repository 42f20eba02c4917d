// Growth: what the embedded server costs as the number of scheduled posts grows (start-up, memory,
// the calendar, the request path), one workspace of 100 webhook channels with posts over the next
// 12 months, and a 10-post workspace reading its calendar beside it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/lib/ids.ts';
import { openRuntime } from '../src/runtime.ts';
import { checkout } from './checkout.ts';
import { API_ENV, HERALD_ROOT } from './herald-api.ts';
import { cpuMs, freePort, load, stop } from './lib.ts';
import { percentile } from './receiver.ts';

const BIN = path.join(HERALD_ROOT, 'bin/herald.js');
const DAY_MS = 86_400_000;
const CHANNELS = 100;
/** Posts created through the API in each run: the creation rate is measured on them. */
const CREATED_PER_RUN = 1000;
/** About the size of the issue's posts (945 KB a page of 1,000). */
const CONTENT = `<p>${'Evergreen post for the bench, about the size of a real one with a link and some words. '.repeat(4).trim()}</p>`;

type Seeded = { dataDir: string; bigKey: string; smallKey: string; bigChannels: string[] };

/** A process's resident memory (`VmRSS`, or one of its parts such as `RssAnon`, `RssFile`) in MiB, from /proc. */
function rssMiB(pid: number, field = 'VmRSS'): number {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A new SQLite file: the big workspace (100 webhook channels, one composition of 100 posts made
 * through the service as the template), the small one (one channel, 10 posts next month), then
 * `count` posts of the big workspace cloned from the template by SQL (one transaction), spread
 * evenly over the next 12 months from tomorrow. Creating them through the API would take minutes
 * at 200,000 and measure creation, which each run measures on its own 1,000.
 */
async function seedGrowth(count: number, now: Date): Promise<Seeded> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-growth-'));
  const runtime = await openRuntime(loadConfig({ ...API_ENV, DATA_DIR: dataDir }));
  const { services } = runtime;
  const webhook = { url: 'https://example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
  const tenant = async (name: string, channels: number) => {
    const ws = await services.workspaces.create({ name });
    const user = await services.users.create({ email: `${name.toLowerCase()}@example.test` });
    await services.workspaces.addMember(ws.id, user.id, 'owner');
    const ids: string[] = [];
    for (let i = 0; i < channels; i++)
      ids.push(
        (await services.channels.create(ws.id, { provider: 'webhook', name: `${name} ${i}`, profile: `${name}${i}`, config: webhook })).id,
      );
    const { secret } = await services.apiKeys.create({ userId: user.id });
    return { ws, ids, secret };
  };
  const big = await tenant('Agency', CHANNELS);
  const small = await tenant('Shop', 1);
  await runtime.close();
  const dbFile = path.join(dataDir, 'herald.db');
  const db = new Database(dbFile);
  // The template: what POST /posts writes for a scheduled post with one element.
  const bigWs = big.ws.id;
  const insertPost = db.prepare(
    `insert into posts (id, workspace_id, group_id, channel_id, state, publish_at, settings, tags, short_link, next_run_at, created_at, updated_at, version)
     values (?, ?, ?, ?, 'QUEUE', ?, '{"__type":"webhook"}', '[]', 0, ?, ?, ?, 0)`,
  );
  const insertPart = db.prepare(
    `insert into post_parts (post_id, idx, content, images, delay_minutes, state, attempts) values (?, 0, ?, '[]', 0, 'PENDING', 0)`,
  );
  const stamp = now.toISOString();
  const first = now.getTime() + DAY_MS;
  const span = 365 * DAY_MS;
  // Posts `from` to `to` of `total`, spread evenly over `spreadMs` from `start`.
  const write = db.transaction(
    (from: number, to: number, total: number, workspace: string, channels: string[], spreadMs: number, start: number) => {
      for (let i = from; i < to; i++) {
        const id = newId();
        const at = new Date(start + Math.floor((i * spreadMs) / Math.max(total, 1))).toISOString();
        insertPost.run(id, workspace, newId(), channels[i % channels.length], at, at, stamp, stamp);
        insertPart.run(id, CONTENT);
      }
    },
  );
  for (let from = 0; from < count; from += 50_000) write(from, Math.min(count, from + 50_000), count, bigWs, big.ids, span, first);
  // The small tenant: 10 posts within the month the bench reads.
  write(0, 10, 10, small.ws.id, small.ids, 28 * DAY_MS, first + 30 * DAY_MS);
  db.exec('analyze');
  db.close();
  return { dataDir, bigKey: big.secret, smallKey: small.secret, bigChannels: big.ids };
}

/** `herald serve` on the seeded file: time from spawn until /status answers (polled every 5 ms). */
async function startTimed(
  bin: string,
  dataDir: string,
): Promise<{ child: ChildProcess; url: string; startupMs: number; cpuToReadyMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, ...API_ENV, LOG_LEVEL: 'warn', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`herald serve exited with ${child.exitCode}`);
    if (performance.now() - started > 120_000) throw new Error('herald serve did not answer /status within 120 s');
    try {
      if ((await fetch(`${url}/public/v1/status`)).ok)
        return { child, url, startupMs: Math.round(performance.now() - started), cpuToReadyMs: cpuMs(child.pid) };
    } catch {
      await sleep(5);
    }
  }
}

/** Every page of the window, following `nextCursor`: the latency and size of each page. */
async function readWindow(
  url: string,
  key: string,
  from: Date,
  to: Date,
  extra = '',
): Promise<Array<{ ms: number; bytes: number; posts: number }>> {
  const pages: Array<{ ms: number; bytes: number; posts: number }> = [];
  let cursor: string | null = null;
  do {
    const query = `startDate=${from.toISOString()}&endDate=${to.toISOString()}${extra}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const started = performance.now();
    const response = await fetch(`${url}/public/v1/posts?${query}`, { headers: { authorization: key } });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET /posts answered ${response.status}: ${text.slice(0, 300)}`);
    const ms = performance.now() - started;
    const body = JSON.parse(text) as { posts: unknown[]; nextCursor: string | null };
    pages.push({ ms, bytes: text.length, posts: body.posts.length });
    cursor = body.nextCursor;
  } while (cursor);
  return pages;
}

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** One run on a seeded file: start, memory, request rates, creating 1,000 posts, the calendar alone and beside a big month. */
async function measure(seeded: Seeded, options: { bin: string; seconds: number; monthStart: Date; label: string; extra: string }) {
  const loadAverage = os.loadavg()[0]!;
  const { child, url, startupMs, cpuToReadyMs } = await startTimed(options.bin, seeded.dataDir);
  try {
    const pid = child.pid!;
    await sleep(3000);
    const rssReady = rssMiB(pid);
    const auth = { authorization: seeded.bigKey };
    // Server CPU per request as well as the rate: it holds better when other processes take the cores.
    const cpuPerRequest = async (path: string, headers: Record<string, string> = {}) => {
      const before = cpuMs(pid);
      const result = await load(`${url}${path}`, { seconds: options.seconds, connections: 20, headers });
      return { ...result, serverCpuMicroseconds: Math.round(((cpuMs(pid) - before) * 1000) / Math.max(1, result.total)) };
    };
    const integrations = await cpuPerRequest('/public/v1/integrations', auth);
    const status = await cpuPerRequest('/public/v1/status');
    // 1,000 posts through the API: 10 compositions of 100 channels, within the next 12 months.
    const createdStart = performance.now();
    for (let i = 0; i < CREATED_PER_RUN / CHANNELS; i++) {
      const response = await fetch(`${url}/public/v1/posts`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'schedule',
          date: new Date(Date.now() + 2 * DAY_MS + i * 30 * DAY_MS).toISOString(),
          posts: seeded.bigChannels.map((id) => ({ integration: { id }, value: [{ content: CONTENT }] })),
        }),
      });
      if (!response.ok) throw new Error(`POST /posts answered ${response.status}: ${await response.text()}`);
    }
    const createMsPer1000 = Math.round(((performance.now() - createdStart) * 1000) / CREATED_PER_RUN);
    await sleep(30_000);
    const rssAfterCreateIdle30s = rssMiB(pid);

    const monthEnd = new Date(options.monthStart.getTime() + 30 * DAY_MS);
    const smallUrl = `${url}/public/v1/posts?startDate=${options.monthStart.toISOString()}&endDate=${monthEnd.toISOString()}`;
    const small = { seconds: options.seconds, connections: 1, headers: { authorization: seeded.smallKey } };
    const smallIdle = await load(smallUrl, small);
    // The big month read over and over (one reader, page after page) while the small tenant reads its own.
    let reading = true;
    const bigPages: Array<{ ms: number; bytes: number; posts: number }> = [];
    const cpuBefore = cpuMs(pid);
    const reader = (async () => {
      while (reading) bigPages.push(...(await readWindow(url, seeded.bigKey, options.monthStart, monthEnd, options.extra)));
    })();
    const smallBusy = await load(smallUrl, small);
    reading = false;
    await reader;
    const cpuReading = cpuMs(pid) - cpuBefore;
    const rssAfterMonth = rssMiB(pid);
    // Back under 120 MB within 30 s?
    let rssAfterMonth30s = rssAfterMonth;
    let under120AfterS: number | null = rssAfterMonth < 120 ? 0 : null;
    for (let s = 1; s <= 30; s++) {
      await sleep(1000);
      rssAfterMonth30s = rssMiB(pid);
      if (under120AfterS === null && rssAfterMonth30s < 120) under120AfterS = s;
    }
    const pageMs = bigPages.map((p) => p.ms).sort((a, b) => a - b);
    const monthPosts = bigPages.reduce((n, p) => n + p.posts, 0);
    return {
      run: options.label,
      loadAverageAtStart: round(loadAverage, 2),
      startupMs,
      cpuToReadyMs,
      rssMiB: {
        ready3s: rssReady,
        afterCreating1000Idle30s: rssAfterCreateIdle30s,
        afterMonth: rssAfterMonth,
        afterMonth30s: rssAfterMonth30s,
      },
      rssUnder120MiBAfterMonthWithinS: under120AfterS,
      // What the last reading was made of: the heap and malloc's memory, and mapped files (code, the database's shared memory).
      rssPartsAfterMonth30sMiB: { anon: rssMiB(pid, 'RssAnon'), file: rssMiB(pid, 'RssFile'), shmem: rssMiB(pid, 'RssShmem') },
      createMsPer1000,
      integrationsPerSecond: integrations.requestsPerSecond,
      statusPerSecond: status.requestsPerSecond,
      serverCpuMicrosecondsPerRequest: { integrations: integrations.serverCpuMicroseconds, status: status.serverCpuMicroseconds },
      smallCalendar: {
        idle: { p50: smallIdle.latencyP50, p99: smallIdle.latencyP99, perSecond: smallIdle.requestsPerSecond },
        besideBigMonth: { p50: smallBusy.latencyP50, p99: smallBusy.latencyP99, perSecond: smallBusy.requestsPerSecond },
      },
      bigMonth: {
        pagesRead: bigPages.length,
        postsRead: monthPosts,
        pageMs: { p50: round(percentile(pageMs, 50)), p99: round(percentile(pageMs, 99)), max: round(pageMs.at(-1) ?? NaN) },
        kbPerFullPage: round((bigPages[0]?.bytes ?? 0) / 1024),
        serverCpuMsPer1000Posts: round((cpuReading * 1000) / Math.max(1, monthPosts)),
      },
    };
  } finally {
    await stop(child);
  }
}

/**
 * For each size: seed a new file, then `runs` runs on it, each a new server process (each run
 * adds 1,000 posts through the API). `extra` is added to the big month's query (e.g. `&limit=200`).
 * With `baseline` (a git ref), that version of the code runs on the same file too, the two taking
 * turns (the baseline first in each round).
 */
export async function growthBench(options: {
  sizes: number[];
  runs: number;
  seconds: number;
  extra?: string;
  baseline?: string | undefined;
}) {
  const older = options.baseline ? checkout(options.baseline) : null;
  const variants = [
    ...(older ? [{ name: `baseline (${options.baseline})`, bin: path.join(older.dir, 'bin/herald.js') }] : []),
    { name: 'current', bin: BIN },
  ];
  const results: Record<string, unknown> = {};
  try {
    for (const size of options.sizes) {
      const now = new Date();
      const seedStart = performance.now();
      const seeded = await seedGrowth(size - CREATED_PER_RUN, now);
      const seedMs = Math.round(performance.now() - seedStart);
      const runs: Record<string, unknown[]> = Object.fromEntries(variants.map((v) => [v.name, []]));
      try {
        for (let run = 1; run <= options.runs; run++)
          for (const variant of variants)
            runs[variant.name]!.push(
              await measure(seeded, {
                bin: variant.bin,
                seconds: options.seconds,
                monthStart: new Date(now.getTime() + 30 * DAY_MS),
                label: `run ${run}`,
                extra: options.extra ?? '',
              }),
            );
        const file = path.join(seeded.dataDir, 'herald.db');
        const sizeMiB = (name: string) => (fs.existsSync(name) ? fs.statSync(name).size / 2 ** 20 : 0);
        results[String(size)] = { seedMs, sqliteFileMiB: round(sizeMiB(file)), walMiB: round(sizeMiB(`${file}-wal`)), runs };
      } finally {
        fs.rmSync(seeded.dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    older?.remove();
  }
  return results;
}
