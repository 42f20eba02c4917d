import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { freshDatabaseUrl, scaleProcessEnv } from './backend.ts';

export const HERALD_BIN = fileURLToPath(new URL('../../bin/herald.js', import.meta.url));
const run = promisify(execFile);

/**
 * What one real process may take: a `herald` command to finish, or a server to start listening.
 * Each starts Node and compiles the TypeScript sources, about 4 s on a quiet 2-core machine and
 * several times that on a loaded one (CI's machines are both). The budget only bounds a hang; it
 * is never a performance check (benchmarks measure speed).
 */
export const PROCESS_BUDGET_MS = 90_000;

/**
 * A test's (or hook's) timeout: `processes` real processes run one after another (or at once,
 * which on two cores costs as much), plus `otherMs` for the rest of its work.
 */
export function processBudget(processes: number, otherMs = 10_000): number {
  return processes * PROCESS_BUDGET_MS + otherMs;
}

/** The test runner's environment, less what Vitest adds for Vite (BASE_URL=/ would be read as Herald's). */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { BASE_URL: _base, MODE: _mode, DEV: _dev, PROD: _prod, SSR: _ssr, ...rest } = process.env;
  return rest;
}

/**
 * Runs `herald …` and returns its output; never throws on a non-zero exit, only when it outlasts
 * its budget. `input` is its standard input (empty and closed without it).
 */
export async function herald(
  args: string[],
  env: Record<string, string>,
  input = '',
  options: { onStderr?: (text: string) => void } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const pending = run(process.execPath, [HERALD_BIN, ...args], {
      env: { ...inheritedEnv(), ...scaleProcessEnv(env), ...env },
      timeout: PROCESS_BUDGET_MS,
    });
    if (options.onStderr) pending.child.stderr!.on('data', (chunk: Buffer) => options.onStderr!(chunk.toString()));
    pending.child.stdin!.end(input);
    const { stdout, stderr } = await pending;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; killed?: boolean; stdout?: string; stderr?: string };
    if (e.killed) throw new Error(`herald ${args.join(' ')} did not finish in ${PROCESS_BUDGET_MS / 1000} s:\n${e.stderr ?? ''}`);
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** A test's timeout when its `herald` runs are in this process: only a bound on a hang on a loaded machine. */
export const IN_PROCESS_MS = 60_000;

/** The operator commands, which bin/herald.js runs from their own entry. */
const OPERATOR = new Set(['serve', 'migrate', 'admin']);

/**
 * Runs `herald …` inside this process, through the entry bin/herald.js would run (the user
 * command's or the operator commands'): the same program, parsing and exit codes as the real
 * command, with standard input `input` (not a terminal), its output collected, and `env` (with
 * the scale-out settings a real process gets) as its whole environment. Runs at once share none
 * of it. Much cheaper than starting Node; not for `serve`, which keeps running.
 */
export async function heraldInProcess(
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  const collect = () => {
    const chunks: Buffer[] = [];
    const stream = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
    });
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
  };
  const stdout = collect();
  const stderr = collect();
  const given = {
    stdin: Readable.from(input ? [Buffer.from(input)] : []),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { ...scaleProcessEnv(env), ...env },
  };
  const run = OPERATOR.has(args.find((arg) => !arg.startsWith('-')) ?? '')
    ? (await import('../../src/cli/operator.ts')).runOperator
    : (await import('../../src/client/cli.ts')).runHerald;
  const code = await run(args, given);
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs `herald admin … --json` (a real process unless `run` says otherwise) and parses the answer; throws with stderr when it fails. */
export async function adminJson<T = Record<string, unknown>>(
  args: string[],
  env: Record<string, string>,
  run: typeof herald = herald,
): Promise<T> {
  const result = await run(['admin', ...args, '--json'], env);
  if (result.code !== 0) throw new Error(`herald admin ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export type ServerProcess = {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/** Starts `herald serve` on a free loopback port and waits until it listens. */
export async function startServerProcess(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [HERALD_BIN, 'serve', ...args], {
    env: { ...inheritedEnv(), ...scaleProcessEnv(env), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stopping = false;
  let listening = false;
  // A server that dies on its own mid-test shows up later as a refused connection: say why here.
  child.once('exit', (code, signal) => {
    if (listening && !stopping)
      process.stderr.write(
        `herald serve ${args.join(' ')} exited by itself (code ${code}, signal ${signal}); its last output:\n${output.slice(-8000)}\n`,
      );
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${PROCESS_BUDGET_MS / 1000} s:\n${output}`));
    }, PROCESS_BUDGET_MS);
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        listening = true;
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`server exited early:\n${output}`));
    });
  });
  return {
    child,
    baseUrl,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      stopping = true;
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * `herald admin` run inside this process on a fresh database of the test backend, made before
 * the file's tests and dropped after them: `admin(...args)` gives the output and exit code,
 * `json(args)` the parsed answer of `--json`; `env()` is the environment they run with.
 */
export function operatorCommands() {
  let env: Record<string, string> = {};
  let drop: (() => Promise<void>) | undefined;
  beforeAll(
    async () => {
      const fresh = await freshDatabaseUrl();
      drop = fresh.drop;
      env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, BASE_URL: 'http://herald.test', BOOTSTRAP: 'false' };
    },
    processBudget(0, 60_000),
  );
  afterAll(async () => {
    await drop?.();
  });
  return {
    env: () => env,
    admin: (...args: string[]) => heraldInProcess(['admin', ...args], env),
    json: <T = Record<string, unknown>>(args: string[]) => adminJson<T>(args, env, heraldInProcess),
  };
}
