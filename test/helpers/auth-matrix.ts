import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ROLE_SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { createTenant, type TestApp, type Tenant } from './app.ts';
import { issueOAuthToken } from './oauth.ts';

export type RouteUnderTest = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path, given the tenant the request acts for (so ids can be its own). */
  url: (t: TestApp, tenant: Tenant) => string | Promise<string>;
  body?: unknown;
  /** A raw body with its own headers (e.g. multipart/form-data), built afresh for every call. */
  rawBody?: () => { payload: Buffer | string; headers: Record<string, string> };
  scope?: Scope;
  /** Routes that work without `showorg` on a multi-workspace key (/workspaces). */
  workspaceOptional?: boolean;
  /** What the route answers once the key's owner has left its only workspace (default: 403). */
  afterRemoval?: (res: LightMyRequestResponse) => void;
  /** The status of a successful call. */
  okStatus?: number;
  /** Routes an OAuth token may not use even with the scope: the 403's message. */
  oauthRefused?: RegExp;
};

export function expectRateLimitHeaders(res: LightMyRequestResponse, origin = 'http://herald.test'): void {
  expect(res.headers['ratelimit-limit']).toMatch(/^\d+$/);
  expect(res.headers['ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['ratelimit-reset']).toMatch(/^\d+$/);
  expect(res.headers['ratelimit-policy']).toMatch(/^\d+;w=\d+$/);
  expect(res.headers.link).toBe(`<${origin}/developers#deprecation-policy>; rel="sunset"`);
}

function expectMsg(res: LightMyRequestResponse, status: number, pattern?: RegExp): Record<string, unknown> {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json() as Record<string, unknown>;
  expect(typeof body.msg).toBe('string');
  if (pattern) expect(body.msg).toMatch(pattern);
  expectRateLimitHeaders(res);
  return body;
}

/**
 * The authentication and authorization cases every authenticated route must pass: a shared
 * matrix, so no route can forget one.
 */
export function runAuthMatrix(getApp: () => TestApp, route: RouteUnderTest): void {
  const call = async (key: string | undefined, tenant: Tenant, extra: { showorg?: string; headers?: Record<string, string> } = {}) => {
    const t = getApp();
    const raw = route.rawBody?.();
    const headers = raw || extra.headers ? { ...raw?.headers, ...extra.headers } : undefined;
    return t.request({
      method: route.method,
      url: await route.url(t, tenant),
      ...(key !== undefined && { key }),
      ...(extra.showorg !== undefined && { showorg: extra.showorg }),
      ...(headers && { headers }),
      ...(route.body !== undefined && { payload: route.body as Record<string, unknown> }),
      ...(raw && { payload: raw.payload }),
    });
  };
  const ok = route.okStatus ?? 200;

  describe(`${route.method} auth matrix`, () => {
    it('succeeds with a valid key', async () => {
      const tenant = await createTenant(getApp());
      const res = await call(tenant.key, tenant);
      expect(res.statusCode, res.body).toBe(ok);
      expectRateLimitHeaders(res);
    });

    it('401 without an Authorization header', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call(undefined, tenant), 401, /Missing Authorization/);
    });

    it('401 with an empty Authorization header', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call('', tenant), 401, /empty/);
    });

    it('401 with a malformed key', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call('svc_short', tenant), 401, /Malformed/);
      expectMsg(await call('hello world', tenant), 401, /Malformed/);
    });

    it('401 with a well-formed key that was never issued', async () => {
      const tenant = await createTenant(getApp());
      const forged = `svc_${'A'.repeat(16)}_${'b'.repeat(40)}`;
      expectMsg(await call(forged, tenant), 401, /not valid/);
    });

    it('401 with a correct key id but a wrong secret', async () => {
      const tenant = await createTenant(getApp());
      const wrong = tenant.key.slice(0, -4) + (tenant.key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
      expectMsg(await call(wrong, tenant), 401, /not valid/);
    });

    it('401 with the old secret of a rotated key, 200 with the new one', async () => {
      const tenant = await createTenant(getApp());
      const { secret } = await getApp().services.apiKeys.rotate(tenant.keyId);
      expectMsg(await call(tenant.key, tenant), 401, /not valid/);
      expect((await call(secret, tenant)).statusCode).toBe(ok);
    });

    it('401 with a revoked key', async () => {
      const tenant = await createTenant(getApp());
      await getApp().services.apiKeys.revoke(tenant.keyId);
      expectMsg(await call(tenant.key, tenant), 401, /revoked/);
    });

    it('401 explaining a key sent without its svc_ prefix', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call(tenant.key.slice('svc_'.length), tenant), 401, /prefix/);
    });

    it('401 explaining that API keys are not Bearer tokens', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call(`Bearer ${tenant.key}`, tenant), 401, /without "Bearer"/);
    });

    it('401 for an OAuth token sent without Bearer, and for an unknown OAuth token', async () => {
      const tenant = await createTenant(getApp());
      expectMsg(await call(`svco_${'x'.repeat(30)}`, tenant), 401, /Bearer/);
      expectMsg(await call(`Bearer svco_${'x'.repeat(30)}`, tenant), 401, /OAuth/);
    });

    it('401 explaining that an MCP key is not a REST key', async () => {
      const tenant = await createTenant(getApp(), { mcp: true });
      expectMsg(await call(tenant.key, tenant), 401, /MCP key/);
    });

    it('401 when the workspace plan has no API access', async () => {
      const tenant = await createTenant(getApp());
      await getApp().services.workspaces.setPlan(tenant.workspaceId, { apiAccess: false });
      expectMsg(await call(tenant.key, tenant), 401, /API access/);
    });

    it('403 once the owner is removed from the workspace', async () => {
      const tenant = await createTenant(getApp(), { limitToWorkspace: true });
      await getApp().services.workspaces.removeMember(tenant.workspaceId, tenant.userId);
      const res = await call(tenant.key, tenant);
      if (route.afterRemoval) route.afterRemoval(res);
      else expectMsg(res, 403, /no longer a member/);
    });

    if (route.scope) {
      const scope = route.scope;
      it(`403 naming ${scope} and the role when the key lacks it`, async () => {
        const tenant = await createTenant(getApp(), { scopes: scope === 'posts:read' ? ['media:write'] : ['posts:read'] });
        const body = expectMsg(await call(tenant.key, tenant), 403, new RegExp(scope));
        expect(body.scope).toBe(scope);
        expect(body.role).toBe('owner');
      });

      const weaker = (['contributor', 'viewer'] as const).find((role) => !ROLE_SCOPES[role].has(scope));
      if (weaker) {
        it(`403 on the next call once the owner is demoted to ${weaker}`, async () => {
          const tenant = await createTenant(getApp());
          expect((await call(tenant.key, tenant)).statusCode).toBe(ok);
          await getApp().services.workspaces.setRole(tenant.workspaceId, tenant.userId, weaker);
          const body = expectMsg(await call(tenant.key, tenant), 403, new RegExp(`${scope}.*${weaker}`));
          expect(body).toMatchObject({ scope, role: weaker });
        });
      }
    }

    // OAuth access tokens (svco_…): the same rules, through a token the user allowed on the consent page.
    const oauthScopes = route.scope ? [route.scope] : ['posts:read'];
    it('succeeds with an OAuth access token (Bearer svco_…)', async () => {
      const tenant = await createTenant(getApp());
      const { accessToken } = await issueOAuthToken(getApp(), { ...tenant, scopes: oauthScopes });
      const res = await call(`Bearer ${accessToken}`, tenant);
      if (route.oauthRefused) {
        expectMsg(res, 403, route.oauthRefused);
        return;
      }
      expect(res.statusCode, res.body).toBe(ok);
      expectRateLimitHeaders(res);
    });

    it('401 with an OAuth token bound to the MCP server', async () => {
      const tenant = await createTenant(getApp());
      const { accessToken } = await issueOAuthToken(getApp(), { ...tenant, scopes: ['mcp:write'], resource: 'mcp' });
      expectMsg(await call(`Bearer ${accessToken}`, tenant), 401, /issued for the MCP server/);
    });

    it('401 with an OAuth token once the user revokes the app', async () => {
      const t = getApp();
      const tenant = await createTenant(t);
      const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes: oauthScopes });
      const [app] = await t.services.oauth.allowedApps(tenant.userId);
      expect(await t.services.oauth.revokeGrant(tenant.userId, app!.grantId)).toBe(true);
      expectMsg(await call(`Bearer ${accessToken}`, tenant), 401, /invalid, has expired or was revoked/);
    });

    it('403 with an OAuth token once its user is removed from the workspace', async () => {
      const t = getApp();
      const tenant = await createTenant(t);
      const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes: oauthScopes });
      await t.services.workspaces.removeMember(tenant.workspaceId, tenant.userId);
      const res = await call(`Bearer ${accessToken}`, tenant);
      if (route.afterRemoval) route.afterRemoval(res);
      else expectMsg(res, 403, /no longer a member/);
    });

    if (route.scope) {
      const scope = route.scope;
      it(`403 naming ${scope} when the OAuth token was not granted it`, async () => {
        const tenant = await createTenant(getApp());
        const { accessToken } = await issueOAuthToken(getApp(), {
          ...tenant,
          scopes: [scope === 'posts:read' ? 'media:write' : 'posts:read'],
        });
        const body = expectMsg(await call(`Bearer ${accessToken}`, tenant), 403, new RegExp(scope));
        expect(body.scope).toBe(scope);
      });
      const weaker = (['contributor', 'viewer'] as const).find((role) => !ROLE_SCOPES[role].has(scope));
      if (weaker) {
        it(`403 with an OAuth token once its user is demoted to ${weaker}`, async () => {
          const tenant = await createTenant(getApp());
          const { accessToken } = await issueOAuthToken(getApp(), { ...tenant, scopes: [scope] });
          await getApp().services.workspaces.setRole(tenant.workspaceId, tenant.userId, weaker);
          expectMsg(await call(`Bearer ${accessToken}`, tenant), 403, new RegExp(`${scope}.*${weaker}`));
        });
      }
    }

    it('a key spanning two workspaces needs showorg, and works with it', async () => {
      const t = getApp();
      const tenant = await createTenant(t);
      const second = await t.services.workspaces.create({ name: 'second' });
      await t.services.workspaces.addMember(second.id, tenant.userId, 'owner');
      const without = await call(tenant.key, tenant);
      if (route.workspaceOptional) expect(without.statusCode).toBe(ok);
      else expectMsg(without, 403, /showorg/);
      expect((await call(tenant.key, tenant, { showorg: tenant.workspaceId })).statusCode).toBe(ok);
    });

    it('403 when showorg names a workspace the key cannot act in', async () => {
      const t = getApp();
      const tenant = await createTenant(t);
      const other = await createTenant(t);
      expectMsg(await call(tenant.key, tenant, { showorg: other.workspaceId }), 403, /no access/);
      expectMsg(await call(tenant.key, tenant, { showorg: 'does-not-exist' }), 403, /no access/);
    });
  });
}
