import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceAccess } from '../../src/auth/access.service.ts';
import type { Role } from '../../src/auth/scopes.ts';
import { accessOf, createTenant, createTestApp, TEST_WEBHOOK_SECRET, type Tenant, type TestApp } from '../helpers/app.ts';
import { png } from '../helpers/media-files.ts';

/**
 * The services check the caller's access themselves, whatever surface calls them (REST, MCP,
 * the CLI, pages): the scope within the owner's role first, then a key's channel limit.
 */

let t: TestApp;
let owner: Tenant;
let channelId: string;
let other: string;

const missing = (scope: string, role: Role = 'owner') => ({ statusCode: 403, code: 'missing_scope', details: { scope, role } });
const notFound = { statusCode: 404 };

async function access(options: { role?: Role; scopes?: string[]; channelIds?: string[] }): Promise<WorkspaceAccess> {
  return accessOf(t, await createTenant(t, { workspaceId: owner.workspaceId, ...options }));
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await createTenant(t);
  const channel = (name: string) =>
    t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name,
      config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
    });
  channelId = (await channel('Mine')).id;
  other = (await channel('Other')).id;
});

describe('services refuse a caller without the scope', () => {
  it('channels: reading needs channels:read, changing channels:write', async () => {
    const reader = await access({ scopes: ['posts:read'] });
    await expect(t.services.channels.visible(reader, undefined)).rejects.toMatchObject(missing('channels:read'));
    await expect(t.services.channels.settingsFor(reader, channelId)).rejects.toMatchObject(missing('channels:read'));
    await expect(t.services.channels.triggerFor(reader, channelId, 'any', {})).rejects.toMatchObject(missing('channels:read'));
    await expect(t.services.groups.list(reader)).rejects.toMatchObject(missing('channels:read'));

    const viewer = await access({ role: 'viewer' });
    await expect(t.services.channels.update(viewer, channelId, { name: 'Renamed' })).rejects.toMatchObject(
      missing('channels:write', 'viewer'),
    );
    await expect(t.services.channels.deleteFor(viewer, channelId)).rejects.toMatchObject(missing('channels:write', 'viewer'));
    await expect(t.services.connect.connect(viewer, { provider: 'webhook', fields: {} })).rejects.toMatchObject(
      missing('channels:write', 'viewer'),
    );
    await expect(t.services.connect.reconnect(viewer, channelId, {})).rejects.toMatchObject(missing('channels:write', 'viewer'));
    expect((await t.services.channels.get(owner.workspaceId, channelId)).name).toBe('Mine');
  });

  it('notifications need posts:read', async () => {
    await expect(t.services.notifications.list(await access({ scopes: ['channels:read'] }), 0)).rejects.toMatchObject(
      missing('posts:read'),
    );
  });

  it('media: deleting and recording an upload need media:write; a refused upload is not kept', async () => {
    const viewer = await access({ role: 'viewer' });
    const mine = await accessOf(t, owner);
    const { media } = await t.services.media.commitFor(mine, await t.services.media.stage(Readable.from([png(3, 3, [1, 2, 3])])));
    await expect(t.services.media.delete(viewer, media.id)).rejects.toMatchObject(missing('media:write', 'viewer'));
    const staged = await t.services.media.stage(Readable.from([png(3, 3, [4, 5, 6])]));
    await expect(t.services.media.commitFor(viewer, staged)).rejects.toMatchObject(missing('media:write', 'viewer'));
    expect(await t.services.media.stat(staged.key)).toBeNull();
    expect((await t.services.media.delete(mine, media.id)).id).toBe(media.id);
  });
});

describe('services keep a channel-limited key to its channels', () => {
  it("another channel is not found, as another workspace's is", async () => {
    const limited = await access({ channelIds: [channelId] });
    await expect(t.services.channels.settingsFor(limited, other)).rejects.toMatchObject(notFound);
    await expect(t.services.channels.update(limited, other, { name: 'Renamed' })).rejects.toMatchObject(notFound);
    await expect(t.services.channels.deleteFor(limited, other)).rejects.toMatchObject(notFound);
    await expect(t.services.connect.reconnect(limited, other, {})).rejects.toMatchObject(notFound);
    expect((await t.services.channels.get(owner.workspaceId, other)).name).toBe('Other');
    expect((await t.services.channels.update(limited, channelId, { name: 'Mine again' })).name).toBe('Mine again');
  });
});
