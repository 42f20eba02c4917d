import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { versionWatch } from '../helpers/versions.ts';

/**
 * Lists are in creation order (then by id): each test's clock moves a second before each
 * channel it creates, so that two channels never share a creation time.
 */
const clock = new ManualClock('2026-11-01T08:00:00.000Z');

/** Two API processes on one database: each app keeps its own channel lists. */
async function twoProcesses(): Promise<[TestApp, TestApp]> {
  const a = await createTestApp({ clock });
  const b = await createTestApp({ reopen: a, clock });
  return [a, b];
}

const names = async (t: TestApp, key: string, query = '') => {
  const res = await t.request({ method: 'GET', url: `/public/v1/integrations${query}`, key });
  expect(res.statusCode).toBe(200);
  return (res.json() as Array<{ name: string; disabled: boolean; customer: { name: string } | null }>).map(
    (c) => `${c.name}${c.disabled ? ' (off)' : ''}${c.customer ? ` [${c.customer.name}]` : ''}`,
  );
};

describe('channel lists kept per process, two API processes sharing one database', () => {
  it('a channel added, disabled, enabled, deleted or restored through one process, or changed by hand in SQL, shows on the very next list from the other', async () => {
    const [a, b] = await twoProcesses();
    const tenant = await createTenant(a);
    const create = (name: string, groupId: string | null = null) => {
      clock.advance(1000);
      return a.services.channels.create(tenant.workspaceId, {
        provider: 'webhook',
        name,
        groupId,
        config: { url: 'https://example.test/hook', secret: TEST_WEBHOOK_SECRET },
      });
    };
    const group = await a.services.groups.create(tenant.workspaceId, 'Acme');
    const first = await create('First', group.id);
    expect(await names(b, tenant.key)).toEqual(['First [Acme]']);
    expect(await names(b, tenant.key)).toEqual(['First [Acme]']);

    const second = await create('Second');
    expect(await names(b, tenant.key)).toEqual(['First [Acme]', 'Second']);
    await a.services.channels.disableByOperator(tenant.workspaceId, second.id);
    expect(await names(b, tenant.key)).toEqual(['First [Acme]', 'Second (off)']);
    await a.services.channels.enable(tenant.workspaceId, second.id);
    expect(await names(b, tenant.key)).toEqual(['First [Acme]', 'Second']);

    await sql`update channels set name = 'Renamed' where id = ${first.id}`.execute(a.runtime.db);
    expect(await names(b, tenant.key)).toEqual(['Renamed [Acme]', 'Second']);
    await sql`update client_groups set name = 'Acme Inc' where id = ${group.id}`.execute(a.runtime.db);
    expect(await names(b, tenant.key)).toEqual(['Renamed [Acme Inc]', 'Second']);
    expect(await names(b, tenant.key, `?group=${group.id}`)).toEqual(['Renamed [Acme Inc]']);
    await sql`delete from client_groups where id = ${group.id}`.execute(a.runtime.db);
    expect(await names(b, tenant.key)).toEqual(['Renamed', 'Second']);

    await a.services.channels.delete(tenant.workspaceId, second.id);
    expect(await names(b, tenant.key)).toEqual(['Renamed']);
    // A deleted channel is kept (with its posts); bringing it back shows it again.
    await sql`update channels set deleted_at = null where id = ${second.id}`.execute(a.runtime.db);
    expect(await names(b, tenant.key)).toEqual(['Renamed', 'Second']);
  });

  it('a channel-limited key and the group filter narrow the kept list, and never widen it', async () => {
    const t = await createTestApp({ clock });
    const owner = await createTenant(t);
    const group = await t.services.groups.create(owner.workspaceId, 'Acme');
    const create = (name: string, groupId: string | null = null) => {
      clock.advance(1000);
      return t.services.channels.create(owner.workspaceId, {
        provider: 'webhook',
        name,
        groupId,
        config: { url: 'https://example.test/hook', secret: TEST_WEBHOOK_SECRET },
      });
    };
    const one = await create('One', group.id);
    await create('Two');
    const three = await create('Three', group.id);
    const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [three.id] });
    expect(await names(t, owner.key)).toEqual(['One [Acme]', 'Two', 'Three [Acme]']);
    expect(await names(t, limited.key)).toEqual(['Three [Acme]']);
    expect(await names(t, owner.key, `?group=${group.id}`)).toEqual(['One [Acme]', 'Three [Acme]']);
    expect(await names(t, limited.key, `?group=${group.id}`)).toEqual(['Three [Acme]']);
    expect(one.id).not.toBe(three.id);
  });

  it("the version moves with what a list shows, and not with a channel's credentials or a list being read", async () => {
    const t = await createTestApp();
    const tenant = await createTenant(t);
    const moves = await versionWatch(t, 'channels_version');
    let id = '';
    expect(
      await moves(async () => {
        id = (
          await t.services.channels.create(tenant.workspaceId, {
            provider: 'webhook',
            name: 'C',
            config: { url: 'https://example.test/hook', secret: TEST_WEBHOOK_SECRET },
          })
        ).id;
      }),
    ).toBe(true);
    expect(await moves(() => t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key }))).toBe(false);
    expect(
      await moves(() => sql`update channels set credentials = credentials, updated_at = 'x' where id = ${id}`.execute(t.runtime.db)),
    ).toBe(false);
    expect(await moves(() => t.services.channels.disableByOperator(tenant.workspaceId, id))).toBe(true);
    expect(await moves(() => t.services.workspaces.create({ name: 'Unrelated' }))).toBe(false);
    expect(await moves(() => sql`delete from workspaces where id = ${tenant.workspaceId}`.execute(t.runtime.db))).toBe(true);
  });
});
