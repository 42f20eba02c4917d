import { beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND, REDIS_URL } from '../helpers/backend.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '120', RATE_LIMIT_ROUTES: JSON.stringify({ 'GET /public/v1/groups': 5 }) },
  });
});

const get = (url: string, key?: string, remoteAddress = '127.0.0.1') =>
  t.request({ method: 'GET', url, ...(key && { key }), remoteAddress });

describe('rate limits', () => {
  it('counts down per route and per key, then answers 429 with Retry-After', async () => {
    const tenant = await createTenant(t);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await get('/public/v1/integrations', tenant.key));
    expect(seen.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
    expect(seen.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    for (const r of seen) {
      expect(r.headers['ratelimit-limit']).toBe('3');
      expect(r.headers['ratelimit-policy']).toBe('3;w=120');
      expect(Number(r.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(Number(r.headers['ratelimit-reset'])).toBeLessThanOrEqual(120);
    }
    const limited = seen[3]!;
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['retry-after']).toBe(limited.headers['ratelimit-reset']);
    expect(limited.json()).toMatchObject({ code: 'rate_limited', msg: expect.stringMatching(/Too many requests/) });
    expect(seen[0]!.headers['retry-after']).toBeUndefined();
  });

  it('keeps a separate quota for each route and for each key', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    for (let i = 0; i < 3; i++) await get('/public/v1/integrations', tenant.key);
    expect((await get('/public/v1/integrations', tenant.key)).statusCode).toBe(429);
    expect((await get('/public/v1/workspaces', tenant.key)).statusCode).toBe(200);
    expect((await get('/public/v1/integrations', other.key)).statusCode).toBe(200);
  });

  it('applies per-route quotas from RATE_LIMIT_ROUTES', async () => {
    const tenant = await createTenant(t);
    const res = await get('/public/v1/groups', tenant.key);
    expect(res.headers['ratelimit-limit']).toBe('5');
    expect(res.headers['ratelimit-policy']).toBe('5;w=120');
  });

  it('counts unauthenticated calls per client address', async () => {
    const a = [];
    for (let i = 0; i < 4; i++) a.push((await get('/public/v1/status', undefined, '10.0.0.1')).statusCode);
    expect(a).toEqual([200, 200, 200, 429]);
    expect((await get('/public/v1/status', undefined, '10.0.0.2')).statusCode).toBe(200);
  });

  it("counts failed credentials against the caller's address, so guessing is limited too", async () => {
    const codes = [];
    for (let i = 0; i < 4; i++)
      codes.push((await get('/public/v1/integrations', `svc_${'Z'.repeat(16)}_${String(i).repeat(40)}`, '10.0.0.3')).statusCode);
    expect(codes).toEqual([401, 401, 401, 429]);
  });
});

describe('rate limits: HEAD and the shared counters', () => {
  it('HEAD counts against its GET: once GET is at 429, HEAD is too and does no work', async () => {
    const tenant = await createTenant(t);
    for (let i = 0; i < 3; i++) expect((await get('/public/v1/integrations', tenant.key)).statusCode).toBe(200);
    expect((await get('/public/v1/integrations', tenant.key)).statusCode).toBe(429);
    const head = await t.request({ method: 'HEAD', url: '/public/v1/integrations', key: tenant.key });
    expect(head.statusCode).toBe(429);
    expect(head.headers['ratelimit-remaining']).toBe('0');

    // And the other way round: HEAD uses up the allowance GET then finds spent.
    const other = await createTenant(t);
    for (let i = 0; i < 3; i++)
      expect((await t.request({ method: 'HEAD', url: '/public/v1/integrations', key: other.key })).statusCode).toBe(200);
    expect((await get('/public/v1/integrations', other.key)).statusCode).toBe(429);
  });

  it.runIf(BACKEND === 'postgres')('keeps shared counters in Redis as <prefix>:ratelimit:<route>|<who>', async () => {
    const tenant = await createTenant(t);
    await get('/public/v1/integrations', tenant.key);
    await t.request({ method: 'HEAD', url: '/public/v1/integrations', key: tenant.key });
    await get('/public/v1/status', undefined, '10.0.0.9');
    const prefix = t.config.redis!.prefix;
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}:*ratelimit*`);
      // Every counter of this deployment has the one shape; no doubled prefix, no "undefined".
      for (const key of keys)
        expect(key).toMatch(
          new RegExp(`^${prefix}:ratelimit:(GET|POST|PUT|DELETE) /public/v1/[^|]*\\|(key:[0-9A-Za-z]{16}|ip:[0-9a-f.:]+)$`),
        );
      expect(keys.filter((key) => key.includes(tenant.keyId) || key.includes('10.0.0.9')).sort()).toEqual(
        [
          `${prefix}:ratelimit:GET /public/v1/integrations|key:${tenant.keyId}`,
          `${prefix}:ratelimit:GET /public/v1/status|ip:10.0.0.9`,
        ].sort(),
      );
      expect(await redis.get(`${prefix}:ratelimit:GET /public/v1/integrations|key:${tenant.keyId}`)).toBe('2');
      expect(await redis.pttl(`${prefix}:ratelimit:GET /public/v1/integrations|key:${tenant.keyId}`)).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});
