// Real processes on loopback for the scale-out tests: a fast webhook receiver, private Redis and
// PostgreSQL servers (so stopping or flushing them never disturbs the other test files), and
// `herald serve --role …` processes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../bench/lib.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

export { freePort };

const exec = promisify(execFile);

/** Polls `probe` until it answers; `timeoutMs` bounds a hang on a loaded machine, it is no performance check. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export type Arrival = { postId: string; at: number; completed: boolean };

/**
 * A webhook receiver for thousands of deliveries: records which post each one carries, when it
 * arrived, and whether the sender was still there for the answer (a worker killed mid-request
 * closes the connection before the receiver answers).
 */
export async function startFastReceiver(options: { delayMs?: number } = {}) {
  const arrivals: Arrival[] = [];
  let delayMs = options.delayMs ?? 0;
  /** While held (see `hold`), the answers waiting to be written, in order of arrival. */
  let held: Array<() => void> | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let postId = '';
      try {
        postId = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { postId: string } }).data.postId);
      } catch {
        // counted under ''
      }
      const arrival: Arrival = { postId, at: Date.now(), completed: false };
      arrivals.push(arrival);
      const answer = () => {
        // A sender killed mid-request closes its side first; an answer written after that reaches no one.
        if (res.destroyed || gone.has(req.socket)) return;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: `r-${arrivals.length}` }), () => (arrival.completed = true));
      };
      if (held) held.push(answer);
      else if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  const gone = new WeakSet<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    socket.once('end', () => gone.add(socket));
    socket.once('close', () => gone.add(socket));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  return {
    url,
    arrivals,
    slow: (ms: number) => (delayMs = ms),
    /** Answers nothing that arrives from now on until `release` (what is already on its way still gets its answer). */
    hold: () => {
      held ??= [];
    },
    /** Deliveries that arrived while held and wait for their answer. */
    waiting: () => held?.length ?? 0,
    /** Writes the answers held back (to senders still connected) and answers as before from now on. */
    release: () => {
      const answers = held ?? [];
      held = null;
      for (const answer of answers) answer();
    },
    byPost(): Map<string, Arrival[]> {
      const map = new Map<string, Arrival[]>();
      for (const a of arrivals) map.set(a.postId, [...(map.get(a.postId) ?? []), a]);
      return map;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A redis-server of its own on a free loopback port, which a test may flush, stop and start. */
export async function startPrivateRedis() {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor('the private redis-server', async () => (await exec('redis-cli', ['-p', String(port), 'ping'])).stdout.trim() === 'PONG');
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop,
    cli: async (...args: string[]) => (await exec('redis-cli', ['-p', String(port), ...args])).stdout.trim(),
  };
}

/** The newest PostgreSQL server binaries of Debian's packages (initdb, pg_ctl). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('No PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql).');
  return path.join(root, newest, 'bin');
}

/**
 * A PostgreSQL cluster of its own (initdb into a temporary directory, a free loopback port), so
 * a test can stop and restart it while the other files keep using the machine's server. The
 * server refuses to run as root, so as root it runs as the `postgres` user.
 */
export async function startPrivatePostgres() {
  const bin = postgresBin();
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await exec('chown', ['-R', 'postgres:postgres', dir]);
  const run = (tool: string, args: string[]) =>
    asRoot ? exec('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : exec(path.join(bin, tool), args);
  await run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    await run('pg_ctl', ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async () => {
    await run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/herald`;
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE herald');
  await admin.end();
  return {
    url,
    port,
    start,
    stop,
    destroy: async () => {
      await stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Schedules `count` posts for `date` through the given API processes in turn, 100 per request (one per channel). */
export async function schedulePosts(
  apis: ServerProcess[],
  key: string,
  channelIds: string[],
  count: number,
  date: Date,
  label: string,
): Promise<string[]> {
  const ids: string[] = [];
  const requests: Array<() => Promise<void>> = [];
  for (let i = 0, n = 0; i < count; i += channelIds.length, n++) {
    const api = apis[n % apis.length]!;
    const items = channelIds
      .slice(0, Math.min(channelIds.length, count - i))
      .map((id, j) => ({ integration: { id }, value: [{ content: `<p>${label} ${i + j}</p>` }] }));
    requests.push(async () => {
      const res = await fetch(`${api.baseUrl}/public/v1/posts`, {
        method: 'POST',
        headers: { authorization: key, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'schedule', date: date.toISOString(), posts: items }),
      });
      if (res.status !== 200) throw new Error(`POST /posts answered ${res.status}: ${await res.text()}`);
      ids.push(...((await res.json()) as Array<{ postId: string }>).map((p) => p.postId));
    });
  }
  // Both APIs at once, a few requests each in flight.
  for (let i = 0; i < requests.length; i += 4) await Promise.all(requests.slice(i, i + 4).map((r) => r()));
  return ids;
}

/** Post states straight from the database: the truth the test checks the deliveries against. */
export async function postStates(databaseUrl: string, ids: string[]): Promise<Map<string, { state: string; errorKind: string | null }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; state: string; error_kind: string | null }>(
      'SELECT id, state, error_kind FROM posts WHERE id = ANY($1)',
      [ids],
    );
    return new Map(rows.map((r) => [r.id, { state: r.state, errorKind: r.error_kind }]));
  } finally {
    await client.end();
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

export async function startRole(env: Record<string, string>, role: 'api' | 'worker' | 'all'): Promise<ServerProcess> {
  return startServerProcess(env, ['--role', role]);
}
