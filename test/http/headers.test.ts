import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp } from '../helpers/app.ts';

describe('versioning headers', () => {
  it('sends Link rel=sunset on every response and no Deprecation when nothing is deprecated', async () => {
    const t = await createTestApp();
    for (const url of ['/public/v1/status', '/public/v1/integrations', '/public/v1/missing', '/developers', '/openapi.json']) {
      const res = await t.request({ method: 'GET', url });
      expect(res.headers.link, url).toBe('<http://herald.test/developers#deprecation-policy>; rel="sunset"');
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
    }
  });

  it('marks a deprecated route with Deprecation and Sunset, and only that route', async () => {
    const clock = new ManualClock('2026-11-21T00:00:00Z');
    const t = await createTestApp({
      clock,
      env: { DEPRECATIONS: JSON.stringify({ 'GET /public/v1/groups': { sunset: '2027-06-30', since: '2026-11-01' } }) },
    });
    const tenant = await createTenant(t);
    const res = await t.request({ method: 'GET', url: '/public/v1/groups', key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('true');
    expect(res.headers.sunset).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(res.headers.link).toMatch(/rel="sunset"/);
    const other = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
    expect(other.headers.deprecation).toBeUndefined();
  });

  it('refuses to start with a sunset closer than 180 days', async () => {
    await expect(
      createTestApp({
        clock: new ManualClock('2026-11-21T00:00:00Z'),
        env: { DEPRECATIONS: JSON.stringify({ 'GET /public/v1/groups': { sunset: '2027-05-01' } }) },
      }),
    ).rejects.toThrow(/closer than 180 days/);
  });

  it('refuses to start when a deprecation names a route that does not exist', async () => {
    await expect(
      createTestApp({ env: { DEPRECATIONS: JSON.stringify({ 'GET /public/v1/nope': { sunset: '2030-01-01' } }) } }),
    ).rejects.toThrow(/do not exist/);
  });
});
