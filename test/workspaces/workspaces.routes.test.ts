import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});

describe('GET /public/v1/workspaces', () => {
  it("lists the single workspace as current, with the owner's role", async () => {
    const tenant = await createTenant(t, { role: 'editor' });
    const res = await t.request({ method: 'GET', url: '/public/v1/workspaces', key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ id: tenant.workspaceId, name: expect.any(String), role: 'editor', current: true, apiAccess: true }]);
  });

  it('lists every workspace of a spanning key without showorg, none current', async () => {
    const tenant = await createTenant(t);
    const second = await t.services.workspaces.create({ name: 'Second' });
    await t.services.workspaces.addMember(second.id, tenant.userId, 'viewer');
    const res = await t.request({ method: 'GET', url: '/public/v1/workspaces', key: tenant.key });
    expect(res.statusCode).toBe(200);
    const body = res.json() as Array<{ id: string; role: string; current: boolean }>;
    // Oldest membership first; two made in the same millisecond may come in either order.
    expect(body).toHaveLength(2);
    expect(body.map((w) => [w.id, w.role, w.current])).toEqual(
      expect.arrayContaining([
        [tenant.workspaceId, 'owner', false],
        [second.id, 'viewer', false],
      ]),
    );
  });

  it('marks the showorg workspace current', async () => {
    const tenant = await createTenant(t);
    const second = await t.services.workspaces.create({ name: 'Second' });
    await t.services.workspaces.addMember(second.id, tenant.userId, 'viewer');
    const res = await t.request({ method: 'GET', url: '/public/v1/workspaces', key: tenant.key, showorg: second.id });
    const current = (res.json() as Array<{ id: string; current: boolean }>).filter((w) => w.current).map((w) => w.id);
    expect(current).toEqual([second.id]);
  });

  it('a key limited to one workspace sees only that one', async () => {
    const tenant = await createTenant(t, { limitToWorkspace: true });
    const second = await t.services.workspaces.create({ name: 'Second' });
    await t.services.workspaces.addMember(second.id, tenant.userId, 'owner');
    const res = await t.request({ method: 'GET', url: '/public/v1/workspaces', key: tenant.key });
    expect((res.json() as Array<{ id: string }>).map((w) => w.id)).toEqual([tenant.workspaceId]);
    const other = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key, showorg: second.id });
    expect(other.statusCode).toBe(403);
  });

  runAuthMatrix(() => t, {
    method: 'GET',
    url: () => '/public/v1/workspaces',
    workspaceOptional: true,
    afterRemoval: (res) => {
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    },
  });
});
