// Installs what the tests need beyond the npm packages, once, before `npm test` and `npm run test:scale`:
// - the test peers in their own folders: the reference Bluesky PDS (its install compiles
//   better-sqlite3, about 70 s; HERALD_SKIP_BLUESKY_PEER=1 skips it) and WordPress through WordPress
//   Playground (about 1 GB of PHP builds; HERALD_SKIP_WORDPRESS_PEER=1 skips it). Each is installed
//   once per machine into a cache folder named by the hash of its package files and the Node version
//   (HERALD_PEER_CACHE, default ~/.cache/herald/peers), and `peers/<name>/node_modules` links there,
//   so a fresh clone (CI, a worktree) reuses it. A peer folder with its own up-to-date install keeps it.
// - Debian's chromium for the upload page's browser test, through apt-get when it is missing.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import process from 'node:process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const cache = process.env.HERALD_PEER_CACHE || path.join(os.homedir(), '.cache', 'herald', 'peers');
const peers = [
  ...(process.env.HERALD_SKIP_BLUESKY_PEER === '1' ? [] : ['bluesky-pds']),
  ...(process.env.HERALD_SKIP_WORDPRESS_PEER === '1' ? [] : ['wordpress']),
];
const STAMP = '.herald-installed-lock';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const name of peers) {
  const dir = path.join(root, 'peers', name);
  const manifest = fs.readFileSync(path.join(dir, 'package.json'));
  const lock = fs.readFileSync(path.join(dir, 'package-lock.json'));
  const modules = path.join(dir, 'node_modules');
  // An install made in the folder itself (before the cache existed) is kept while its lockfile is unchanged.
  const ownStamp = path.join(modules, STAMP);
  if (!isLink(modules) && fs.existsSync(ownStamp) && fs.readFileSync(ownStamp).equals(lock)) continue;

  const key = crypto
    .createHash('sha256')
    .update(manifest)
    .update(lock)
    .update(`${process.version.split('.')[0]} ${process.platform} ${process.arch}`)
    .digest('hex')
    .slice(0, 16);
  const entry = path.join(cache, `${name}-${key}`);
  if (!fs.existsSync(path.join(entry, 'node_modules', STAMP))) install(name, entry, manifest, lock);
  if (isLink(modules) && fs.readlinkSync(modules) === path.join(entry, 'node_modules')) continue;
  fs.rmSync(modules, { recursive: true, force: true });
  fs.symlinkSync(path.join(entry, 'node_modules'), modules, 'dir');
}

/** Installs a peer's packages into a new cache entry (built aside, then renamed into place) and drops its older entries. */
function install(name, entry, manifest, lock) {
  process.stderr.write(`Installing the test peer peers/${name} into ${entry} (once per machine, about a minute)…\n`);
  const building = `${entry}.building-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  fs.writeFileSync(path.join(building, 'package.json'), manifest);
  fs.writeFileSync(path.join(building, 'package-lock.json'), lock);
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: building, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(path.join(building, 'node_modules', STAMP), lock);
  fs.rmSync(entry, { recursive: true, force: true });
  fs.renameSync(building, entry);
  for (const other of fs.readdirSync(cache)) {
    if (other.startsWith(`${name}-`) && path.join(cache, other) !== entry && !other.includes('.building-')) {
      fs.rmSync(path.join(cache, other), { recursive: true, force: true });
    }
  }
}

function isLink(file) {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

const CHROMIUM = '/usr/bin/chromium';
if (!fs.existsSync(CHROMIUM)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && fs.existsSync('/usr/bin/apt-get')) {
    process.stderr.write("Installing Debian's chromium for the browser tests (first time only)…\n");
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  } else {
    process.stderr.write(
      `${CHROMIUM} is missing and cannot be installed from here: run "apt-get install -y chromium" as root, or the browser test fails.\n`,
    );
  }
}
