import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ConfigError, type Config } from './config.ts';
import type { Db } from './db/database.ts';
import { createKysely, type DatabaseTarget, type QueryObserver } from './db/connection.ts';
import { migrateToLatest, pendingMigrations } from './db/migrate.ts';
import { databaseCheck, redisCheck, storageCheck, type ReadinessCheck } from './health/readiness.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { SecretBox } from './lib/secret-box.ts';
import { createMediaStore, type MediaStore } from './media/media-store.ts';
import { createOutboundClient, type OutboundClient } from './net/outbound.ts';
import type { Redis } from 'ioredis';
import { EmbeddedQueue } from './publishing/embedded-queue.ts';
import type { JobQueue } from './publishing/job-queue.ts';
import type { PlatformApps } from './providers/platform-apps.ts';
import { PROVIDER_IDENTIFIERS } from './providers/registry.ts';
import { createServices, type ServiceDeps, type Services } from './services.ts';
import { RedisRequestCounter } from './http/rate-limit-store.ts';
import { LogMailer, SmtpMailer, type Mailer } from './accounts/mailer.ts';
import type { UploadLinksOptions } from './media/upload-links.service.ts';

type Log = { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };

export type Runtime = {
  config: Config;
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  queue: JobQueue;
  outbound: OutboundClient;
  services: Services;
  mediaStore: MediaStore;
  /** The shared rate-limit counters (keys under `REDIS_PREFIX:`), when REDIS_URL is set. */
  redis: Redis | undefined;
  /** What `/readyz` asks: the database, Redis when configured, the media store. */
  readiness: ReadinessCheck[];
  close(): Promise<void>;
};

/**
 * The key that seals channel credentials: SECRET_KEY, or a key generated once into
 * DATA_DIR/secret.key (readable by the service's user only).
 */
export function loadSecretKey(config: Config): string {
  if (config.secretKey) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new Error(`${file} does not hold a 64-hex-character key; fix it or set SECRET_KEY.`);
  return key;
}

/** Opens the database (migrating it) and builds the services; what the server and the CLI share. */
export async function openRuntime(
  config: Config,
  options: {
    clock?: Clock;
    target?: DatabaseTarget;
    migrate?: boolean;
    outbound?: OutboundClient;
    mediaStore?: MediaStore;
    log?: Log;
    mailLog?: Log;
    onQuery?: QueryObserver;
    uploadLinks?: UploadLinksOptions;
    webhookDelivery?: ServiceDeps['webhookDelivery'];
  } = {},
): Promise<Runtime> {
  const db = await createKysely(options.target ?? config.database, { onQuery: options.onQuery });
  try {
    if (options.migrate !== false && config.migrateOnStart) await migrateToLatest(db);
    else if (options.migrate !== false) {
      const pending = await pendingMigrations(db);
      if (pending.length > 0)
        throw new ConfigError(
          `The database lacks ${pending.length} migration(s) (${pending.join(', ')}) and MIGRATE_ON_START is false: run \`herald migrate\` first.`,
        );
    }
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const secretBox = new SecretBox(loadSecretKey(config));
  const horizonMs = config.publishing.horizonSeconds * 1000;
  // BullMQ and ioredis, the AWS SDK: loaded only when their feature is configured.
  const bullmq = config.redis
    ? new (await import('./publishing/bullmq-queue.ts')).BullmqQueue({
        redisUrl: config.redis.url,
        prefix: config.redis.prefix,
        clock,
        providers: PROVIDER_IDENTIFIERS,
        concurrencyByProvider: config.publishing.concurrencyByProvider,
        lockDurationMs: config.publishing.queueLockSeconds * 1000,
        horizonMs,
        ...(options.log && { log: options.log }),
      })
    : null;
  const outbound =
    options.outbound ??
    createOutboundClient({
      allowLoopback: config.outboundAllowLoopback,
      timeoutMs: config.outboundTimeoutMs,
      connectTimeoutMs: Math.min(5000, config.outboundTimeoutMs),
    });
  // The HTTP client is loaded before a publish comes due rather than with the first publish (within the horizon, so at most minutes ahead).
  const queue: JobQueue =
    bullmq ?? new EmbeddedQueue(clock, { horizonMs, upcoming: { withinMs: horizonMs, prepare: () => outbound.prepare() } });
  // ioredis prefixes every key of this connection, so the rate-limit counters of deployments sharing a Redis stay apart.
  const redis = config.redis
    ? (await import('./lib/redis.ts')).createRedis(config.redis.url, { keyPrefix: `${config.redis.prefix}:` })
    : undefined;
  const s3 =
    !options.mediaStore && config.storage.kind === 's3'
      ? new (await import('./media/s3-media-store.ts')).S3MediaStore(config.storage)
      : null;
  const mediaStore = options.mediaStore ?? s3 ?? createMediaStore(config);
  const readiness = [
    databaseCheck(db),
    ...(bullmq ? [redisCheck(() => bullmq.ping())] : []),
    storageCheck(s3 ? () => s3.ping() : null, config.dataDir),
  ];
  const mailLog = options.mailLog ?? options.log;
  const mailer: Mailer = config.mail.smtpUrl
    ? new SmtpMailer({ url: config.mail.smtpUrl, from: config.mail.from })
    : new LogMailer(mailLog);
  const platformApps: PlatformApps = { baseUrl: config.baseUrl, apps: config.platformApps };
  const services = createServices({
    db,
    clock,
    secretBox,
    queue,
    outbound,
    baseUrl: config.baseUrl,
    platformApps,
    mediaStore,
    mediaLimits: config.media,
    mailer,
    counter: redis ? new RedisRequestCounter(redis) : undefined,
    uploadLinks: options.uploadLinks,
    webhookDelivery: { leaseMs: config.webhooks.leaseSeconds * 1000, ...options.webhookDelivery },
    signUpPolicy: config.signUp,
    oauthDevicePollSeconds: config.oauthDevicePollSeconds,
    onBackgroundError: (error) => {
      if (mailLog) mailLog.error({ err: error }, 'Work after a request (sending mail) failed');
      else console.error('Work after a request (sending mail) failed:', error);
    },
  });
  return {
    config,
    db,
    clock,
    secretBox,
    queue,
    outbound,
    services,
    mediaStore,
    redis,
    readiness,
    close: async () => {
      // Imports in flight stop at their next row, free for the next process to go on with.
      await services.imports.stop();
      await services.background.idle();
      mailer.close();
      await queue.stop();
      await bullmq?.close();
      if (redis && redis.status !== 'end' && redis.status !== 'wait') await redis.quit().catch(() => redis.disconnect());
      else redis?.disconnect();
      s3?.close();
      await outbound.close();
      await db.destroy();
    },
  };
}
