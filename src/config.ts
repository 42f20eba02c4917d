import path from 'node:path';
import * as z from 'zod';
import type { AppPlatform } from './providers/platform-apps.ts';

const booleanString = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

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
const providerConcurrencyMap = jsonVariable(
  z.record(
    z.string().regex(/^[a-z0-9_-]+$/, 'keys are platform identifiers (`webhook`, `bluesky`) or `default`'),
    z.number().int().min(1).max(1000),
  ),
);
/** An http(s) address, kept without its trailing slashes. */
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .transform((url) => url.replace(/\/+$/, ''))
  .optional();
const routeQuotaMap = jsonVariable(z.record(routeKey, z.number().int().positive()));
const deprecationMap = jsonVariable(z.record(routeKey, z.object({ sunset: instant, since: instant.optional() })));

/** The environment variables Herald reads, each validated once at start-up. */
/**
 * What the publishing horizon holds beyond one sweep interval: time for a sweep to bring in the
 * posts that came within it (a page at a time) before they are due.
 */
export const HORIZON_MARGIN_SECONDS = 90;

const envSchema = z.object({
  NODE_ENV: z.string().default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  BASE_URL: httpUrl,
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:)/, 'must be a postgres:// URL or sqlite:<file>')
    .optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: booleanString.default(false),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
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
  // Longer than a delivery attempt may take (15 s), so a live worker's claim never runs out mid-attempt.
  WEBHOOK_LEASE_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  SWEEP_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(30),
  PUBLISH_HORIZON_SECONDS: z.coerce.number().int().min(2).optional(),
  PUBLISH_CONCURRENCY_BY_PROVIDER: providerConcurrencyMap.optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/[^/]/, 'must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, ".", "_" and "-" only')
    .default('herald'),
  QUEUE_LOCK_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  STORAGE: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
    .optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: booleanString.default(false),
  S3_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9._-]+\/)*$/, 'folders ending in "/", like "herald/media/"')
    .default(''),
  MIGRATE_ON_START: booleanString.default(true),
  LINKEDIN_CLIENT_ID: z.string().min(1).optional(),
  LINKEDIN_CLIENT_SECRET: z.string().min(1).optional(),
  LINKEDIN_API_VERSION: z
    .string()
    .regex(/^\d{6}(\.\d{2})?$/, 'a LinkedIn API version such as 202510')
    .default('202510'),
  LINKEDIN_API_BASE: httpUrl,
  LINKEDIN_MEMBER_ANALYTICS: booleanString.default(false),
  X_CLIENT_ID: z.string().min(1).optional(),
  X_CLIENT_SECRET: z.string().min(1).optional(),
  X_API_BASE: httpUrl,
  THREADS_APP_ID: z.string().min(1).optional(),
  THREADS_APP_SECRET: z.string().min(1).optional(),
  THREADS_API_BASE: httpUrl,
  TIKTOK_CLIENT_KEY: z.string().min(1).optional(),
  TIKTOK_CLIENT_SECRET: z.string().min(1).optional(),
  TIKTOK_API_BASE: httpUrl,
  PINTEREST_APP_ID: z.string().min(1).optional(),
  PINTEREST_APP_SECRET: z.string().min(1).optional(),
  PINTEREST_API_BASE: httpUrl,
  REDDIT_CLIENT_ID: z.string().min(1).optional(),
  REDDIT_CLIENT_SECRET: z.string().min(1).optional(),
  REDDIT_API_BASE: httpUrl,
  REDDIT_USER_AGENT: z
    .string()
    .regex(
      /^[^:\s]+:[^:\s]+:[^:\s]+ \(by \/u\/[A-Za-z0-9_-]{3,20}\)$/,
      "Reddit's form `<platform>:<app id>:<version> (by /u/<reddit username>)`",
    )
    .optional(),
  FACEBOOK_APP_ID: z.string().min(1).optional(),
  FACEBOOK_APP_SECRET: z.string().min(1).optional(),
  FACEBOOK_API_BASE: httpUrl,
  FACEBOOK_API_VERSION: z
    .string()
    .regex(/^v\d{1,3}\.0$/, 'a Graph API version such as v25.0')
    .optional(),
  INSTAGRAM_APP_ID: z.string().min(1).optional(),
  INSTAGRAM_APP_SECRET: z.string().min(1).optional(),
  INSTAGRAM_API_BASE: httpUrl,
  GOOGLE_CLIENT_ID: z.string().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_OAUTH_BASE: httpUrl,
  YOUTUBE_API_BASE: httpUrl,
  GOOGLE_BUSINESS_API_BASE: httpUrl,
  MEDIA_MAX_IMAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(10 * 1024 ** 2, "at most 10 MB (10485760), the API's promise")
    .default(10 * 1024 ** 2),
  MEDIA_MAX_VIDEO_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024 ** 3, "at most 1 GB (1073741824), the API's promise")
    .default(1024 ** 3),
  MEDIA_FETCH_TIMEOUT_SECONDS: z.coerce.number().min(0.1).max(3600).default(120),
  SIGNUP: z.enum(['open', 'invite', 'closed']).default('invite'),
  OAUTH_DEVICE_POLL_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(3).optional(),
});

