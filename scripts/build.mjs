// Compiles src/ into plain JavaScript under dist/, so production runs no TypeScript loader.
//
// `node scripts/build.mjs` builds (run by `npm ci`/`npm install` through `prepare`); bin/herald.js
// calls ensureBuilt() on every start, which only stats the sources (a few milliseconds) and
// rebuilds (a fraction of a second) when they changed since the last build, so `npm start` right
// after an edit or a `git pull` runs what is in src/.
//
// Each build goes to dist/build-<fingerprint>/, written under a temporary name and renamed into
// place, so processes starting at the same time never see half a build and never need a lock;
// a running process keeps its own build's lazily loaded chunks. Older builds are pruned.
import { createHash } from 'node:crypto';
import process from 'node:process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The operator commands (server runtime, database) and the user command (an HTTP client only). */
const ENTRIES = { cli: 'cli/main.ts', user: 'client/main.ts' };
const KEEP_BUILDS = 3;

/**
 * Packages compiled into the build rather than loaded from node_modules: each is hundreds of
 * small ES modules, and loading them one file at a time took most of the start-up. Every user
 * of zod is in this list, so the build holds one zod, as the sources see one.
 */
const BUNDLED = new Set(['kysely', 'zod', 'fastify-type-provider-zod']);

/** Leaves every other installed package to node_modules, loaded where it is first imported. */
const externals = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * Everything a build depends on, by name, size and modification time: the sources, the
 * lockfile (bundled packages), the TypeScript settings and this script.
 */
function fingerprint(root) {
  const src = path.join(root, 'src');
  if (!fs.existsSync(src)) return null;
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.isFile()) add(full);
    }
  };
  const add = (file) => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    hash.update(`${path.relative(root, file)}\0${stat ? `${stat.size}:${stat.mtimeMs}` : '-'}\n`);
  };
  visit(src);
  for (const file of ['package-lock.json', 'tsconfig.json', 'scripts/build.mjs']) add(path.join(root, file));
  hash.update(process.version.split('.')[0] ?? '');
  return hash.digest('hex').slice(0, 16);
}

function builds(root) {
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(dist)) return [];
  return fs
    .readdirSync(dist)
    .filter((name) => name.startsWith('build-') && fs.existsSync(path.join(dist, name, 'cli.js')) && fs.existsSync(path.join(dist, name, 'user.js')))
    .map((name) => ({ dir: path.join(dist, name), mtimeMs: fs.statSync(path.join(dist, name)).mtimeMs }))
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Compiles the sources into dist/build-<id>/ and returns the entry file `name` (cli or user). */
export async function build(root = ROOT, id = fingerprint(root), name = 'cli') {
  if (!id) throw new Error(`${path.join(root, 'src')} is missing: nothing to build.`);
  const { build: esbuild } = await import('esbuild');
  const dist = path.join(root, 'dist');
  const target = path.join(dist, `build-${id}`);
  const temporary = path.join(dist, `.tmp-${process.pid}-${Date.now()}`);
  fs.mkdirSync(dist, { recursive: true });
  try {
    await esbuild({
      absWorkingDir: root,
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join('src', file)])),
      outdir: temporary,
      bundle: true,
      // A feature's module is loaded where the sources import it dynamically (S3, Redis, PostgreSQL…).
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      plugins: [externals],
      sourcemap: 'linked',
      sourcesContent: false,
      keepNames: true,
      tsconfig: path.join(root, 'tsconfig.json'),
      logLevel: 'warning',
    });
    try {
      fs.renameSync(temporary, target);
    } catch (error) {
      // Another process finished the same build first.
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code)) throw error;
    }
  } finally {
    fs.rmSync(temporary, { recursive: true, force: true });
  }
  for (const old of builds(root).filter((b) => b.dir !== target).slice(KEEP_BUILDS - 1)) {
    fs.rmSync(old.dir, { recursive: true, force: true });
  }
  return path.join(target, `${name}.js`);
}

/**
 * The compiled entry file `name` (cli: operator commands, user: the API client) for the sources
 * as they are now, building it first when needed. Without src/ (an image that ships dist/ only),
 * the newest build.
 */
export async function ensureBuilt(root = ROOT, name = 'cli') {
  const id = fingerprint(root);
  if (id === null) {
    const newest = builds(root)[0];
    if (!newest) throw new Error('Neither src/ nor a build in dist/: run `npm run build`.');
    return path.join(newest.dir, `${name}.js`);
  }
  const entry = path.join(root, 'dist', `build-${id}`, `${name}.js`);
  return fs.existsSync(entry) ? entry : build(root, id, name);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const entry = await build();
  process.stdout.write(`built ${path.relative(ROOT, entry)}\n`);
}
