import { beforeAll, describe, expect, it } from 'vitest';
import { buildHealthApp } from '../../src/health/health-app.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { herald, processBudget } from '../helpers/process.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { RATE_LIMIT_MAX: '2' } });
});

const expectedChecks = BACKEND === 'postgres' ? { database: 'ok', redis: 'ok', storage: 'ok' } : { database: 'ok', storage: 'ok' };

describe('GET /healthz and GET /readyz', () => {
  it('answer without a credential, outside the rate limits: the process is up, and every dependency answers', async () => {
    for (let i = 0; i < 5; i++) {
      const live = await t.request({ method: 'GET', url: '/healthz' });
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
      const ready = await t.request({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ok', checks: expectedChecks });
    }
    // The same client is limited on a public route after two requests.
    await t.request({ method: 'GET', url: '/public/v1/status' });
    await t.request({ method: 'GET', url: '/public/v1/status' });
    expect((await t.request({ method: 'GET', url: '/public/v1/status' })).statusCode).toBe(429);
    expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('are not part of the public API document', async () => {
    const doc = (await t.request({ method: 'GET', url: '/public/v1/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz/.test(p))).toEqual([]);
  });

  it('/readyz answers 503 naming what does not answer, with a bounded wait for a dependency that hangs', async () => {
    const app = await buildHealthApp({
      timeoutMs: 200,
      checks: [
        { name: 'database', check: async () => {} },
        { name: 'redis', check: () => new Promise(() => {}) },
        { name: 'storage', check: async () => Promise.reject(new Error('bucket gone')) },
      ],
    });
    try {
      // A check that never answers is given up after timeoutMs: without that bound this request would hang until the test's timeout.
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.json()).toEqual({
        status: 'unavailable',
        checks: { database: 'ok', redis: 'down', storage: 'down' },
        msg: 'Not ready: redis, storage unreachable.',
      });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      // A worker serves nothing else.
      expect((await app.inject({ method: 'GET', url: '/public/v1/status' })).statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('/readyz names the database once it cannot be reached', async () => {
    const down = await createTestApp();
    await down.runtime.db.destroy();
    try {
      const res = await down.request({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ checks: { database: 'down', storage: 'ok' }, msg: 'Not ready: database unreachable.' });
    } finally {
      await down.close().catch(() => {});
    }
  });
});

describe('herald serve --role', () => {
  it(
    'refuses api and worker without REDIS_URL, naming it (an API alone would queue where no worker looks)',
    async () => {
      for (const role of ['api', 'worker']) {
        const result = await herald(['serve', '--role', role], { REDIS_URL: '', DATABASE_URL: 'sqlite:/nonexistent/never-opened.db' });
        expect(result.code, result.stderr).toBe(78);
        expect(result.stderr).toMatch(new RegExp(`--role ${role} needs REDIS_URL`));
      }
    },
    processBudget(2),
  );

  it(
    'refuses a role that does not exist',
    async () => {
      const result = await herald(['serve', '--role', 'scheduler'], {});
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/Allowed choices are all, api, worker/);
    },
    processBudget(1),
  );
});
