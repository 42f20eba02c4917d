// Installs the test peers (the reference Bluesky PDS) in their own folders, once: the install
// compiles better-sqlite3 (about 70 s), so it is skipped while the installed lockfile is unchanged.
// Runs before `npm test` and `npm run test:scale`; HERALD_SKIP_BLUESKY_PEER=1 skips it.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

if (process.env.HERALD_SKIP_BLUESKY_PEER === '1') process.exit(0);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
for (const name of ['bluesky-pds']) {
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
