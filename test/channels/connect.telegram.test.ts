// Connecting a Telegram channel through the API and publishing to it, end to end against a
// local server speaking the Bot API.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError, type Provider } from '../../src/providers/provider.ts';
import { telegramProvider } from '../../src/providers/telegram/telegram.provider.ts';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { createOk, getPost, postBody } from '../helpers/posts.ts';
import { FakeBotApi } from '../providers/telegram/fake-bot-api.ts';

let t: TestApp;
let bot: FakeBotApi;
beforeAll(async () => {
  bot = await new FakeBotApi().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(() => bot.stop());

const connect = (tenant: Tenant, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });
const telegram = (extra: Record<string, unknown> = {}) => ({
  provider: 'telegram',
  botToken: bot.token,
  chatId: '@heraldnews',
  apiBase: bot.url,
  ...extra,
});

async function connected(tenant: Tenant, extra: Record<string, unknown> = {}) {
  const res = await connect(tenant, telegram(extra));
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { integration: { id: string; name: string; profile: string; identifier: string }; reconnected: boolean };
}

async function listed(tenant: Tenant) {
  return (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<{
    id: string;
    name: string;
    profile: string;
  }>;
}

describe('connecting through the API', () => {
  it("checks the token live and creates the channel with the chat's real name and handle; again, it reconnects the same channel", async () => {
    const tenant = await createTenant(t);
    const first = await connected(tenant);
    expect(first).toMatchObject({
      reconnected: false,
      integration: { name: 'Herald News', profile: 'heraldnews', identifier: 'telegram' },
    });
    expect(bot.calls.filter((c) => c.method === 'getMe').length).toBeGreaterThan(0);
    // Kept by its numeric id, which survives a change of @username.
    expect(await t.services.channels.config(tenant.workspaceId, first.integration.id)).toMatchObject({ chatId: '-1001234567890' });
    const again = await connected(tenant, { chatId: '-1001234567890' });
    expect(again).toMatchObject({ reconnected: true, integration: { id: first.integration.id } });
    expect((await listed(tenant)).map((c) => c.id)).toEqual([first.integration.id]);
  });

  it("a wrong token is a 400 with Telegram's reason, and nothing is stored", async () => {
    const tenant = await createTenant(t);
    const res = await connect(tenant, telegram({ botToken: '4242424242:AAH-wrong-token-wrong-token-wrong' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'platform_refused' });
    expect(res.json().msg).toContain('Unauthorized');
    expect(res.json().msg).not.toContain('AAH-wrong');
    expect(await listed(tenant)).toEqual([]);
  });

  it('refuses a chat the bot cannot post to, unknown fields, and malformed credentials', async () => {
    const tenant = await createTenant(t);
    const notMember = await connect(tenant, telegram({ chatId: '-1005555555555' }));
    expect(notMember.statusCode).toBe(400);
    expect(notMember.json().msg).toMatch(/^Telegram cannot be connected: The bot is not a member of "Not Ours"/);
    const unknown = await connect(tenant, telegram({ webhookUrl: 'https://x.test' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().msg).toContain('webhookUrl');
    const malformed = await connect(tenant, telegram({ botToken: 'nope' }));
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('invalid_config');
    const privateBase = await connect(tenant, telegram({ apiBase: 'http://10.0.0.7:8081' }));
    expect(privateBase.statusCode).toBe(400);
    expect(privateBase.json().code).toBe('outbound_refused');
    const noProvider = await connect(tenant, { provider: 'myspace' });
    expect(noProvider.statusCode).toBe(400);
    expect(await listed(tenant)).toEqual([]);
  });

  it("needs channels:write, refuses channel-limited keys, and respects the plan's channel quota (402)", async () => {
    const reader = await createTenant(t, { scopes: ['channels:read'] });
    expect((await connect(reader, telegram())).statusCode).toBe(403);
    const limited = await createTenant(t, { channelIds: ['ch_x'] });
    expect((await connect(limited, telegram())).statusCode).toBe(403);
    const editor = await createTenant(t, { role: 'editor' });
    expect((await connect(editor, telegram())).statusCode).toBe(403);

    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 1 });
    await connected(tenant);
    const full = await connect(tenant, telegram({ chatId: '-1009876543210' }));
    expect(full.statusCode).toBe(402);
    // Reconnecting an account already there needs no new channel.
    expect((await connected(tenant)).reconnected).toBe(true);
  });

  it('the operator command path still creates Telegram channels (config checked by the same schema)', async () => {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'telegram',
      name: 'Ops',
      config: { botToken: bot.token, chatId: -1009876543210, apiBase: bot.url },
    });
    expect(channel.provider).toBe('telegram');
    await expect(
      t.services.channels.create(tenant.workspaceId, { provider: 'telegram', name: 'Bad', config: { botToken: bot.token } }),
    ).rejects.toThrow(/chatId/);
  });
});

describe('publishing to Telegram', () => {
  it('a post with an image and two comments: a photo with its HTML caption, then the comments as a chain of replies', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const uploaded = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      ...fileBody(png(40, 20), 'banner.png', 'image/png'),
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const image = uploaded.json() as { id: string; path: string };
    const [created] = await createOk(
      t,
      tenant,
      postBody(integration.id, { type: 'now' }, [
        {
          content:
            '<h1>Launch</h1><p>We <strong>ship</strong> today &amp; <a href="https://example.com/x">read more</a></p><ul><li>fast</li><li>small</li></ul>',
          image: [{ id: image.id, path: image.path }],
        },
        { content: '<p>First <em>comment</em></p>' },
        { content: '<p>Second comment &lt;3</p>' },
      ]),
    );
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post.state, post.error ?? '').toBe('PUBLISHED');
    expect(post.releaseURL).toBe(`https://t.me/heraldnews/${post.releaseId}`);

    const photo = bot.find(post.releaseId!)!;
    expect(photo.photo).toBeDefined();
    expect(photo.uploads).toEqual([{ name: 'banner.png', type: 'image/png', size: expect.any(Number) }]);
    expect(photo.shown).toBe('Launch\n\nWe ship today & read more\n\n• fast\n• small');
    expect(photo.tags).toEqual(['b', 'b', 'a']);
    const [first, second] = post.value.slice(1).map((v) => bot.find(v.releaseId!)!);
    expect(first).toMatchObject({ shown: 'First comment', tags: ['i'], reply_to_message: { message_id: photo.message_id } });
    expect(second).toMatchObject({ shown: 'Second comment <3', reply_to_message: { message_id: first!.message_id } });
  });

  it('an album for several images; a caption over 1,024 characters is reported as missing before anything is sent', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const files = [];
    for (const rgb of [
      [1, 2, 3],
      [4, 5, 6],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: '/public/v1/upload',
        key: tenant.key,
        ...fileBody(png(8, 8, [...rgb]), `a${rgb[0]}.png`, 'image/png'),
      });
      files.push(res.json() as { id: string; path: string });
    }
    const [album] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }, [{ content: '<p>Two</p>', image: files }]));
    await t.settle();
    const published = await getPost(t, tenant, album!.postId);
    expect(published.state, published.error ?? '').toBe('PUBLISHED');
    const group = bot.messages.filter((m) => m.media_group_id && m.media_group_id === bot.find(published.releaseId!)!.media_group_id);
    expect(group).toHaveLength(2);
    expect(group[0]!.shown).toBe('Two');

    const [long] = await createOk(
      t,
      tenant,
      postBody(integration.id, { type: 'draft' }, [{ content: `<p>${'x'.repeat(1025)}</p>`, image: [files[0]!] }]),
    );
    const missing = (await t.request({ method: 'GET', url: `/public/v1/posts/${long!.postId}/missing`, key: tenant.key })).json();
    expect(missing.missing).toEqual([
      expect.objectContaining({ field: 'value[0].content', reason: expect.stringMatching(/1024 characters; it has 1025/) }),
    ]);
  });

  it('a revoked bot disables the channel as needing reconnection and notifies; reconnecting keeps the id', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    bot.on(({ method }) =>
      method === 'sendMessage'
        ? { status: 403, body: { ok: false, error_code: 403, description: 'Forbidden: bot was kicked from the channel chat' } }
        : undefined,
    );
    const [created] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }));
    await t.settle();
    bot.reset();
    const post = await getPost(t, tenant, created!.postId);
    expect(post.state).toBe('ERROR');
    expect(post.error).toContain('bot was kicked');
    const [channel] = await listed(tenant);
    expect(channel).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('bot was kicked');

    const reconnect = await t.request({
      method: 'POST',
      url: `/public/v1/integrations/${integration.id}/reconnect`,
      key: tenant.key,
      payload: { botToken: bot.token },
    });
    expect(reconnect.statusCode, reconnect.body).toBe(200);
    expect(reconnect.json()).toMatchObject({ reconnected: true, integration: { id: integration.id, disabled: false } });
    const other = await t.request({
      method: 'POST',
      url: `/public/v1/integrations/${integration.id}/reconnect`,
      key: tenant.key,
      payload: { chatId: '-1009876543210' },
    });
    expect(other.statusCode).toBe(400);
    expect(other.json().code).toBe('different_account');
  });

  it('lists the chats the bot has seen with the recentChats tool', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const res = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${integration.id}`,
      key: tenant.key,
      payload: { methodName: 'recentChats' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().chats).toEqual(
      expect.arrayContaining([{ id: '-1001234567890', type: 'channel', title: 'Herald News', username: 'heraldnews' }]),
    );
  });
});

describe('changing and deleting channels', () => {
  it('PATCH renames, files under a group, and sets preferred settings checked against the schema', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const group = await t.services.groups.create(tenant.workspaceId, 'Client A');
    const patch = (payload: Record<string, unknown>) =>
      t.request({ method: 'PATCH', url: `/public/v1/integrations/${integration.id}`, key: tenant.key, payload });
    const renamed = await patch({ name: 'News', group: group.id, preferredSettings: { disableNotification: true } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'News', customer: { id: group.id } });
    const bad = await patch({ preferredSettings: { disableNotification: 'yes' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().msg).toContain('preferredSettings.disableNotification');
    expect((await patch({ group: 'nope' })).statusCode).toBe(404);
    expect((await patch({ color: 'red' })).statusCode).toBe(400);
    expect((await patch({ group: null })).json().customer).toBeNull();
    const settings = (await t.request({ method: 'GET', url: `/public/v1/integration-settings/${integration.id}`, key: tenant.key })).json();
    expect(settings.preferredSettings).toEqual({ disableNotification: true });

    // The preferred settings apply to a post that leaves them out.
    const [created] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }));
    await t.settle();
    const sent = bot.find((await getPost(t, tenant, created!.postId)).releaseId!)!;
    expect(sent).toBeDefined();
    expect(bot.calls.findLast((c) => c.method === 'sendMessage')!.params.disable_notification).toBe(true);

    const stranger = await createTenant(t);
    expect(
      (await t.request({ method: 'PATCH', url: `/public/v1/integrations/${integration.id}`, key: stranger.key, payload: { name: 'x' } }))
        .statusCode,
    ).toBe(404);
  });

  it('DELETE refuses with 409 naming the scheduled posts; force moves them to draft and deletes the channel, keeping them', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    const [scheduled] = await createOk(
      t,
      tenant,
      postBody(integration.id, { type: 'schedule', date: new Date(Date.now() + 30 * 86_400_000).toISOString() }),
    );
    const refused = await t.request({ method: 'DELETE', url: `/public/v1/integrations/${integration.id}`, key: tenant.key });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'channel_has_scheduled_posts', posts: [scheduled!.postId] });
    expect(refused.json().msg).toContain(scheduled!.postId);
    const stranger = await createTenant(t);
    expect(
      (await t.request({ method: 'DELETE', url: `/public/v1/integrations/${integration.id}?force=true`, key: stranger.key })).statusCode,
    ).toBe(404);

    const forced = await t.request({ method: 'DELETE', url: `/public/v1/integrations/${integration.id}?force=true`, key: tenant.key });
    expect(forced.statusCode, forced.body).toBe(200);
    expect(forced.json()).toMatchObject({ id: integration.id, deleted: true });
    expect(await listed(tenant)).toEqual([]);
    expect(await getPost(t, tenant, scheduled!.postId)).toMatchObject({ state: 'DRAFT' });
  });
});

describe('credentials that expire', () => {
  const provider = telegramProvider as { renewal?: Provider['renewal'] };
  afterEach(() => {
    delete provider.renewal;
  });

  it('are refreshed before use and stored; a refused refresh disables the channel as needing reconnection and notifies', async () => {
    const tenant = await createTenant(t);
    const { integration } = await connected(tenant);
    // Due until renewed: the renewed configuration carries the new chat id.
    provider.renewal = {
      due: (config) => config.chatId !== '-1009876543210',
      renew: async (ctx) => ({ ...ctx.config, chatId: '-1009876543210' }),
    };
    const [moved] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }));
    await t.settle();
    const sent = bot.find((await getPost(t, tenant, moved!.postId)).releaseId!)!;
    expect(sent.chat.id).toBe(-1009876543210);
    expect((await t.services.channels.config(tenant.workspaceId, integration.id)).chatId).toBe('-1009876543210');

    provider.renewal = {
      due: () => true,
      renew: async () => {
        throw new ProviderError('auth', 'the refresh token was revoked');
      },
    };
    const [refused] = await createOk(t, tenant, postBody(integration.id, { type: 'now' }));
    await t.settle();
    expect((await getPost(t, tenant, refused!.postId)).errorKind).toBe('auth');
    expect((await listed(tenant))[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json();
    expect(JSON.stringify(notes)).toContain('the refresh token was revoked');
  });
});
