import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createTenant, createTestApp, TEST_SECRET_KEY, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { herald, processBudget } from '../helpers/process.ts';
import { versionWatch } from '../helpers/versions.ts';

/** Two API processes on one database: each app has its own services and memberships cache. */
async function twoProcesses(): Promise<[TestApp, TestApp]> {
  const a = await createTestApp();
  const b = await createTestApp({ reopen: a });
  return [a, b];
}

const roles = async (t: TestApp, key: string) =>
  ((await t.request({ method: 'GET', url: '/public/v1/workspaces', key })).json() as Array<{ role: string }>).map((w) => w.role);

describe('cached access decisions, two API processes sharing one database', () => {
  it('a demotion, a removal, a plan without API access, a rotation and a revocation made through one process apply on the very next request to the other', async () => {
    const [a, b] = await twoProcesses();
    const tenant = await createTenant(a);
    const integrations = (t: TestApp, key = tenant.key) => t.request({ method: 'GET', url: '/public/v1/integrations', key });
    // Both processes have read (and cached) the owner's memberships.
    for (const t of [a, b]) expect((await integrations(t)).statusCode).toBe(200);
    expect(await roles(b, tenant.key)).toEqual(['owner']);

    await a.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'viewer');
    expect(await roles(b, tenant.key)).toEqual(['viewer']);
    expect((await b.request({ method: 'POST', url: '/public/v1/posts', key: tenant.key, payload: {} })).statusCode).toBe(403);

    await a.services.workspaces.setPlan(tenant.workspaceId, { apiAccess: false });
    const planless = await integrations(b);
    expect(planless.statusCode).toBe(401);
    expect(planless.json()).toMatchObject({ code: 'plan_without_api' });
    await a.services.workspaces.setPlan(tenant.workspaceId, { apiAccess: true });
    expect((await integrations(b)).statusCode).toBe(200);

    await a.services.workspaces.removeMember(tenant.workspaceId, tenant.userId);
    expect((await integrations(b)).statusCode).toBe(403);
    await a.services.workspaces.addMember(tenant.workspaceId, tenant.userId, 'owner');
    expect((await integrations(b)).statusCode).toBe(200);

    const { secret } = await a.services.apiKeys.rotate(tenant.keyId);
    expect((await integrations(b)).statusCode).toBe(401);
    expect((await integrations(b, secret)).statusCode).toBe(200);

    await a.services.apiKeys.revoke(tenant.keyId);
    expect((await integrations(b, secret)).json()).toMatchObject({ code: 'revoked_credential' });
  });

  it('a change written by hand in SQL, past every service, applies on the next request too', async () => {
    const [a, b] = await twoProcesses();
    const tenant = await createTenant(a);
    expect(await roles(b, tenant.key)).toEqual(['owner']);
    await sql`update memberships set role = 'contributor' where user_id = ${tenant.userId}`.execute(a.runtime.db);
    expect(await roles(b, tenant.key)).toEqual(['contributor']);
    await sql`delete from users where id = ${tenant.userId}`.execute(a.runtime.db);
    expect((await b.request({ method: 'GET', url: '/public/v1/workspaces', key: tenant.key })).statusCode).toBe(401);
  });

  // The embedded database's other writer is the operator command: its commit, from another
  // operating-system process, must count on the next request.
  it.skipIf(BACKEND !== 'sqlite')(
    'a revocation by the operator command, another process, applies on the very next request',
    async () => {
      const t = await createTestApp();
      const tenant = await createTenant(t);
      const integrations = () => t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
      for (let i = 0; i < 3; i++) expect((await integrations()).statusCode).toBe(200);
      const revoked = await herald(['admin', 'key', 'revoke', tenant.keyId], {
        DATA_DIR: t.database.dataDir,
        SECRET_KEY: TEST_SECRET_KEY,
        BOOTSTRAP: 'false',
      });
      expect(revoked.code, revoked.stderr).toBe(0);
      expect((await integrations()).json()).toMatchObject({ code: 'revoked_credential' });
    },
    processBudget(1, 30_000),
  );

  it('the version moves with every change to keys, memberships, workspaces and users, and not when a key is used', async () => {
    const t = await createTestApp();
    const tenant = await createTenant(t);
    const moves = await versionWatch(t, 'access_version');
    // A key used for the first time records when; that is not an access change.
    expect(await moves(() => t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key }))).toBe(false);
    expect(await moves(() => t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'admin'))).toBe(true);
    expect(await moves(() => t.services.workspaces.setPlan(tenant.workspaceId, { channels: 3 }))).toBe(true);
    expect(await moves(() => t.services.apiKeys.rotate(tenant.keyId))).toBe(true);
    expect(await moves(() => t.services.apiKeys.revoke(tenant.keyId))).toBe(true);
    const other = await t.services.users.create({ email: `other-${tenant.keyId}@example.test` });
    expect(await moves(() => t.services.workspaces.addMember(tenant.workspaceId, other.id, 'viewer'))).toBe(true);
    expect(await moves(() => t.services.workspaces.removeMember(tenant.workspaceId, other.id))).toBe(true);
    expect(await moves(() => sql`delete from users where id = ${other.id}`.execute(t.runtime.db))).toBe(true);
  });
});
