import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ChannelsService } from '../../src/channels/channels.service.ts';
import { createOutboundClient } from '../../src/net/outbound.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { recorder, resolver } from '../helpers/outbound.ts';
import { createOk, getPost, postBody } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const OTHER_SECRET = 'whsec_b3RoZXIgc2VjcmV0IGZvciB0aGUgdGVzdA==';

describe('a channel configuration URL the outbound policy refuses', () => {
  let t: TestApp;
  let connections: ReturnType<typeof recorder>;

  beforeAll(async () => {
    // No real lookup and no real connection: `inside.test` resolves to loopback, `public.test` to a public address.
    connections = recorder();
    const outbound = createOutboundClient({
      lookup: resolver({ 'inside.test': ['127.0.0.1'], 'public.test': ['93.184.216.34'] }).lookup,
      connector: connections.connector,
    });
    t = await createTestApp({ engine: true, outbound });
  });

  it('is refused when the channel is created, naming the field and OUTBOUND_ALLOW_LOOPBACK for loopback', async () => {
    const { workspaceId } = await createTenant(t);
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost:3000/hook', 'http://[::1]/hook', 'http://app.localhost/hook']) {
      const attempt = t.services.channels.create(workspaceId, {
        provider: 'webhook',
        name: 'Local',
        config: { url, secret: TEST_WEBHOOK_SECRET },
      });
      await expect(attempt, url).rejects.toMatchObject({
        statusCode: 400,
        code: 'outbound_refused',
        message: expect.stringMatching(
          /^The webhook configuration's url cannot be used: Refused to connect: .*loopback address.*OUTBOUND_ALLOW_LOOPBACK=true/,
        ),
      });
    }
    // A private address is refused too, and no setting lets it through, so none is named.
    const privateAttempt = t.services.channels.create(workspaceId, {
      provider: 'webhook',
      name: 'Lan',
      config: { url: 'http://10.0.0.7/hook', secret: TEST_WEBHOOK_SECRET },
    });
    await expect(privateAttempt).rejects.toMatchObject({ statusCode: 400, message: expect.not.stringMatching(/OUTBOUND_ALLOW_LOOPBACK/) });
    await expect(privateAttempt).rejects.toMatchObject({ message: expect.stringMatching(/10\.0\.0\.7 is a private address/) });
    // A Bluesky service is checked the same way.
    const bluesky = t.services.channels.create(workspaceId, {
      provider: 'bluesky',
      name: 'Sky',
      config: { service: 'http://127.0.0.1:2583', identifier: 'me.test', appPassword: 'abcd-efgh-ijkl-mnop' },
    });
    await expect(bluesky).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/bluesky configuration's service cannot be used/),
    });
    expect(await t.services.channels.list(workspaceId)).toEqual([]);
  });

  it('is refused when a channel is reconnected with it, and the stored configuration stays as it was', async () => {
    const { workspaceId } = await createTenant(t);
    const channel = await t.services.channels.create(workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: 'https://public.test/hook', secret: TEST_WEBHOOK_SECRET },
    });
    await expect(t.services.channels.reconnect(workspaceId, channel.id, { url: 'http://127.0.0.1/hook' })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/url cannot be used: .*OUTBOUND_ALLOW_LOOPBACK/),
    });
    expect(await t.services.channels.config(workspaceId, channel.id)).toEqual({
      url: 'https://public.test/hook',
      secret: TEST_WEBHOOK_SECRET,
    });
  });

  it('a name that resolves to a refused address at publish time is a rejection (the post fails), not an authentication failure', async () => {
    const tenant = await createTenant(t);
    // Names are resolved when a connection is made, so this one passes the check at creation.
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Inside',
      config: { url: 'http://inside.test/hook', secret: TEST_WEBHOOK_SECRET },
    });
    const [created] = await createOk(t, tenant, postBody(channel.id, { type: 'now' }));
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(post.error).toMatch(
      /^The webhook channel's url was not called\. Refused to connect: inside\.test resolves to 127\.0\.0\.1, a loopback address\. .*OUTBOUND_ALLOW_LOOPBACK=true/,
    );
    expect(post.error).not.toMatch(/credentials|reconnect/);
    // The channel stays enabled: nothing is wrong with its credentials.
    expect(await t.services.channels.get(tenant.workspaceId, channel.id)).toMatchObject({ disabled: false, disabledReason: null });
    const notifications = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json() as {
      notifications: Array<{ type: string }>;
    };
    expect(notifications.notifications.map((n) => n.type)).not.toContain('channel_disconnected');
    expect(connections.opened).toEqual([]);
  });
});

describe('local development: OUTBOUND_ALLOW_LOOPBACK=true', () => {
  it('accepts a loopback webhook URL, and still refuses a private one', async () => {
    const t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    const { workspaceId } = await createTenant(t);
    await expect(
      t.services.channels.create(workspaceId, {
        provider: 'webhook',
        name: 'Local',
        config: { url: 'http://127.0.0.1:8080/hook', secret: TEST_WEBHOOK_SECRET },
      }),
    ).resolves.toMatchObject({
      name: 'Local',
    });
    await expect(
      t.services.channels.create(workspaceId, {
        provider: 'webhook',
        name: 'Lan',
        config: { url: 'http://192.168.1.2/hook', secret: TEST_WEBHOOK_SECRET },
      }),
    ).rejects.toMatchObject({
      statusCode: 400,
    });
  });
});

