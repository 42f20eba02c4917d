// Start-up of the `herald` command for users: spawn to exit of `herald --version` (no network)
// and `herald channels list` (one API call to a local server), next to bare `node -e 0` (the floor).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProcess, stop } from './lib.ts';
import { percentile } from './receiver.ts';

const BIN = fileURLToPath(new URL('../bin/herald.js', import.meta.url));

async function once(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${args.join(' ')} exited with ${code}`);
  return performance.now() - started;
}

/**
 * `runs` rounds, each running the three commands in turn (so the machine's load falls on each
 * alike) against one `herald serve` on a fresh SQLite database; the first round warms caches
 * (the build, the file cache) and is not counted.
 */
export async function userCommandBench(options: { runs: number }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-user-bench-'));
  const server = await startProcess([BIN, 'serve'], {
    DATA_DIR: dir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SECRET_KEY: 'cd'.repeat(32),
  });
  try {
    const key = /API key\s+(svc_\S+)/.exec(server.output())?.[1];
    if (!key) throw new Error(`no bootstrap key in the server's output:\n${server.output()}`);
    const env = { HERALD_URL: `http://127.0.0.1:${server.port}`, HERALD_API_KEY: key, XDG_CONFIG_HOME: dir };
    const commands: Record<string, string[]> = {
      'node -e 0': ['-e', '0'],
      'herald --version': [BIN, '--version'],
      'herald channels list': [BIN, 'channels', 'list'],
    };
    const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
    for (let round = 0; round <= options.runs; round++) {
      for (const [name, args] of Object.entries(commands)) {
        const ms = await once(args, env);
        if (round > 0) samples[name]!.push(ms);
      }
    }
    return Object.fromEntries(
      Object.entries(samples).map(([name, values]) => {
        const sorted = values.sort((a, b) => a - b).map(Math.round);
        return [name, { medianMs: percentile(sorted, 50), minMs: sorted[0], maxMs: sorted[sorted.length - 1], runs: sorted.length }];
      }),
    );
  } finally {
    await stop(server.child);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
