import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import autocannon from 'autocannon';

export type Load = { requestsPerSecond: number; latencyP50: number; latencyP99: number; errors: number; non2xx: number; total: number };

/**
 * Runs autocannon on loopback for `seconds` and summarises the run: a closed loop (each connection
 * sends its next request when the last is answered) or, with `rate`, that many requests per second
 * in all (an open load at a set pace, as a service's users make it).
 */
export async function load(
  url: string,
  options: {
    seconds: number;
    connections: number;
    rate?: number;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
  },
): Promise<Load> {
  const result = await autocannon({
    url,
    duration: options.seconds,
    connections: options.connections,
    ...(options.rate && { overallRate: options.rate }),
    method: options.method ?? 'GET',
    ...(options.headers && { headers: options.headers }),
    ...(options.body !== undefined && { body: options.body }),
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/** Starts a node process running `script` and resolves with the port it prints as `listening N`, or the URL Fastify logs. */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process did not start:\n${output}`)), 30_000);
    const check = () => {
      const match = /listening (\d+)/.exec(output) ?? /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => reject(new Error(`process exited:\n${output}`)));
  });
  return { child, port, output: () => output };
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A loopback port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts `herald serve` quietly (LOG_LEVEL=warn) and waits until /status answers. */
export async function startHerald(
  bin: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // BENCH_NODE_ARGS passes flags to the server's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
  // BENCH_SERVER_STDOUT keeps the server's standard output in a file (V8's --trace-* flags print there).
  const stdout = process.env.BENCH_SERVER_STDOUT ? fs.openSync(process.env.BENCH_SERVER_STDOUT, 'w') : 'ignore';
  const child = spawn(process.execPath, [...nodeArgs, bin, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', stdout, 'inherit'],
  });
  // The child has its own copy of the file's descriptor.
  if (typeof stdout === 'number') fs.closeSync(stdout);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`herald exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/public/v1/status`)).ok) return { child, port };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error('herald did not start within 30 s');
}

/** CPU time (user + system) a process has used so far, in milliseconds, from /proc (Linux); NaN elsewhere. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The median of `values` (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
