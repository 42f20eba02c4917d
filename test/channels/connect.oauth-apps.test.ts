// Platforms that need the operator's own app (LinkedIn, X, Threads, Facebook, Instagram): without it they are listed as
// unavailable and connecting answers a 400 naming the variables to set, never a 500; Threads says
// in `missing` when BASE_URL is not public (it fetches media from Herald).
import { describe, expect, it } from 'vitest';
import { createTenant, createTestApp } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { createOk } from '../helpers/posts.ts';

describe('platforms whose app is not configured', () => {
  it('answer 400 provider_unavailable naming the variables, on connect and on reconnect', async () => {
    const t = await createTestApp();
    try {
      const tenant = await createTenant(t);
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['x', {}, ['X_CLIENT_ID', 'X_CLIENT_SECRET']],
        ['linkedin', {}, ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']],
        ['linkedin-page', { page: '123' }, ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']],
        ['threads', {}, ['THREADS_APP_ID', 'THREADS_APP_SECRET']],
        ['facebook', {}, ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET']],
        ['instagram', {}, ['FACEBOOK_APP_ID', 'FACEBOOK_APP_SECRET']],
        ['instagram-standalone', {}, ['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET']],
      ];
      for (const [provider, fields, variables] of cases) {
        const res = await t.request({
          method: 'POST',
          url: '/public/v1/integrations/connect',
          key: tenant.key,
          payload: { provider, ...fields },
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().code).toBe('provider_unavailable');
        for (const variable of variables) expect(res.json().msg).toContain(variable);
      }
      const unknown = await t.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'myspace' },
      });
      expect(unknown.json().msg).toContain(
        'not available on this server until the operator sets their app: x, linkedin, linkedin-page, threads, tiktok, pinterest, reddit, facebook, instagram, instagram-standalone',
      );

      // A channel the operator made (e.g. before the app's variables were removed) cannot be reconnected either.
      const channel = await t.services.channels.create(tenant.workspaceId, {
        provider: 'x',
        name: 'x',
        config: { accessToken: 'a'.repeat(20), userId: '1', username: 'someone' },
      });
      const again = await t.request({
        method: 'POST',
        url: `/public/v1/integrations/${channel.id}/reconnect`,
        key: tenant.key,
        payload: {},
      });
      expect(again.statusCode, again.body).toBe(400);
      expect(again.json().code).toBe('provider_unavailable');
    } finally {
      await t.close();
    }
  });
});

describe('Threads with a BASE_URL that is not public', () => {
  it('says in missing that Threads cannot fetch the media', async () => {
    const t = await createTestApp({ env: { BASE_URL: 'http://127.0.0.1:3000', THREADS_APP_ID: '1', THREADS_APP_SECRET: 'secret' } });
    try {
      const tenant = await createTenant(t);
      const channel = await t.services.channels.create(tenant.workspaceId, {
        provider: 'threads',
        name: 'threads',
        config: { accessToken: 'a'.repeat(20), userId: '1', username: 'someone' },
      });
      const uploaded = await t.request({
        method: 'POST',
        url: '/public/v1/upload',
        key: tenant.key,
        ...fileBody(png(8, 8, [1, 2, 3]), 'a.png', 'image/png'),
      });
      const image = uploaded.json() as { id: string; path: string };
      const [withImage] = await createOk(t, tenant, {
        type: 'draft',
        date: new Date().toISOString(),
        posts: [
          {
            integration: { id: channel.id },
            value: [{ content: '<p>Look</p>', image: [{ id: image.id, path: image.path }] }],
            settings: { __type: 'threads' },
          },
        ],
      });
      const missing = await t.request({ method: 'GET', url: `/public/v1/posts/${withImage!.postId}/missing`, key: tenant.key });
      expect(missing.body).toContain('BASE_URL (http://127.0.0.1:3000) is not a public address');
      const [textOnly] = await createOk(t, tenant, {
        type: 'draft',
        date: new Date().toISOString(),
        posts: [{ integration: { id: channel.id }, value: [{ content: '<p>Just words</p>' }], settings: { __type: 'threads' } }],
      });
      const none = await t.request({ method: 'GET', url: `/public/v1/posts/${textOnly!.postId}/missing`, key: tenant.key });
      expect(none.body).not.toContain('BASE_URL');
    } finally {
      await t.close();
    }
  });
});

describe('two applications in one process', () => {
  it('each sees only its own platform apps and BASE_URL', async () => {
    const withX = await createTestApp({ env: { X_CLIENT_ID: 'x-client', X_CLIENT_SECRET: 'x-secret' } });
    const without = await createTestApp({ env: { BASE_URL: 'http://127.0.0.1:3000' } });
    try {
      const available = async (t: typeof withX) => {
        const { platforms } = (await t.request({ method: 'GET', url: '/public/v1/status' })).json() as {
          platforms: Array<{ identifier: string; available: boolean }>;
        };
        return platforms.find((p) => p.identifier === 'x')!.available;
      };
      // The application started first keeps its X app after the second one started without it.
      expect(await available(withX)).toBe(true);
      expect(await available(without)).toBe(false);
      const tenant = await createTenant(withX);
      const res = await withX.request({
        method: 'POST',
        url: '/public/v1/integrations/connect',
        key: tenant.key,
        payload: { provider: 'x' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(new URL((res.json() as { url: string }).url).searchParams.get('client_id')).toBe('x-client');
    } finally {
      await withX.close();
      await without.close();
    }
  });
});
