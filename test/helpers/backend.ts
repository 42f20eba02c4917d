import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { inject } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { createKysely, type DatabaseTarget } from '../../src/db/connection.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** Which backend the suite runs on: `sqlite` (default) or `postgres` (HERALD_TEST_BACKEND). */
export const BACKEND = process.env.HERALD_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The scale-out run's Redis: the BullMQ job queue and the shared rate-limit counters. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The bucket of the scale-out run's local S3-compatible server (started by global-setup). */
export const S3_BUCKET = 'herald-test';

/**
 * The environment that selects the scale-out stack besides PostgreSQL: the BullMQ queue and
 * Redis rate limits (REDIS_URL), and the S3 media store. Empty on the embedded default, so the
 * one switch (HERALD_TEST_BACKEND) moves the whole suite.
 */
export function scaleEnv(prefix: string): Record<string, string> {
  if (BACKEND !== 'postgres') return {};
  return {
    REDIS_URL,
    REDIS_PREFIX: prefix,
    STORAGE: 's3',
    S3_ENDPOINT: inject('s3Endpoint'),
    S3_BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    S3_PREFIX: `${prefix}/`,
  };
}

/** A Redis prefix of its own for each test app, so parallel files never see each other's jobs or counters. */
export function freshRedisPrefix(): string {
  return `herald-t-${randomBytes(6).toString('hex')}`;
}

/**
 * The scale-out environment of real processes started against `env.DATABASE_URL`: processes of
 * one database share a Redis prefix (they are one deployment), other databases get another.
 */
export function scaleProcessEnv(env: Record<string, string | undefined>): Record<string, string> {
  return scaleEnv(processPrefix(env.DATABASE_URL ?? env.DATA_DIR ?? ''));
}

function processPrefix(databaseUrl: string): string {
  return `herald-p-${createHash('sha256').update(databaseUrl).digest('hex').slice(0, 12)}`;
}

/** Deletes every Redis key under `prefix:` (what a test deployment left: job metadata, counters). */
export async function dropRedisPrefix(prefix: string): Promise<void> {
  if (BACKEND !== 'postgres') return;
  await deleteRedisKeys(REDIS_URL, prefix);
}

/** Deletes every key under `prefix:` on the Redis at `url`. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * A new PostgreSQL database next to the test one (`name_<random>`), and how to drop it: empty, or
 * a copy of `template` (a database nobody is connected to).
 */
export async function createPostgresDatabase(
  label: string,
  serverUrl = POSTGRES_URL,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${label}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template} STRATEGY WAL_LOG` : ''}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(name, serverUrl),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export type FreshDatabase = { target: DatabaseTarget; dataDir: string; drop(): Promise<void> };

/** The migrations' source, by which a template database is known: a changed migration makes a new one. */
function migrationsDigest(): string {
  const dir = path.join(import.meta.dirname, '../../src/db/migrations');
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(dir).sort()) hash.update(file).update(fs.readFileSync(path.join(dir, file)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * The name of a database on the test server holding every migration, which test apps' databases
 * are copied from (`CREATE DATABASE … TEMPLATE`, a fraction of the migrations' time, which a test
 * app on PostgreSQL otherwise spends at every start). Made by Herald's own migrator once for each
 * version of the migrations and kept on the server for the next runs; the test processes take turns
 * (an advisory lock), and a template is named only once it is complete.
 */
function migratedTemplate(): Promise<string> {
  return (template ??= (async () => {
    const name = `herald_tmpl_${migrationsDigest()}`;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock(hashtext($1))', ['herald test template']);
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount === 0) {
        const building = `${name}_${randomBytes(4).toString('hex')}`;
        await admin.query(`CREATE DATABASE ${building}`);
        try {
          const db = await createKysely({ kind: 'postgres', url: databaseUrl(building), poolSize: 1 });
          try {
            await migrateToLatest(db);
          } finally {
            await db.destroy();
          }
          await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
        } catch (error) {
          await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
          throw error;
        }
      }
      return name;
    } finally {
      await admin.end();
    }
  })());
}

/** The test server's URL with another database. */
function databaseUrl(name: string, serverUrl = POSTGRES_URL): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A new database for one app: a temporary SQLite file, or on PostgreSQL a new schema in the test
 * database (empty), or, `migrated`, a database of its own copied from `migratedTemplate` (SQLite's
 * migrations are quick and run as the app starts). Tests still use fresh ids; an empty one keeps
 * first-start behaviour testable.
 */
export async function freshDatabase(options: { migrated?: boolean } = {}): Promise<FreshDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  if (BACKEND === 'sqlite') {
    return {
      target: { kind: 'sqlite', file: path.join(dataDir, 'herald.db') },
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  if (options.migrated) {
    const database = await createPostgresDatabase('herald_t', POSTGRES_URL, await migratedTemplate());
    return {
      target: { kind: 'postgres', url: database.url, poolSize: 5 },
      dataDir,
      drop: async () => {
        await database.drop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    target: { kind: 'postgres', url: POSTGRES_URL, schema, poolSize: 5 },
    dataDir,
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * `freshDatabase` opened by Herald's own dialect code, with one connection on PostgreSQL: the
 * session settings and prepared statements a test sets or looks for are those of the connection
 * every query uses.
 */
export async function freshSingleConnection(): Promise<{ database: FreshDatabase; db: Db }> {
  const database = await freshDatabase();
  const db = await createKysely(database.target.kind === 'postgres' ? { ...database.target, poolSize: 1 } : database.target);
  return { database, db };
}

/** A new, empty database addressed by URL, for tests that start real processes. */
export async function freshDatabaseUrl(): Promise<{ url: string; dataDir: string; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-proc-'));
  if (BACKEND === 'sqlite') {
    return {
      url: `sqlite:${path.join(dataDir, 'herald.db')}`,
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const database = await createPostgresDatabase('herald_t');
  return {
    url: database.url,
    dataDir,
    drop: async () => {
      await database.drop();
      await dropRedisPrefix(processPrefix(database.url));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
