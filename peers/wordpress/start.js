// Starts WordPress itself on loopback through WordPress Playground (PHP compiled to WebAssembly,
// SQLite instead of MySQL), from the WordPress build that comes with the npm package: nothing is
// downloaded. Prints one JSON line when the site answers:
//   {"site":"http://127.0.0.1:<port>","secret":"…"}
// The tests make users and application passwords through the peer's own route
// (`POST /wp-json/herald-peer/v1/setup`, with the secret). The site runs as a "local" environment,
// where WordPress accepts application passwords without https. Stops on SIGTERM or SIGINT, and
// when its standard input closes if started with --exit-with-stdin.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { createRequire } from 'node:module';
import { setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// WordPress in WebAssembly spends about a second of processor time on each request (PHP loads some
// 430 compiled files every time). On a loaded machine that could outlast the 60 s Herald gives a
// WordPress site to answer, and a test would fail for the machine's load, not for WordPress's
// answer. Where allowed (as root), the peer and WordPress Playground, which inherits it, run at a
// higher priority than the tests' other processes; elsewhere at the normal one.
try {
  os.setPriority(-10);
} catch {
  // Not permitted: the normal priority.
}

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const WORDPRESS_VERSION = '6.5';
const builds = path.dirname(require.resolve('@wp-playground/wordpress-builds/package.json'));
const zip = path.join(builds, 'src', 'wordpress', `wp-${WORDPRESS_VERSION}.zip`);
const cli = path.join(path.dirname(require.resolve('@wp-playground/cli/package.json')), 'cli.js');

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return port;
}

// Playground takes WordPress from a URL: serve the packaged build on loopback.
const files = http.createServer((req, res) => {
  if (req.url !== '/wordpress.zip') return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'application/zip' });
  fs.createReadStream(zip).pipe(res);
});
await new Promise((resolve) => files.listen(0, '127.0.0.1', () => resolve(undefined)));
const zipUrl = `http://127.0.0.1:${/** @type {net.AddressInfo} */ (files.address()).port}/wordpress.zip`;

const port = Number(process.env.WP_PORT) || (await freePort());
const secret = crypto.randomBytes(16).toString('hex');
const site = `http://127.0.0.1:${port}`;
const child = spawn(
  process.execPath,
  [
    cli,
    'server',
    `--wp=${zipUrl}`,
    `--port=${port}`,
    '--workers=1',
    '--verbosity=quiet',
    `--mount=${path.join(here, 'mu-plugins')}:/wordpress/wp-content/mu-plugins`,
    '--define',
    'WP_ENVIRONMENT_TYPE',
    'local',
    '--define',
    'HERALD_PEER_SECRET',
    secret,
  ],
  { cwd: here, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, HOME: process.env.HOME ?? here } },
);
child.stdout.on('data', (chunk) => process.stderr.write(chunk));

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  files.close();
  if (child.exitCode === null) child.kill('SIGTERM');
  // Playground may take a moment to stop its workers; it never outlives the peer.
  setTimeout(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    process.exit(code);
  }, 3000).unref();
  child.once('exit', () => process.exit(code));
}
process.on('SIGTERM', () => stop());
process.on('SIGINT', () => stop());
if (process.argv.includes('--exit-with-stdin')) {
  process.stdin.on('end', () => stop());
  process.stdin.resume();
}
child.once('exit', (code) => {
  if (!stopping) {
    process.stderr.write(`WordPress Playground exited (${code}).\n`);
    process.exit(1);
  }
});

// Ready when the REST index answers.
for (;;) {
  try {
    const answer = await globalThis.fetch(`${site}/wp-json/`);
    if (answer.ok) break;
  } catch {
    // Not listening yet.
  }
  await sleep(500);
}
// The first request to each part of WordPress is the slowest (PHP loads and compiles its files in
// WebAssembly): make those before saying the site is ready.
for (const [route, method] of [
  ['/', 'HEAD'],
  ['/wp-json/wp/v2/categories', 'GET'],
  ['/wp-json/wp/v2/users/me', 'GET'],
  ['/wp-json/wp/v2/posts', 'POST'],
]) {
  await globalThis.fetch(`${site}${route}`, { method }).catch(() => undefined);
}
process.stdout.write(`${JSON.stringify({ site, secret })}\n`);
