import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/db/dialect.ts';

/** Which backend the suite runs on: `sqlite` (default) or `postgres` (HERALD_TEST_BACKEND). */
export const BACKEND = process.env.HERALD_TEST_BACKEND === 'postgres' ? 'postgres' : 'sqlite';
export const POSTGRES_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type FreshDatabase = { target: DatabaseTarget; dataDir: string; drop(): Promise<void> };

/**
 * A new, empty database for one app: a temporary SQLite file, or a new PostgreSQL schema
 * in the test database. Tests still use fresh ids; this keeps first-start behaviour testable.
 */
export async function freshDatabase(): Promise<FreshDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  if (BACKEND === 'sqlite') {
    return {
      target: { kind: 'sqlite', file: path.join(dataDir, 'herald.db') },
      dataDir,
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
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

/** A new, empty database addressed by URL, for tests that start real processes. */
export async function freshDatabaseUrl(): Promise<{ url: string; dataDir: string; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-proc-'));
  if (BACKEND === 'sqlite') {
    return { url: `sqlite:${path.join(dataDir, 'herald.db')}`, dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `herald_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dataDir,
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
