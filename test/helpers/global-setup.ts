import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import S3rver from 's3rver';
import type { TestProject } from 'vitest/node';
import { ensureBuilt } from '../../scripts/build.mjs';
import { BACKEND, POSTGRES_URL, REDIS_URL, S3_BUCKET } from './backend.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The local S3-compatible server of the scale-out run (empty on the embedded default). */
    s3Endpoint: string;
  }
}

/**
 * Compiles the service for the tests that run it as a process. Fails fast, with a clear
 * message, when the selected backend is not reachable. The scale-out
 * run (HERALD_TEST_BACKEND=postgres) also needs Redis, and gets a local S3-compatible server
 * (s3rver, on loopback) for the media store.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | void> {
  project.provide('s3Endpoint', '');
  // Tests that start `herald` as a process run the compiled build, as production does: build it once here.
  await ensureBuilt();
  if (BACKEND !== 'postgres') return;
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new Error(`HERALD_TEST_BACKEND=postgres but ${POSTGRES_URL} is not reachable: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }

  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 5000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `HERALD_TEST_BACKEND=postgres needs Redis, but ${REDIS_URL} is not reachable (set REDIS_URL): ${(error as Error).message}`,
    );
  } finally {
    redis.disconnect();
  }

  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: S3_BUCKET, configs: [] }] });
  const { port } = await s3.run();
  project.provide('s3Endpoint', `http://127.0.0.1:${port}`);
  return async () => {
    await s3.close();
    fs.rmSync(directory, { recursive: true, force: true });
  };
}
