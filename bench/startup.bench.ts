// Start-up, an operator command and idle memory of the real `herald` process, optionally next to
// an earlier version of the code (`--baseline <git ref>`), measured in turns within one run.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkout } from './checkout.ts';
import { freePort } from './lib.ts';
import { percentile } from './receiver.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Variant = { name: string; bin: string };
type Sample = { readyMs: number; cpuToReadyMs: number; idleRssMiB: number; commandMs: number; commandCpuMs: number };

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/** CPU time (user + system) of a running process, from /proc: it holds better than wall time when other processes take the cores. */
function cpuMs(pid: number | 'self', children = false): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After the name: utime, stime are fields 12 and 13 of this list (14 and 15 of stat), the reaped children's cutime, cstime 14 and 15.
  const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
  return (Number(user) + Number(system)) * TICK_MS;
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

/** `herald serve` on an existing database: time from spawn to the first 200 from /healthz, then RSS after `idleMs`. */
async function startOnce(
  bin: string,
  env: Record<string, string>,
  idleMs: number,
): Promise<{ readyMs: number; cpuToReadyMs: number; idleRssMiB: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    let readyMs = 0;
    let cpuToReadyMs = 0;
    while (!readyMs) {
      if (child.exitCode !== null) throw new Error(`${bin} serve exited with ${child.exitCode}`);
      if (performance.now() - started > 60_000) throw new Error(`${bin} serve did not answer /healthz within 60 s`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) {
          readyMs = performance.now() - started;
          cpuToReadyMs = cpuMs(child.pid!);
        }
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    return { readyMs: Math.round(readyMs), cpuToReadyMs, idleRssMiB: rssMiB(child.pid!) };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * Wall time of one operator command, from spawn to exit, and its CPU time: what this process's
 * reaped children used (/proc/self/stat) grew by while it ran, as no other child runs meanwhile.
 */
async function commandOnce(bin: string, env: Record<string, string>, args: string[]): Promise<{ commandMs: number; commandCpuMs: number }> {
  const childrenCpu = cpuMs('self', true);
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${bin} ${args.join(' ')} exited with ${code}`);
  return { commandMs: Math.round(performance.now() - started), commandCpuMs: cpuMs('self', true) - childrenCpu };
}

function summary(samples: Sample[]) {
  const of = (pick: (s: Sample) => number) => {
    const values = samples.map(pick).sort((a, b) => a - b);
    return { median: percentile(values, 50), min: values[0], max: values[values.length - 1] };
  };
  return {
    startupToHealthzMs: of((s) => s.readyMs),
    cpuToHealthzMs: of((s) => s.cpuToReadyMs),
    operatorCommandMs: of((s) => s.commandMs),
    operatorCommandCpuMs: of((s) => s.commandCpuMs),
    idleRssMiB: of((s) => s.idleRssMiB),
    runs: samples.length,
  };
}

/**
 * `runs` rounds; in each, every variant starts once on its own existing SQLite database (default
 * settings, standard output discarded), idles `idleMs` (RSS read then), stops, then runs one operator command
 * (`herald admin workspace create --json`). Variants take turns so that the machine's load
 * falls on each alike. The first round warms caches (tsx's, the build's) and is not counted.
 */
export async function startupBench(options: { runs: number; idleMs: number; settledIdleMs: number; baseline?: string | undefined }) {
  const loadBefore = os.loadavg()[0]!;
  const baseline = options.baseline ? checkout(options.baseline) : null;
  const variants: Variant[] = [
    ...(baseline ? [{ name: `baseline (${options.baseline})`, bin: path.join(baseline.dir, 'bin/herald.js') }] : []),
    { name: 'current', bin: path.join(ROOT, 'bin/herald.js') },
  ];
  const dirs = variants.map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'herald-startup-')));
  const samples: Sample[][] = variants.map(() => []);
  try {
    for (let round = 0; round <= options.runs; round++) {
      for (const [i, variant] of variants.entries()) {
        const env = { DATA_DIR: dirs[i]!, BOOTSTRAP: 'false', SECRET_KEY: 'cd'.repeat(32) };
        const started = await startOnce(variant.bin, env, options.idleMs);
        const command = await commandOnce(variant.bin, env, ['admin', 'workspace', 'create', '--name', `Round ${round}`, '--json']);
        if (round > 0) samples[i]!.push({ ...started, ...command });
      }
    }
    // Resident memory once the process has been idle long enough for V8 to give back what start-up used (its memory reducer runs after about 30 s without work): every variant at once, as idle processes do not compete.
    const settled = await Promise.all(
      variants.map(
        async (variant, i) =>
          (await startOnce(variant.bin, { DATA_DIR: dirs[i]!, BOOTSTRAP: 'false', SECRET_KEY: 'cd'.repeat(32) }, options.settledIdleMs))
            .idleRssMiB,
      ),
    );
    const loadAverage = { before: Math.round(loadBefore * 100) / 100, after: Math.round(os.loadavg()[0]! * 100) / 100 };
    return {
      loadAverage,
      ...Object.fromEntries(
        variants.map((variant, i) => [
          variant.name,
          { ...summary(samples[i]!), idleRssMiBAfterSettling: settled[i], settledAfterSeconds: options.settledIdleMs / 1000 },
        ]),
      ),
    };
  } finally {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    baseline?.remove();
  }
}
