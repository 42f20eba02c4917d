// Compiles src/ into plain JavaScript under dist/, so production runs no TypeScript loader.
//
// `node scripts/build.mjs` (`npm run build`) builds; no install script runs it, so neither `npm ci`
// nor `npm install -g .` has a build step to approve or skip. bin/herald.js calls ensureBuilt() on
// every start, which only stats the sources (a few milliseconds) and
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
import { builtinModules } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** The operator commands (server runtime, database) and the user command (an HTTP client only). */
const ENTRIES = { cli: 'cli/main.ts', user: 'client/main.ts' };
const KEEP_BUILDS = 3;

/**
 * Packages compiled into the build rather than loaded from node_modules, with whatever they import
 * in turn: what every start of the server or of a command loads (the HTTP framework and its
 * plugins, the logger, the command-line parser, the query builder, zod). Loaded from
 * node_modules, they were some 200 CommonJS files, each found, read, wrapped and compiled on its
 * own, and each ES module import of one of them parsed its source once more to find its names.
 * Every user of zod is in this list, so the build holds one zod, as the sources see one.
 * Pino's transports (worker threads started from files next to pino) are not used, and would not
 * work from the build; the terminal log goes through pino-pretty as a stream.
 */
const BUNDLED = new Set([
  'kysely',
  'zod',
  'fastify-type-provider-zod',
  'fastify',
  'fastify-plugin',
  '@fastify/cookie',
  '@fastify/formbody',
  '@fastify/multipart',
  'pino',
  'commander',
]);

/**
 * Imported by a bundled package yet left in node_modules: what loads only when a feature needs
 * it (Ajv and fast-json-stringify, which Fastify requires only for schemas our compilers do not
 * handle; light-my-request, for `inject`; pino-pretty, on a terminal), and thread-stream, which
 * starts workers from its own files.
 */
const KEEP_EXTERNAL = new Set([
  'thread-stream',
  'pino-pretty',
  'ajv',
  'ajv-formats',
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  'fast-json-stringify',
  'light-my-request',
]);

const BUILTINS = new Set(builtinModules);

/** Leaves every other installed package to node_modules, loaded where it is first imported. */
const externals = {
  name: 'externals',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || BUILTINS.has(args.path.split('/')[0])) return { path: args.path, external: true };
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      if (BUNDLED.has(name)) return undefined;
      // Only bundled packages' files come through here from node_modules: their dependencies are bundled too.
      if (args.importer.includes(`${path.sep}node_modules${path.sep}`) && !KEEP_EXTERNAL.has(name)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * Bundled CommonJS code requires Node's modules and the packages left outside the build; an ES
 * module has no `require`, so each file of the build makes one (esbuild's `__require` uses it).
 */
const REQUIRE_BANNER =
  "import { createRequire as __heraldCreateRequire } from 'node:module'; const require = __heraldCreateRequire(import.meta.url);";

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
    .filter(
      (name) =>
        name.startsWith('build-') && fs.existsSync(path.join(dist, name, 'cli.js')) && fs.existsSync(path.join(dist, name, 'user.js')),
    )
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
      // Identifiers are not minified, so functions and classes keep their names (one that clashes
      // with another of the same chunk gets a number: `send3`). `keepNames` would restore those
      // few, but by wrapping every named function, closures included, in a call that redefines
      // its `name`: Fastify makes several closures per request, and each paid for it.
      keepNames: false,
      // Without indentation and comments the build is a third smaller: less source for V8 to scan
      // at start and to keep in memory (about 3 MiB resident). A stack trace still names its
      // functions; `node --enable-source-maps` maps its positions to src/.
      // Lines are still broken every 120 or so characters: Node prints the line of an uncaught
      // error, which would otherwise be a whole file.
      minifyWhitespace: true,
      lineLimit: 120,
      banner: { js: REQUIRE_BANNER },
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
  for (const old of builds(root)
    .filter((b) => b.dir !== target)
    .slice(KEEP_BUILDS - 1)) {
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
