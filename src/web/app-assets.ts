import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** A file's bytes in one content coding, with the strong ETag of those bytes. */
export type Encoded = { body: Buffer; etag: string };

/**
 * One built file of the web app, served from memory: as built (identity), and compressed with
 * brotli and gzip once, when the app is built (in zlib's thread pool, not on the event loop).
 */
export type AppAsset = Encoded & { type: string; compressed: Promise<{ br: Encoded; gzip: Encoded }> };

/** The web app's build: its entry script and stylesheet (content-hashed names) and every file by name. */
export type AppBuild = { script: string; stylesheet: string | null; files: ReadonlyMap<string, AppAsset> };

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };

/** The folder holding package.json: from src/web in development, from dist/build-… in production. */
function packageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'app'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('The web app sources (src/app) are missing: the web app cannot be built.');
    dir = parent;
  }
}

/**
 * Bundles src/app (TSX with Preact) for browsers with esbuild, in memory: one entry script, the
 * views in chunks loaded on demand, one stylesheet, every name content-hashed so browsers may
 * keep them for good. Nothing is fetched from the network: the packages come from node_modules.
 */
async function buildApp(): Promise<AppBuild> {
  const root = packageRoot();
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: { app: path.join('src', 'app', 'main.tsx') },
    outdir: path.join(root, 'dist', 'app'),
    write: false,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    entryNames: '[name]-[hash]',
    chunkNames: 'chunks/[name]-[hash]',
    assetNames: 'assets/[name]-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    metafile: true,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
    tsconfig: path.join(root, 'src', 'app', 'tsconfig.json'),
    logLevel: 'silent',
  });
  const outdir = path.join(root, 'dist', 'app');
  const files = new Map<string, AppAsset>();
  let script = '';
  let stylesheet: string | null = null;
  for (const file of result.outputFiles) {
    const name = path.relative(outdir, file.path).split(path.sep).join('/');
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const body = Buffer.from(file.contents);
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 22);
    files.set(name, { body, type, etag: `"${hash}"`, compressed: compress(body, hash) });
    if (/^app-[0-9A-Z]+\.js$/.test(name)) script = name;
    if (/^app-[0-9A-Z]+\.css$/.test(name)) stylesheet = name;
  }
  if (!script) throw new Error('The web app build has no entry script.');
  return { script, stylesheet, files };
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Brotli at its best quality and gzip at level 9: made once per build, so the time is spent once. */
function compress(body: Buffer, hash: string): Promise<{ br: Encoded; gzip: Encoded }> {
  const compressed = Promise.all([
    brotli(body, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzip(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
  ]).then(([br, gz]) => ({ br: { body: br, etag: `"${hash}-br"` }, gzip: { body: gz, etag: `"${hash}-gz"` } }));
  // Awaited by the first request for the file; until then a failure must not be an unhandled rejection.
  compressed.catch(() => undefined);
  return compressed;
}

/**
 * The coding to send for an `Accept-Encoding` header (RFC 9110 §12.5.3): brotli, else gzip, else
 * none, each only when the header accepts it (`q` above 0, by name or by `*`). No header: none.
 */
export function chooseEncoding(header: string | undefined): 'br' | 'gzip' | 'identity' {
  if (!header) return 'identity';
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!name) continue;
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    weights.set(name === 'x-gzip' ? 'gzip' : name, Number.isFinite(weight) ? weight : 0);
  }
  const accepts = (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (accepts('br')) return 'br';
  if (accepts('gzip')) return 'gzip';
  return 'identity';
}

let building: Promise<AppBuild> | undefined;

/** The web app's build, made once per process (the first call builds, in about a second). */
export function appBuild(): Promise<AppBuild> {
  return (building ??= buildApp().catch((error: unknown) => {
    building = undefined;
    throw error;
  }));
}
