import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { expectRateLimitHeaders, runAuthMatrix } from '../helpers/auth-matrix.ts';

const clock = new ManualClock('2026-03-29T01:30:00.123Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});

describe('GET /public/v1/status', () => {
  it('answers the whole status document without any credential', async () => {
    const res = await t.request({ method: 'GET', url: '/public/v1/status' });
    expect(res.statusCode).toBe(200);
    expectRateLimitHeaders(res);
    expect(res.json()).toEqual({
      name: 'Herald',
      status: 'ok',
      version: 'v1',
      time: '2026-03-29T01:30:00.123Z',
      documentation: {
        developers: 'http://herald.test/developers',
        openapi: 'http://herald.test/public/v1/openapi.json',
        openapiMirror: 'http://herald.test/openapi.json',
        swaggerUi: 'http://herald.test/docs',
        llms: 'http://herald.test/llms.txt',
      },
      authentication: {
        apiKey: { header: 'Authorization', format: expect.stringContaining('svc_'), selfServe: true },
        oauth2: {
          resource: 'http://herald.test/public/v1',
          metadata: 'http://herald.test/.well-known/oauth-protected-resource',
          issuer: 'http://herald.test',
          authorizationServerMetadata: 'http://herald.test/.well-known/oauth-authorization-server',
          mcpResource: 'http://herald.test/mcp-oauth',
          mcpMetadata: 'http://herald.test/.well-known/oauth-protected-resource/mcp-oauth',
          tokenPrefix: 'svco_',
          header: 'Authorization: Bearer <token>',
        },
        signUp: 'http://herald.test/account/sign-in',
        salesContactRequired: false,
      },
      mcp: { endpoint: 'http://herald.test/mcp-oauth', transport: 'streamable-http' },
      scopes: {
        rest: [
          'posts:read',
          'posts:draft',
          'posts:publish',
          'channels:read',
          'channels:write',
          'media:write',
          'analytics:read',
          'webhooks:read',
          'webhooks:write',
        ],
        mcp: ['mcp:read', 'mcp:write'],
      },
      rateLimits: { headers: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'] },
      versioning: { scheme: 'url-path', current: 'v1' },
      platforms: expect.any(Array),
    });
  });

  it('lists the platforms, those whose app the operator has not registered as unavailable with what to set', async () => {
    const { platforms } = (await t.request({ method: 'GET', url: '/public/v1/status' })).json() as {
      platforms: Array<{ identifier: string; available: boolean; unavailable?: string }>;
    };
    expect(platforms.map((p) => p.identifier)).toEqual([
      'webhook',
      'bluesky',
      'mastodon',
      'telegram',
      'discord',
      'slack',
      'nostr',
      'x',
      'linkedin',
      'linkedin-page',
      'threads',
      'tiktok',
      'pinterest',
      'reddit',
      'lemmy',
      'facebook',
      'instagram',
      'instagram-standalone',
      'youtube',
      'google-business',
      'wordpress',
      'devto',
    ]);
    expect(platforms.filter((p) => p.available).map((p) => p.identifier)).toEqual([
      'webhook',
      'bluesky',
      'mastodon',
      'telegram',
      'discord',
      'slack',
      'nostr',
      'lemmy',
      'wordpress',
      'devto',
    ]);
    expect(platforms.find((p) => p.identifier === 'x')).toEqual({
      identifier: 'x',
      name: 'X',
      available: false,
      unavailable:
        "X is not available on this server: the operator has not registered its app. Set X_CLIENT_ID and X_CLIENT_SECRET (see the README's X section).",
    });
    expect(platforms.find((p) => p.identifier === 'linkedin-page')!.unavailable).toContain('LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET');
    expect(platforms.find((p) => p.identifier === 'threads')!.unavailable).toContain('THREADS_APP_ID and THREADS_APP_SECRET');
    expect(platforms.find((p) => p.identifier === 'tiktok')!.unavailable).toContain('TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET');
    expect(platforms.find((p) => p.identifier === 'pinterest')!.unavailable).toContain('PINTEREST_APP_ID and PINTEREST_APP_SECRET');
    expect(platforms.find((p) => p.identifier === 'reddit')!.unavailable).toContain('REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET');
    expect(platforms.find((p) => p.identifier === 'facebook')!.unavailable).toBe(
      "Facebook is not available on this server: the operator has not registered its app. Set FACEBOOK_APP_ID and FACEBOOK_APP_SECRET (see the README's Facebook pages section).",
    );
    expect(platforms.find((p) => p.identifier === 'instagram')!.unavailable).toContain(
      'Instagram through Facebook Login is not available on this server',
    );
    expect(platforms.find((p) => p.identifier === 'instagram-standalone')!.unavailable).toContain(
      'INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET',
    );
    expect(platforms.find((p) => p.identifier === 'youtube')!.unavailable).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET');
    expect(platforms.find((p) => p.identifier === 'google-business')!.unavailable).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET');
  });

  it('reports the clock in UTC with milliseconds whatever the process time zone', async () => {
    clock.set('2026-10-04T02:30:00.000+10:30');
    const res = await t.request({ method: 'GET', url: '/public/v1/status' });
    expect(res.json().time).toBe('2026-10-03T16:00:00.000Z');
  });

  it('ignores a credential, even a broken one', async () => {
    const res = await t.request({ method: 'GET', url: '/public/v1/status', key: 'garbage' });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /public/v1/is-connected', () => {
  it('is true for a valid key, with the workspace, the role and the scopes the key may use there', async () => {
    const tenant = await createTenant(t, { role: 'contributor', scopes: ['posts:read', 'posts:publish', 'media:write'] });
    const res = await t.request({ method: 'GET', url: '/public/v1/is-connected', key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      connected: true,
      workspace: { id: tenant.workspaceId, name: expect.any(String) },
      role: 'contributor',
      scopes: ['media:write', 'posts:read'],
    });
  });

  runAuthMatrix(() => t, {
    method: 'GET',
    url: () => '/public/v1/is-connected',
    afterRemoval: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ connected: false });
    },
  });
});