describe('reconnecting a channel changes only what is given', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let moved: Awaited<ReturnType<typeof startWebhookReceiver>>;

  beforeAll(async () => {
    [receiver, moved] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
    t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  });

  it('a new url keeps the secret (which cannot be read back), and the channel is enabled again', async () => {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET, requireTitle: true },
    });
    await t.services.channels.disable(channel.id, 'needs_reconnect');

    const reconnected = await t.services.channels.reconnect(tenant.workspaceId, channel.id, { url: moved.url });
    expect(reconnected).toMatchObject({ disabled: false, disabledReason: null });
    expect(await t.services.channels.config(tenant.workspaceId, channel.id)).toEqual({
      url: moved.url,
      secret: TEST_WEBHOOK_SECRET,
      requireTitle: true,
    });

    // Deliveries go to the new URL, signed with the secret kept from before.
    const body = postBody(channel.id, { type: 'now' }, [{ content: '<p>moved</p>' }]);
    body.posts[0]!.settings = { __type: 'webhook', title: 'Moved' };
    const [created] = await createOk(t, tenant, body);
    await t.settle();
    expect((await getPost(t, tenant, created!.postId)).state).toBe('PUBLISHED');
    expect(moved.deliveries.filter((d) => d.body.data.postId === created!.postId)).toHaveLength(1);
    expect(receiver.deliveries.filter((d) => d.body.data.postId === created!.postId)).toHaveLength(0);
  });

  it('the configurations kept are the most recently used: past the limit, the least recently used is decrypted again', async () => {
    const tenant = await createTenant(t);
    const { db, clock, secretBox, outbound } = t.runtime;
    const channels = new ChannelsService({
      db,
      clock,
      baseUrl: t.config.baseUrl,
      secretBox,
      outbound,
      platformApps: t.services.channels.platformApps,
      notifications: t.services.notifications,
      postTransitions: t.services.postTransitions,
      webhookOutbox: t.services.webhookOutbox,
      maxOpened: 2,
    });
    const [a, b, c] = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        channels.create(tenant.workspaceId, { provider: 'webhook', name, config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET } }),
      ),
    );
    const opens = vi.spyOn(secretBox, 'open');
    try {
      const open = async (id: string) => {
        const before = opens.mock.calls.length;
        await channels.config(tenant.workspaceId, id);
        return opens.mock.calls.length - before;
      };
      expect([await open(a!.id), await open(b!.id), await open(a!.id)]).toEqual([1, 1, 0]);
      // C takes B's place (A was used after B), then B takes C's.
      expect([await open(c!.id), await open(a!.id), await open(b!.id), await open(a!.id), await open(c!.id)]).toEqual([1, 0, 1, 0, 1]);
    } finally {
      opens.mockRestore();
    }
  });

  it('a configuration is decrypted once per stored value and shared frozen; new credentials are used by the very next publish', async () => {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
    });
    const opens = vi.spyOn(t.runtime.secretBox, 'open');
    try {
      const first = await t.services.channels.config(tenant.workspaceId, channel.id);
      const again = await t.services.channels.config(tenant.workspaceId, channel.id);
      expect(again).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(opens).toHaveBeenCalledTimes(1);
      // Another workspace does not reach it through the cache either.
      const other = await createTenant(t);
      await expect(t.services.channels.config(other.workspaceId, channel.id)).rejects.toMatchObject({ statusCode: 404 });

      const publish = async (content: string) => {
        const [created] = await createOk(t, tenant, postBody(channel.id, { type: 'now' }, [{ content }]));
        await t.settle();
        expect((await getPost(t, tenant, created!.postId)).state).toBe('PUBLISHED');
        return created!.postId;
      };
      const before = await publish('<p>before</p>');
      expect(receiver.deliveries.filter((d) => d.body.data.postId === before)).toHaveLength(1);
      await t.services.channels.reconnect(tenant.workspaceId, channel.id, { url: moved.url, secret: OTHER_SECRET });
      const after = await publish('<p>after</p>');
      const [delivery] = moved.deliveries.filter((d) => d.body.data.postId === after);
      expect(receiver.deliveries.filter((d) => d.body.data.postId === after)).toHaveLength(0);
      const key = Buffer.from(OTHER_SECRET.slice('whsec_'.length), 'base64');
      expect(delivery!.signature).toBe(
        `v1,${createHmac('sha256', key).update(`${delivery!.id}.${delivery!.timestamp}.${delivery!.raw}`).digest('base64')}`,
      );
      expect(await t.services.channels.config(tenant.workspaceId, channel.id)).toEqual({ url: moved.url, secret: OTHER_SECRET });
    } finally {
      opens.mockRestore();
    }
  });

  it('null removes a field, nothing given only enables the channel, and a bad merged configuration is refused whole', async () => {
    const { workspaceId } = await createTenant(t);
    const channel = await t.services.channels.create(workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET, requireTitle: true },
    });
    await t.services.channels.reconnect(workspaceId, channel.id, { requireTitle: null, secret: OTHER_SECRET });
    expect(await t.services.channels.config(workspaceId, channel.id)).toEqual({ url: receiver.url, secret: OTHER_SECRET });

    await t.services.channels.disable(channel.id, 'needs_reconnect');
    expect(await t.services.channels.reconnect(workspaceId, channel.id)).toMatchObject({ disabled: false });
    expect(await t.services.channels.config(workspaceId, channel.id)).toEqual({ url: receiver.url, secret: OTHER_SECRET });

    await expect(t.services.channels.reconnect(workspaceId, channel.id, { secret: 'not-a-secret' })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/secret/),
    });
    await expect(t.services.channels.reconnect(workspaceId, channel.id, { url: null })).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/url/),
    });
    expect(await t.services.channels.config(workspaceId, channel.id)).toEqual({ url: receiver.url, secret: OTHER_SECRET });
  });
});