export type Config = Readonly<{
  env: string;
  port: number;
  host: string;
  dataDir: string;
  baseUrl: string;
  /** On PostgreSQL, `poolSize` is how many connections a process opens at most. */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; poolSize: number };
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
  /** The poll interval the OAuth device flow asks devices to keep (RFC 8628 `interval`), in seconds. */
  oauthDevicePollSeconds: number;
  outboundTimeoutMs: number;
  publishing: {
    concurrency: number;
    maxAttempts: number;
    leaseSeconds: number;
    sweepIntervalSeconds: number;
    /**
     * How far ahead a process holds scheduled work (in memory, or as delayed jobs in Redis): by
     * default the sweep interval plus a margin, so every sweep brings in what comes within it before it is due.
     */
    horizonSeconds: number;
    /** Per-platform (or `default`) job concurrency of each worker process with the BullMQ queue. */
    concurrencyByProvider: Record<string, number>;
    /** How long a dead worker's BullMQ jobs stay locked before another worker takes them. */
    queueLockSeconds: number;
  };
  /** Outbound webhooks: how long a worker's claim on a delivery holds (past it, a dead worker's delivery is sent again). */
  webhooks: { leaseSeconds: number };
  /** Redis (BullMQ job queue, shared rate-limit counters); null for the embedded, in-process default. */
  redis: { url: string; prefix: string } | null;
  /** Where media bytes live: `DATA_DIR/media`, or an S3-compatible bucket. */
  storage:
    | { kind: 'local' }
    | {
        kind: 's3';
        endpoint: string | undefined;
        bucket: string;
        region: string;
        accessKeyId: string | undefined;
        secretAccessKey: string | undefined;
        forcePathStyle: boolean;
        prefix: string;
      };
  /** Apply pending migrations at start (otherwise refuse to start while some are pending: run `herald migrate`). */
  migrateOnStart: boolean;
  /** Largest image and video accepted, and the time limit of /upload-from-url. */
  media: { maxImageBytes: number; maxVideoBytes: number; fetchTimeoutMs: number };
  /** Who may create an account by e-mail code: anyone, invited addresses, or nobody new. */
  signUp: 'open' | 'invite' | 'closed';
  /** The OAuth apps the operator registered with the platforms that need one (null fields: not configured). */
  platformApps: Record<
    AppPlatform,
    {
      clientId: string | null;
      clientSecret: string | null;
      apiBase: string | null;
      version?: string;
      /** Reddit: the User-Agent the operator chose. */
      userAgent?: string | null;
      /** Google: other origins standing in for its sign-in, YouTube's API and the Business Profile APIs. */
      apiBases?: { oauth: string | null; youtube: string | null; business: string | null };
    }
  >;
  /** Outgoing mail; without an SMTP URL, messages are written to the log at warn. */
  mail: { smtpUrl: string | null; from: string };
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
  const problems = [
    e.STORAGE === 's3' && !e.S3_BUCKET && 'S3_BUCKET: required with STORAGE=s3',
    Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY) && 'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither',
    e.PUBLISH_HORIZON_SECONDS !== undefined &&
      e.PUBLISH_HORIZON_SECONDS <= e.SWEEP_INTERVAL_SECONDS &&
      'PUBLISH_HORIZON_SECONDS: must be longer than SWEEP_INTERVAL_SECONDS (each sweep brings in what comes within the horizon before the next)',
  ].filter((problem) => typeof problem === 'string');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  const dataDir = path.resolve(e.DATA_DIR);
  const database: Config['database'] =
    e.DATABASE_URL && !e.DATABASE_URL.startsWith('sqlite:')
      ? { kind: 'postgres', url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE ?? 10 }
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
      horizonSeconds: e.PUBLISH_HORIZON_SECONDS ?? e.SWEEP_INTERVAL_SECONDS + HORIZON_MARGIN_SECONDS,
      concurrencyByProvider: e.PUBLISH_CONCURRENCY_BY_PROVIDER ?? {},
      queueLockSeconds: e.QUEUE_LOCK_SECONDS,
    },
    webhooks: { leaseSeconds: e.WEBHOOK_LEASE_SECONDS },
    redis: e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : null,
    storage:
      e.STORAGE === 's3'
        ? {
            kind: 's3' as const,
            endpoint: e.S3_ENDPOINT,
            bucket: e.S3_BUCKET!,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
            prefix: e.S3_PREFIX,
          }
        : { kind: 'local' as const },
    migrateOnStart: e.MIGRATE_ON_START,
    media: {
      maxImageBytes: e.MEDIA_MAX_IMAGE_BYTES,
      maxVideoBytes: e.MEDIA_MAX_VIDEO_BYTES,
      fetchTimeoutMs: Math.round(e.MEDIA_FETCH_TIMEOUT_SECONDS * 1000),
    },
    signUp: e.SIGNUP,
    oauthDevicePollSeconds: e.OAUTH_DEVICE_POLL_SECONDS,
    platformApps: {
      linkedin: {
        clientId: e.LINKEDIN_CLIENT_ID ?? null,
        clientSecret: e.LINKEDIN_CLIENT_SECRET ?? null,
        apiBase: e.LINKEDIN_API_BASE ?? null,
        version: e.LINKEDIN_API_VERSION,
        memberAnalytics: e.LINKEDIN_MEMBER_ANALYTICS,
      },
      x: { clientId: e.X_CLIENT_ID ?? null, clientSecret: e.X_CLIENT_SECRET ?? null, apiBase: e.X_API_BASE ?? null },
      threads: { clientId: e.THREADS_APP_ID ?? null, clientSecret: e.THREADS_APP_SECRET ?? null, apiBase: e.THREADS_API_BASE ?? null },
      tiktok: { clientId: e.TIKTOK_CLIENT_KEY ?? null, clientSecret: e.TIKTOK_CLIENT_SECRET ?? null, apiBase: e.TIKTOK_API_BASE ?? null },
      pinterest: {
        clientId: e.PINTEREST_APP_ID ?? null,
        clientSecret: e.PINTEREST_APP_SECRET ?? null,
        apiBase: e.PINTEREST_API_BASE ?? null,
      },
      reddit: {
        clientId: e.REDDIT_CLIENT_ID ?? null,
        clientSecret: e.REDDIT_CLIENT_SECRET ?? null,
        apiBase: e.REDDIT_API_BASE ?? null,
        userAgent: e.REDDIT_USER_AGENT ?? null,
      },
      facebook: {
        clientId: e.FACEBOOK_APP_ID ?? null,
        clientSecret: e.FACEBOOK_APP_SECRET ?? null,
        apiBase: e.FACEBOOK_API_BASE ?? null,
        version: e.FACEBOOK_API_VERSION,
      },
      instagram: {
        clientId: e.INSTAGRAM_APP_ID ?? null,
        clientSecret: e.INSTAGRAM_APP_SECRET ?? null,
        apiBase: e.INSTAGRAM_API_BASE ?? null,
        version: e.FACEBOOK_API_VERSION,
      },
      google: {
        clientId: e.GOOGLE_CLIENT_ID ?? null,
        clientSecret: e.GOOGLE_CLIENT_SECRET ?? null,
        apiBase: null,
        apiBases: {
          oauth: e.GOOGLE_OAUTH_BASE ?? null,
          youtube: e.YOUTUBE_API_BASE ?? null,
          business: e.GOOGLE_BUSINESS_API_BASE ?? null,
        },
      },
    },
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM ?? `Herald <herald@${new URL(e.BASE_URL ?? 'http://localhost').hostname}>` },
  });
}
