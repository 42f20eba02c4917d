import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireScope } from '../../src/auth/access.service.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

async function accessOf(key: string) {
  const principal = await t.services.apiKeys.authenticate(key, 'rest');
  return t.services.access.select(principal, undefined);
}

describe('effective access', () => {
  it("is the key's scopes within the owner's role, read afresh on every call", async () => {
    const tenant = await createTenant(t);
    let access = await accessOf(tenant.key);
    expect(() => requireScope(access, 'posts:publish')).not.toThrow();

    await t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'contributor');
    access = await accessOf(tenant.key);
    expect(access.role).toBe('contributor');
    expect(() => requireScope(access, 'posts:publish')).toThrow(/posts:publish.*contributor/);
    expect(() => requireScope(access, 'posts:draft')).not.toThrow();

    await t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'viewer');
    access = await accessOf(tenant.key);
    expect(() => requireScope(access, 'media:write')).toThrow(/media:write.*viewer/);
    expect(() => requireScope(access, 'posts:read')).not.toThrow();

    await t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'admin');
    access = await accessOf(tenant.key);
    expect([...access.scopes].sort()).toEqual([
      'analytics:read',
      'channels:read',
      'channels:write',
      'media:write',
      'posts:draft',
      'posts:publish',
      'posts:read',
      'webhooks:read',
      'webhooks:write',
    ]);
  });

  it('never grants more than the key carries, whatever the role', async () => {
    const tenant = await createTenant(t, { scopes: ['posts:read'] });
    const access = await accessOf(tenant.key);
    expect([...access.scopes]).toEqual(['posts:read']);
    expect(() => requireScope(access, 'channels:read')).toThrow(/not granted/);
  });

  it('stores only a hash of the secret', async () => {
    const tenant = await createTenant(t);
    const row = await t.runtime.db.selectFrom('api_keys').selectAll().where('id', '=', tenant.keyId).executeTakeFirstOrThrow();
    const secretPart = tenant.key.split('_').pop()!;
    expect(JSON.stringify(row)).not.toContain(secretPart);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses unknown scopes and REST scopes on MCP keys', async () => {
    const tenant = await createTenant(t);
    await expect(t.services.apiKeys.create({ userId: tenant.userId, scopes: ['posts:everything'] })).rejects.toMatchObject({
      statusCode: 400,
    });
    await expect(t.services.apiKeys.create({ userId: tenant.userId, kind: 'mcp', scopes: ['posts:read'] })).rejects.toMatchObject({
      statusCode: 400,
    });
    const mcp = await t.services.apiKeys.create({ userId: tenant.userId, kind: 'mcp' });
    expect(mcp.secret).toMatch(/^svc_mcp_/);
    expect(mcp.key.scopes).toEqual(['mcp:read', 'mcp:write']);
  });
});

describe('the Authorization header', () => {
  it('two Authorization headers are refused with a 400, not the first one taken', async () => {
    const tenant = await createTenant(t);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = new URL(address);
    const send = (headers: string[]) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          { host: '127.0.0.1', port, path: '/public/v1/integrations', method: 'GET', headers: ['Host', `127.0.0.1:${port}`, ...headers] },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    expect((await send(['Authorization', tenant.key])).status).toBe(200);
    for (const second of [tenant.key, 'svc_nope']) {
      const res = await send(['Authorization', tenant.key, 'Authorization', second]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ msg: expect.stringMatching(/more than one Authorization header/) });
    }
  });

  it('a key wrapped in non-breaking spaces is refused: only spaces and tabs are trimmed', async () => {
    const tenant = await createTenant(t);
    expect(
      (await t.request({ method: 'GET', url: '/public/v1/integrations', headers: { authorization: ` \t${tenant.key}\t ` } })).statusCode,
    ).toBe(200);
    for (const wrapped of [`\u00a0${tenant.key}\u00a0`, `${tenant.key}\u00a0`, `Bearer\u00a0svco_abc`]) {
      const res = await t.request({ method: 'GET', url: '/public/v1/integrations', headers: { authorization: wrapped } });
      expect(res.statusCode, JSON.stringify(wrapped)).toBe(401);
      expect(res.json().msg).toMatch(/non-breaking space/);
    }
  });
});
