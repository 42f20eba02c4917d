import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One built file of the web app, served from memory. */
export type AppAsset = { body: Buffer; type: string; etag: string };

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
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });
    if (/^app-[0-9A-Z]+\.js$/.test(name)) script = name;
    if (/^app-[0-9A-Z]+\.css$/.test(name)) stylesheet = name;
  }
  if (!script) throw new Error('The web app build has no entry script.');
  return { script, stylesheet, files };
}

let building: Promise<AppBuild> | undefined;

/** The web app's build, made once per process (the first call builds, in about a second). */
export function appBuild(): Promise<AppBuild> {
  return (building ??= buildApp().catch((error: unknown) => {
    building = undefined;
    throw error;
  }));
}
