// Where one run of the command reads and writes: the process's own streams and environment, or
// those a caller gives `runHerald` (several runs may share one process, each with its own).
import { AsyncLocalStorage } from 'node:async_hooks';

export type Stdio = {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  /** The exit code the run ends with, unless it finishes normally (0). */
  exitCode?: number;
};

const runs = new AsyncLocalStorage<Stdio>();

const processStdio: Stdio = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  get env() {
    return process.env;
  },
  get exitCode() {
    return typeof process.exitCode === 'number' ? process.exitCode : undefined;
  },
  set exitCode(code) {
    process.exitCode = code;
  },
};

/** The streams and environment of the run in progress. */
export function stdio(): Stdio {
  return runs.getStore() ?? processStdio;
}

/** Runs `fn` with `given` as its streams and environment. */
export function withStdio<T>(given: Stdio, fn: () => Promise<T>): Promise<T> {
  return runs.run(given, fn);
}

/**
 * The time zone named by the TZ of a run's given environment; undefined for the process's own
 * run, whose zone is the machine's (Node has already applied its TZ).
 */
export function givenTimeZone(): string | undefined {
  return runs.getStore()?.env.TZ || undefined;
}
