import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND, freshDatabaseUrl } from '../helpers/backend.ts';
import { herald, processBudget, startServerProcess } from '../helpers/process.ts';

// What the compiled server and an operator command load when they start, read from the real
// processes: a preloaded module (test/helpers/module-trace.mjs) lists every module file they
// load, and the source maps of the build's files that were loaded name the sources and packages
// compiled into them. Heavy dependencies are loaded with their feature, never at start.

const TRACER = fileURLToPath(new URL('../helpers/module-trace.mjs', import.meta.url));

/** Loaded only when their feature is configured; the scale-out test run configures all of them. */
const WITH_THEIR_FEATURE: Record<string, boolean> = {
  pg: BACKEND === 'postgres',
  ioredis: BACKEND === 'postgres',
  bullmq: BACKEND === 'postgres',
  '@aws-sdk/client-s3': BACKEND === 'postgres',
};

/** Loaded on first use (a channel of that platform, a page, a request, an upload…), never at start. */
const ON_FIRST_USE = [
  '@atproto/api',
  'oidc-provider',
  '@modelcontextprotocol/server',
  'nodemailer',
  'pino-pretty',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/static',
  'yaml',
  'ajv',
  'undici',
  'sanitize-html',
  'html-to-text',
  'file-type',
  'image-size',
  'marked',
  'nostr-tools',
  'ws',
  'light-my-request',
  // The sources are compiled before the process starts: no TypeScript at run time.
  'tsx',
  'esbuild',
  'typescript',
];

/** Compiled into the build: never loaded file by file from node_modules. */
const BUNDLED = ['fastify', 'find-my-way', 'avvio', 'pino', 'commander', 'zod', 'kysely'];

/** The HTTP server's packages, which an operator command has no use for. */
const HTTP_SERVER = ['fastify', 'find-my-way', 'avvio', 'pino', '@fastify/multipart', '@fastify/cookie'];

type Loaded = {
  /** Module files the process loaded. */
  files: string[];
  /** Uses of ICU's formatting (see module-trace.mjs). */
  intl: string[];
  /** Sources compiled into the build's files that it loaded (from their source maps). */
  compiled: string[];
};

function packageOf(file: string): string | null {
  const match = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
  return match ? match[1]! : null;
}

function packagesOf(files: string[]): Set<string> {
  return new Set(files.map(packageOf).filter((name): name is string => name !== null));
}

function readTrace(trace: string): Loaded {
  const lines = [...new Set(fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean))];
  const intl = lines.filter((line) => line.startsWith('intl:'));
  const files = lines.filter((line) => !line.startsWith('intl:') && !line.includes('/test/helpers/module-trace'));
  const compiled = files
    .filter((file) => /\/dist\/build-[^/]+\/.+\.js$/.test(file))
    .flatMap((file) =>
      (JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources.map((source) =>
        path.resolve(path.dirname(file), source),
      ),
    );
  return { files, intl, compiled };
}

let env: Record<string, string>;
let drop: () => Promise<void>;
let traces: string;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, SECRET_KEY: 'ab'.repeat(32), BOOTSTRAP: 'false' };
  traces = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-trace-'));
  // An existing database, as a restart finds it.
  const migrated = await herald(['migrate'], env);
  expect(migrated.code, migrated.stderr).toBe(0);
}, processBudget(1));

afterAll(async () => {
  await drop?.();
  if (traces) fs.rmSync(traces, { recursive: true, force: true });
});

function traced(name: string): { trace: string; env: Record<string, string> } {
  const trace = path.join(traces, `${name}.txt`);
  return { trace, env: { ...env, HERALD_TEST_MODULE_TRACE: trace, NODE_OPTIONS: `--import=${TRACER}` } };
}

describe('what a start loads', () => {
  it(
    'the server runs the build and loads each heavy dependency only with its feature',
    async () => {
      const { trace, env: tracedEnv } = traced('serve');
      const server = await startServerProcess(tracedEnv);
      try {
        expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      const loaded = readTrace(trace);
      const everything = packagesOf([...loaded.files, ...loaded.compiled]);

      expect(loaded.files.some((file) => /\/dist\/build-[^/]+\/cli\.js$/.test(file))).toBe(true);
      expect(loaded.files.filter((file) => /\.[cm]?ts$/.test(file))).toEqual([]);

      for (const [name, configured] of Object.entries(WITH_THEIR_FEATURE)) expect(everything.has(name), name).toBe(configured);
      expect(everything.has('better-sqlite3')).toBe(BACKEND === 'sqlite');
      expect(ON_FIRST_USE.filter((name) => everything.has(name))).toEqual([]);
      expect([...packagesOf(loaded.files)].filter((name) => BUNDLED.includes(name))).toEqual([]);

      // Zod's messages in English only: the others (some 60 languages, over half of zod) stay out of the build's loaded code.
      const locales = loaded.compiled
        .filter((source) => source.includes('/node_modules/zod/v4/locales/'))
        .map((source) => path.basename(source));
      expect(locales.filter((name) => name !== 'index.js')).toEqual(['en.js']);
      // No ICU formatting at start (a number's toLocaleString in a schema's text maps several MiB of locale data).
      expect(loaded.intl).toEqual([]);
    },
    processBudget(1),
  );

  it(
    'an operator command loads neither the HTTP server nor any heavy dependency it does not use',
    async () => {
      const { trace, env: tracedEnv } = traced('admin');
      const result = await herald(['admin', 'workspace', 'create', '--name', 'Traced', '--json'], tracedEnv);
      expect(result.code, result.stderr).toBe(0);
      const loaded = readTrace(trace);
      const everything = packagesOf([...loaded.files, ...loaded.compiled]);

      expect(loaded.files.filter((file) => /\.[cm]?ts$/.test(file))).toEqual([]);
      expect(HTTP_SERVER.filter((name) => everything.has(name))).toEqual([]);
      expect(loaded.intl).toEqual([]);
      expect(ON_FIRST_USE.filter((name) => everything.has(name))).toEqual([]);
      for (const [name, configured] of Object.entries(WITH_THEIR_FEATURE)) expect(everything.has(name) && !configured, name).toBe(false);
    },
    processBudget(1),
  );
});
