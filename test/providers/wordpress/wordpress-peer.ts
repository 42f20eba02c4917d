// WordPress itself as a child process (peers/wordpress/start.js: WordPress Playground on
// loopback), with the peer's route for making users and application passwords.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PROCESS_BUDGET_MS } from '../../helpers/process.ts';

export const WORDPRESS_PEER_DIR = fileURLToPath(new URL('../../../peers/wordpress/', import.meta.url));

export type WordPressPeer = {
  site: string;
  /** A user with `role` (made once) and a new application password for it. */
  user(
    login: string,
    role: 'administrator' | 'editor' | 'author' | 'contributor' | 'subscriber',
  ): Promise<{ id: number; password: string }>;
  /** Revokes every application password of the user. */
  revoke(login: string): Promise<void>;
  /** A REST call as `login` with its application password (the test's own client, not the provider). */
  rest<T = unknown>(path: string, auth: { login: string; password: string }): Promise<T>;
  stop(): Promise<void>;
};

export function wordpressPeerInstalled(): boolean {
  return fs.existsSync(`${WORDPRESS_PEER_DIR}node_modules/@wp-playground/cli/package.json`);
}

/** Starts peers/wordpress/start.js and waits for its JSON line (WordPress in WebAssembly takes a while on a busy machine). */
export async function startWordPressPeer(): Promise<WordPressPeer> {
  if (!wordpressPeerInstalled())
    throw new Error(
      'The WordPress test peer is not installed: run `npm ci --prefix peers/wordpress` (or set HERALD_SKIP_WORDPRESS_PEER=1 to skip these tests).',
    );
  const child: ChildProcess = spawn(process.execPath, ['start.js', '--exit-with-stdin'], {
    cwd: WORDPRESS_PEER_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const budget = 3 * PROCESS_BUDGET_MS;
  const ready = await new Promise<{ site: string; secret: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      // SIGTERM: the peer stops WordPress Playground, its own child, before it exits.
      child.kill('SIGTERM');
      reject(new Error(`The WordPress peer did not start in ${budget / 1000} s:\n${output}`));
    }, budget);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{"site"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { site: string; secret: string });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The WordPress peer exited (${code}) before it was ready:\n${output}`));
    });
  });
  const peerCall = async (route: string, body: Record<string, unknown>) => {
    const answer = await fetch(`${ready.site}/wp-json/herald-peer/v1/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: ready.secret, ...body }),
    });
    if (!answer.ok) throw new Error(`The peer's ${route} answered ${answer.status}: ${await answer.text()}`);
    return answer.json() as Promise<Record<string, unknown>>;
  };
  return {
    site: ready.site,
    async user(login, role) {
      const made = await peerCall('setup', { login, role });
      return { id: Number(made.id), password: String(made.password) };
    },
    async revoke(login) {
      await peerCall('revoke', { login });
    },
    async rest<T>(path: string, auth: { login: string; password: string }) {
      const answer = await fetch(`${ready.site}/wp-json${path}`, {
        headers: { authorization: `Basic ${Buffer.from(`${auth.login}:${auth.password.replace(/ /g, '')}`).toString('base64')}` },
      });
      return answer.json() as Promise<T>;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
