import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

describe('configuration', () => {
  it('has working defaults: SQLite in ./data, port 3000, BASE_URL from the port', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.baseUrl).toBe('http://localhost:3000');
    expect(config.database).toEqual({ kind: 'sqlite', file: path.resolve('data', 'herald.db') });
  });

  it('reads PORT, HOST, DATA_DIR, BASE_URL and DATABASE_URL', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/tmp/x',
      BASE_URL: 'https://social.example.com/',
      DATABASE_URL: 'postgres://u@db/herald',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: '/tmp/x',
      baseUrl: 'https://social.example.com',
      database: { kind: 'postgres', url: 'postgres://u@db/herald' },
    });
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
  });

  it('sizes the PostgreSQL pool from DATABASE_POOL_SIZE, 10 connections by default', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/herald' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db/herald',
      poolSize: 10,
    });
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/herald', DATABASE_POOL_SIZE: '40' }).database).toMatchObject({ poolSize: 40 });
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['BASE_URL', 'not a url'],
    ['BASE_URL', 'ftp://example.com'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_POOL_SIZE', '0'],
    ['SECRET_KEY', 'short'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_ROUTES', '{not json'],
    ['RATE_LIMIT_ROUTES', '{"/posts": 5}'],
    ['DEPRECATIONS', '{"GET /x": {"sunset": "soon"}}'],
    ['TRUST_PROXY', 'maybe'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(loadConfig({}))).toBe(true);
  });
});

describe('scale-out configuration', () => {
  it('keeps the embedded defaults: no Redis, media on local disk, migrations at start', () => {
    const config = loadConfig({});
    expect(config.redis).toBeNull();
    expect(config.storage).toEqual({ kind: 'local' });
    expect(config.migrateOnStart).toBe(true);
    expect(config.publishing).toMatchObject({ concurrencyByProvider: {}, queueLockSeconds: 10 });
  });

  it('reads REDIS_URL, the S3 store and the per-platform concurrency, each on its own', () => {
    expect(loadConfig({ REDIS_URL: 'redis://:pw@cache:6380/2' }).redis).toEqual({ url: 'redis://:pw@cache:6380/2', prefix: 'herald' });
    expect(loadConfig({ REDIS_URL: 'rediss://cache', REDIS_PREFIX: 'acme-prod' }).redis).toEqual({
      url: 'rediss://cache',
      prefix: 'acme-prod',
    });
    expect(
      loadConfig({
        STORAGE: 's3',
        S3_BUCKET: 'media',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'k',
        S3_SECRET_ACCESS_KEY: 's',
      }).storage,
    ).toEqual({
      kind: 's3',
      endpoint: 'http://127.0.0.1:9000',
      bucket: 'media',
      region: 'us-east-1',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
      prefix: '',
    });
    expect(loadConfig({ STORAGE: 's3', S3_BUCKET: 'media' }).redis).toBeNull();
    expect(loadConfig({ PUBLISH_CONCURRENCY_BY_PROVIDER: '{"bluesky": 4, "default": 2}' }).publishing.concurrencyByProvider).toEqual({
      bluesky: 4,
      default: 2,
    });
  });

  it.each([
    ['REDIS_URL', 'localhost:6379'],
    ['REDIS_PREFIX', 'has:colon'],
    ['QUEUE_LOCK_SECONDS', '0'],
    ['PUBLISH_CONCURRENCY_BY_PROVIDER', '{"bluesky": 0}'],
    ['PUBLISH_CONCURRENCY_BY_PROVIDER', '{"Blue Sky": 2}'],
    ['STORAGE', 'ftp'],
    ['S3_ENDPOINT', 'minio:9000'],
    ['S3_PREFIX', 'no-trailing-slash'],
    ['MIGRATE_ON_START', 'sometimes'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('STORAGE=s3 needs a bucket, and keys come in pairs', () => {
    expect(() => loadConfig({ STORAGE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ STORAGE: 's3', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'k' })).toThrow(/S3_SECRET_ACCESS_KEY/);
  });

  it('the publishing horizon: the sweep interval plus 90 seconds by default, or PUBLISH_HORIZON_SECONDS, longer than the sweep interval', () => {
    expect(loadConfig({}).publishing.horizonSeconds).toBe(120);
    expect(loadConfig({ SWEEP_INTERVAL_SECONDS: '60' }).publishing.horizonSeconds).toBe(150);
    expect(loadConfig({ PUBLISH_HORIZON_SECONDS: '600' }).publishing.horizonSeconds).toBe(600);
    expect(() => loadConfig({ SWEEP_INTERVAL_SECONDS: '60', PUBLISH_HORIZON_SECONDS: '60' })).toThrow(
      /PUBLISH_HORIZON_SECONDS: must be longer than SWEEP_INTERVAL_SECONDS/,
    );
    expect(() => loadConfig({ PUBLISH_HORIZON_SECONDS: 'soon' })).toThrow(/PUBLISH_HORIZON_SECONDS/);
  });
});

describe("the operator's Reddit app", () => {
  it("reads REDDIT_CLIENT_ID, REDDIT_CLIENT_SECRET, REDDIT_API_BASE and a REDDIT_USER_AGENT in Reddit's form", () => {
    const config = loadConfig({
      REDDIT_CLIENT_ID: 'abc',
      REDDIT_CLIENT_SECRET: 'def',
      REDDIT_API_BASE: 'http://127.0.0.1:9000',
      REDDIT_USER_AGENT: 'web:com.example.herald:1.4 (by /u/operator_name)',
    });
    expect(config.platformApps.reddit).toEqual({
      clientId: 'abc',
      clientSecret: 'def',
      apiBase: 'http://127.0.0.1:9000',
      userAgent: 'web:com.example.herald:1.4 (by /u/operator_name)',
    });
    expect(loadConfig({}).platformApps.reddit).toEqual({ clientId: null, clientSecret: null, apiBase: null, userAgent: null });
    expect(() => loadConfig({ REDDIT_USER_AGENT: 'Herald' })).toThrow(/REDDIT_USER_AGENT/);
  });
});
