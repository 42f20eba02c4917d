import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';
import { createKysely, type DatabaseTarget } from './db/dialect.ts';
import { migrateToLatest } from './db/migrate.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { SecretBox } from './lib/secret-box.ts';
import { createOutboundClient, type OutboundClient } from './net/outbound.ts';
import { EmbeddedQueue } from './publishing/embedded-queue.ts';
import type { JobQueue } from './publishing/job-queue.ts';
import { createServices, type Services } from './services.ts';

export type Runtime = {
  config: Config;
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  queue: JobQueue;
  outbound: OutboundClient;
  services: Services;
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
  options: { clock?: Clock; target?: DatabaseTarget; migrate?: boolean; outbound?: OutboundClient } = {},
): Promise<Runtime> {
  const db = createKysely(options.target ?? config.database);
  try {
    if (options.migrate !== false) await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const clock = options.clock ?? systemClock;
  const secretBox = new SecretBox(loadSecretKey(config));
  const queue = new EmbeddedQueue(clock);
  const outbound = options.outbound ?? createOutboundClient({ allowLoopback: config.outboundAllowLoopback, timeoutMs: config.outboundTimeoutMs, connectTimeoutMs: Math.min(5000, config.outboundTimeoutMs) });
  const services = createServices({ db, clock, secretBox, queue, outbound, baseUrl: config.baseUrl });
  return {
    config,
    db,
    clock,
    secretBox,
    queue,
    outbound,
    services,
    close: async () => {
      await queue.stop();
      await outbound.close();
      await db.destroy();
    },
  };
}
