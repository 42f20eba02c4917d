import path from 'node:path';
import { z } from 'zod';

const booleanString = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** A variable holding JSON, parsed and then checked against `shape`. */
function jsonVariable<T extends z.ZodType>(shape: T) {
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(shape);
}

const routeKey = z.string().regex(/^(GET|POST|PUT|PATCH|DELETE) \/\S*$/, 'keys look like "GET /public/v1/integrations"');
const instant = z.iso.date().or(z.iso.datetime({ offset: true }));
const routeQuotaMap = jsonVariable(z.record(routeKey, z.number().int().positive()));
const deprecationMap = jsonVariable(z.record(routeKey, z.object({ sunset: instant, since: instant.optional() })));

/** The environment variables Herald reads, each validated once at start-up. */
const envSchema = z.object({
  NODE_ENV: z.string().default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must be a postgres:// URL or sqlite:<file>')
    .optional(),
  SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanString.default(false),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  RATE_LIMIT_MAX: z.coerce.number().int().positive().default(300),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  RATE_LIMIT_ROUTES: routeQuotaMap.optional(),
  DEPRECATIONS: deprecationMap.optional(),
  BOOTSTRAP: booleanString.default(true),
  OUTBOUND_ALLOW_LOOPBACK: booleanString.default(false),
  OUTBOUND_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(600).default(15),
  PUBLISH_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  PUBLISH_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  PUBLISH_LEASE_SECONDS: z.coerce.number().int().min(10).default(300),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(30),
});

export type Config = Readonly<{
  env: string;
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  secretKey: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  trustProxy: boolean;
  bodyLimit: number;
  rateLimit: { max: number; windowSeconds: number; routes: Record<string, number> };
  deprecations: Record<string, { sunset: string; since?: string | undefined }>;
  bootstrap: boolean;
  /** Lets server-side fetches reach loopback (tests and local development only). */
  outboundAllowLoopback: boolean;
  /** Time limit of one server-side request (connect, send, answer). */
  outboundTimeoutMs: number;
  publishing: { concurrency: number; maxAttempts: number; leaseSeconds: number; sweepIntervalSeconds: number };
}>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value throws a ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] =
    e.DATABASE_URL && !e.DATABASE_URL.startsWith('sqlite:')
      ? { kind: 'postgres', url: e.DATABASE_URL }
      : { kind: 'sqlite', file: e.DATABASE_URL ? path.resolve(e.DATABASE_URL.slice('sqlite:'.length)) : path.join(dataDir, 'herald.db') };
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir,
    baseUrl: e.BASE_URL ?? `http://localhost:${e.PORT}`,
    database,
    secretKey: e.SECRET_KEY,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    bodyLimit: e.BODY_LIMIT_BYTES,
    rateLimit: { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS, routes: e.RATE_LIMIT_ROUTES ?? {} },
    deprecations: e.DEPRECATIONS ?? {},
    bootstrap: e.BOOTSTRAP,
    outboundAllowLoopback: e.OUTBOUND_ALLOW_LOOPBACK,
    outboundTimeoutMs: Math.round(e.OUTBOUND_TIMEOUT_SECONDS * 1000),
    publishing: {
      concurrency: e.PUBLISH_CONCURRENCY,
      maxAttempts: e.PUBLISH_MAX_ATTEMPTS,
      leaseSeconds: e.PUBLISH_LEASE_SECONDS,
      sweepIntervalSeconds: e.SWEEP_INTERVAL_SECONDS,
    },
  });
}
