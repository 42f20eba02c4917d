import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, unique, type TestApp } from '../helpers/app.ts';
import { png, fileBody } from '../helpers/media-files.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';

// The rules behind `herald admin`'s list, delete and disable commands, through the services the
// command calls (the command itself is tested through the real process in test/cli).
const clock = new ManualClock('2026-04-01T12:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});

const newUser = () => t.services.users.create({ email: `${unique('op')}@example.test` });

describe('keys need a workspace', () => {
  it('a key for a user in no workspace is refused with a sentence saying how to fix it, and nothing is saved', async () => {
    const user = await newUser();
    await expect(t.services.apiKeys.create({ userId: user.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'no_workspace',
      message: `User ${user.id} belongs to no workspace, so a key could do nothing; add them to one first (herald admin member add --workspace <id> --user ${user.id} --role <role>).`,
    });
    expect(await t.services.apiKeys.list(user.id)).toEqual([]);
  });

  it('a key limited to a workspace the user is not a member of is refused too', async () => {
    const { userId } = await createTenant(t);
    const other = await t.services.workspaces.create({ name: 'Other' });
    await expect(t.services.apiKeys.create({ userId, workspaceId: other.id })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/is not a member of workspace/),
    });
  });
});

describe('workspaces', () => {
  it('create with an owner makes that user its owner; an unknown owner creates nothing', async () => {
    const user = await newUser();
    const ws = await t.services.workspaces.create({ name: 'Owned', ownerId: user.id });
    expect(await t.services.workspaces.members(ws.id)).toEqual([{ userId: user.id, email: user.email, name: null, role: 'owner' }]);
    const before = (await t.services.workspaces.list()).length;
    await expect(t.services.workspaces.create({ name: 'Orphan', ownerId: 'no-such-user' })).rejects.toMatchObject({ statusCode: 404 });
    expect(await t.services.workspaces.list()).toHaveLength(before);
  });

  it('delete is refused while the workspace has channels or media files, then removes it with its members and keys', async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    const uploaded = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      ...fileBody(png(3, 3, [5, 6, 7]), 'a.png'),
    });
    expect(uploaded.statusCode).toBe(200);
    await expect(t.services.workspaces.delete(tenant.workspaceId)).rejects.toMatchObject({
      statusCode: 409,
      code: 'workspace_not_empty',
      message: expect.stringMatching(/still has 1 channel\(s\) and 1 media file\(s\); delete them first/),
    });
    // A deleted channel keeps its posts, so it still holds the workspace until it is purged.
    await t.services.channels.delete(tenant.workspaceId, tenant.channelId);
    await expect(t.services.workspaces.delete(tenant.workspaceId)).rejects.toMatchObject({ statusCode: 409, code: 'workspace_not_empty' });
    await t.services.channels.delete(tenant.workspaceId, tenant.channelId, { purge: true });
    expect((await t.request({ method: 'DELETE', url: `/public/v1/media/${uploaded.json().id}`, key: tenant.key })).statusCode).toBe(200);
    await expect(t.services.workspaces.delete(tenant.workspaceId)).resolves.toMatchObject({ id: tenant.workspaceId });
    expect((await t.services.workspaces.list()).map((w) => w.id)).not.toContain(tenant.workspaceId);
    // The member's key now reaches no workspace.
    expect((await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).statusCode).toBe(403);
    await expect(t.services.workspaces.delete(tenant.workspaceId)).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('users', () => {
  it('delete is refused for the only owner of a workspace; once another owner exists, the user and their keys go', async () => {
    const tenant = await createTenant(t);
    const user = await t.services.users.get(tenant.userId);
    await expect(t.services.users.delete(user.email)).rejects.toMatchObject({
      statusCode: 409,
      code: 'sole_owner',
      message: expect.stringMatching(/is the only owner of workspace/),
    });
    const second = await newUser();
    await t.services.workspaces.addMember(tenant.workspaceId, second.id, 'owner');
    await expect(t.services.users.delete(user.email)).resolves.toMatchObject({ id: user.id });
    expect((await t.services.users.list()).map((u) => u.id)).not.toContain(user.id);
    expect(await t.services.apiKeys.list(user.id)).toEqual([]);
    expect((await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).statusCode).toBe(401);
    expect(await t.services.workspaces.members(tenant.workspaceId)).toEqual([
      expect.objectContaining({ userId: second.id, role: 'owner' }),
    ]);
  });
});

describe('channels', () => {
  it('disabled by the operator, a channel refuses new posts until it is enabled again with its configuration', async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    await expect(t.services.channels.disableByOperator(tenant.workspaceId, tenant.channelId)).resolves.toMatchObject({
      disabled: true,
      disabledReason: 'disabled_by_operator',
    });
    const refused = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: postBody(tenant.channelId) as unknown as Record<string, unknown>,
    });
    expect(refused.statusCode).toBe(400);
    await expect(t.services.channels.enable(tenant.workspaceId, tenant.channelId)).resolves.toMatchObject({
      disabled: false,
      disabledReason: null,
    });
    expect(await t.services.channels.config(tenant.workspaceId, tenant.channelId)).toEqual({
      url: 'https://hooks.example.test/in',
      secret: TEST_WEBHOOK_SECRET,
    });
    await createOk(t, tenant, postBody(tenant.channelId));
  });

  it('delete is refused while posts are scheduled on the channel; drafts stay with the deleted channel until it is purged', async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    const [scheduled] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-04-02T10:00:00Z' }));
    const [draft] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    await expect(t.services.channels.delete(tenant.workspaceId, tenant.channelId)).rejects.toMatchObject({
      statusCode: 409,
      code: 'channel_has_scheduled_posts',
      message: expect.stringMatching(/has 1 post\(s\) scheduled or publishing/),
    });
    expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${scheduled!.postId}`, key: tenant.key })).statusCode).toBe(200);
    await t.services.channels.delete(tenant.workspaceId, tenant.channelId);
    expect(await t.services.channels.list(tenant.workspaceId)).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}`, key: tenant.key })).statusCode).toBe(200);
    await t.services.channels.delete(tenant.workspaceId, tenant.channelId, { purge: true });
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}`, key: tenant.key })).statusCode).toBe(404);
    // Another workspace's channel is a 404, never deleted.
    const other = await webhookTenant(t, 'https://hooks.example.test/in');
    await expect(t.services.channels.delete(tenant.workspaceId, other.channelId)).rejects.toMatchObject({ statusCode: 404 });
    expect(await t.services.channels.list(other.workspaceId)).toHaveLength(1);
  });
});
