// Installs what the tests need beyond the npm packages, once, before `npm test` and `npm run test:scale`:
// - the test peers in their own folders, each skipped while its installed lockfile is unchanged:
//   the reference Bluesky PDS (its install compiles better-sqlite3, about 70 s;
//   HERALD_SKIP_BLUESKY_PEER=1 skips it) and WordPress through WordPress Playground (about 1 GB of
//   PHP builds; HERALD_SKIP_WORDPRESS_PEER=1 skips it);
// - Debian's chromium for the upload page's browser test, through apt-get when it is missing.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const peers = [
  ...(process.env.HERALD_SKIP_BLUESKY_PEER === '1' ? [] : ['bluesky-pds']),
  ...(process.env.HERALD_SKIP_WORDPRESS_PEER === '1' ? [] : ['wordpress']),
];
for (const name of peers) {
  const dir = path.join(root, 'peers', name);
  const lock = path.join(dir, 'package-lock.json');
  const stamp = path.join(dir, 'node_modules', '.herald-installed-lock');
  const installed = fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === fs.readFileSync(lock, 'utf8');
  if (installed) continue;
  process.stderr.write(`Installing the test peer peers/${name} (first time only, about a minute)…\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.copyFileSync(lock, stamp);
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
