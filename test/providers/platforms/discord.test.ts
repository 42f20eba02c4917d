import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discordProvider } from '../../../src/providers/discord/discord.provider.ts';
import { createTenant, createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk } from '../../helpers/posts.ts';
import { png } from '../../helpers/media-files.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { startFakeDiscord } from './fake-discord.ts';
import { publishThreadThroughApi } from './platform-e2e.ts';
import { NO_PLATFORM_APPS } from '../../helpers/providers.ts';

let discord: Awaited<ReturnType<typeof startFakeDiscord>>;
let t: TestApp;
beforeAll(async () => {
  discord = await startFakeDiscord();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await discord?.close();
});

const bot = () => ({ botToken: discord.botToken, channelId: discord.channelId, guildId: discord.guildId, apiBase: discord.apiBase });

describe('discord provider', () => {
  it("converts HTML to Discord markdown, escaping the post's own formatting characters, and counts code points", () => {
    expect(discordProvider.toText('<p><strong>Big</strong> 2*3 <a href="https://e.com/x">notes</a></p><ul><li>a_b</li></ul>')).toBe(
      '**Big** 2\\*3 [notes](<https://e.com/x>)\n\n- a\\_b',
    );
    expect(discordProvider.countText('é🎉')).toBe(2);
    const tooLong = discordProvider.validate({
      text: 'x'.repeat(2001),
      media: [],
      settings: {},
      part: 0,
      config: bot(),
      platformApps: NO_PLATFORM_APPS,
    });
    expect(tooLong).toEqual([{ field: 'value[0].content', reason: 'The text is 2001 characters long; Discord allows 2000.' }]);
    expect(
      discordProvider.validate({
        text: 'hi',
        media: [],
        settings: { username: 'X' },
        part: 0,
        config: bot(),
        platformApps: NO_PLATFORM_APPS,
      })[0]?.field,
    ).toBe('settings.username');
  });

  it('bot: posts with an attachment, replies with message_reference, and a repeated nonce gives the same message', async () => {
    const ctx = providerContext(bot());
    const bytes = png(10, 10);
    const input = publishInput({ text: 'With a picture', media: [mediaItem(bytes, { name: 'pic.png' })], settings: { alt: {} } });
    input.settings = { alt: { [input.media[0]!.id]: 'A square' } };
    const root = await discordProvider.publish(ctx, input);
    expect(root.url).toBe(`https://discord.com/channels/${discord.guildId}/${discord.channelId}/${root.id}`);
    const stored = discord.messages.find((m) => m.id === root.id)!;
    expect(stored.attachments.map((a) => [a.filename, a.description, a.bytes.equals(bytes)])).toEqual([['pic.png', 'A square', true]]);
    expect(stored.allowed_mentions).toEqual({ parse: ['users'] });
    // The same part again (an immediate retry): Discord deduplicates on the nonce.
    expect((await discordProvider.publish(ctx, input)).id).toBe(root.id);
    const reply = await discordProvider.comment(ctx, publishInput({ postId: input.postId, part: 1, text: 'A reply', root, parent: root }));
    expect(discord.messages.find((m) => m.id === reply.id)!.message_reference).toEqual({ message_id: root.id });
  });

  it('bot: a lost answer is sent once more with the same nonce, and Discord gives back the message it made; a webhook reports it unconfirmed', async () => {
    const before = discord.messages.length;
    discord.dropNextAnswer();
    const ref = await discordProvider.publish(providerContext(bot()), publishInput({ text: 'Lost answer' }));
    expect(discord.messages.slice(before).map((m) => [m.id, m.content])).toEqual([[ref.id, 'Lost answer']]);
    discord.dropNextAnswer();
    await expect(
      discordProvider.publish(providerContext({ webhookUrl: discord.webhookUrl }), publishInput({ text: 'Lost webhook answer' })),
    ).rejects.toMatchObject({ kind: 'unknown_outcome' });
    expect(discordProvider.idempotentWrites).toBe(false);
  });

  it("maps Discord's errors: 429 retry_after, 5xx, 401 auth, 404 unknown webhook auth, 400 with Discord's message", async () => {
    const ctx = providerContext(bot());
    discord.failNext(429, { message: 'You are being rate limited.', retry_after: 1.5, global: false }, { 'retry-after': '2' });
    await expect(discordProvider.publish(ctx, publishInput())).rejects.toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 1500 },
    });
    discord.failNext(502, { message: 'Bad gateway' });
    await expect(discordProvider.publish(ctx, publishInput())).rejects.toMatchObject({ kind: 'transient' });
    await expect(
      discordProvider.publish(providerContext({ ...bot(), botToken: 'AAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCC' }), publishInput()),
    ).rejects.toMatchObject({ kind: 'auth' });
    await expect(
      discordProvider.publish(providerContext({ webhookUrl: discord.webhookUrl.replace(/\/[^/]+$/, '/wrong-token-123') }), publishInput()),
    ).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('Unknown Webhook') });
    discord.failNext(400, {
      code: 50035,
      message: 'Invalid Form Body',
      errors: { content: { _errors: [{ code: 'X', message: 'Must be 2000 or fewer in length.' }] } },
    });
    await expect(discordProvider.publish(ctx, publishInput())).rejects.toMatchObject({
      kind: 'rejected',
      message: 'Discord refused the message: Invalid Form Body (content: Must be 2000 or fewer in length.)',
    });
  });

  it('connectAccount reads the webhook, or the channel and the bot; listChannels lists text and announcement channels', async () => {
    await expect(discordProvider.connectAccount!(providerContext({ webhookUrl: discord.webhookUrl }))).resolves.toEqual({
      internalId: discord.channelId,
      name: 'Herald hook',
      handle: null,
      picture: expect.stringMatching(/^https:\/\/cdn\.discordapp\.com\/avatars\/\d+\/abc123\.png$/),
    });
    await expect(discordProvider.connectAccount!(providerContext(bot()))).resolves.toMatchObject({
      internalId: discord.channelId,
      name: '#announcements',
      handle: 'herald-bot',
    });
    await expect(
      discordProvider.connectAccount!(providerContext({ ...bot(), botToken: 'AAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCC' })),
    ).rejects.toMatchObject({ kind: 'auth' });
    const listed = (await discordProvider.tools.listChannels!.run(providerContext(bot()), {})) as { channels: Array<{ name: string }> };
    expect(listed.channels.map((c) => c.name)).toEqual(['announcements', 'news']);
  });

  it('refuses an apiBase the outbound policy forbids, as a rejection rather than an auth failure', async () => {
    const ctx = providerContext(bot(), { outbound: { allowLoopback: false } });
    await expect(discordProvider.publish(ctx, publishInput())).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/loopback/),
    });
  });

  it('through the API: the settings as JSON Schema, and a message over 2,000 characters reported as missing', async () => {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, { provider: 'discord', name: 'Discord', config: bot() });
    const settings = (await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channel.id}`, key: tenant.key })).json();
    expect(settings.settings.properties.mentions).toMatchObject({ enum: ['none', 'users', 'all'], default: 'users' });
    expect(settings.tools.map((tool: { name: string }) => tool.name)).toEqual(['listChannels']);
    const [draft] = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-01T00:00:00Z',
      posts: [{ integration: { id: channel.id }, value: [{ content: `<p>${'é'.repeat(2001)}</p>` }] }],
    });
    const report = (await t.request({ method: 'GET', url: `/public/v1/posts/${draft!.postId}/missing`, key: tenant.key })).json();
    expect(report.missing).toEqual([{ field: 'value[0].content', reason: 'The text is 2001 characters long; Discord allows 2000.' }]);
    const listed = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${channel.id}`,
      key: tenant.key,
      payload: { methodName: 'listChannels', data: {} },
    });
    expect(listed.statusCode, listed.body).toBe(200);
  });

  for (const mode of ['webhook', 'bot'] as const) {
    it(`end to end (${mode}): a post with an image and two comments, published by the engine`, async () => {
      const before = discord.messages.length;
      const { post, settingsSchema } = await publishThreadThroughApi(
        t,
        'discord',
        mode === 'bot' ? bot() : { webhookUrl: discord.webhookUrl, guildId: discord.guildId },
      );
      expect(settingsSchema).toMatchObject({ identifier: 'discord', textLimit: { max: 2000, unit: 'characters' } });
      const sent = discord.messages.slice(before);
      expect(sent.map((m) => m.content)).toEqual([
        'Launch **day**: [the notes](<https://example.com/launch>)',
        'First comment',
        'Second comment',
      ]);
      expect(sent[0]!.attachments.map((a) => [a.filename, a.content_type])).toEqual([['banner.png', 'image/png']]);
      expect(post.releaseId).toBe(sent[0]!.id);
      expect(post.releaseURL).toBe(`https://discord.com/channels/${discord.guildId}/${discord.channelId}/${sent[0]!.id}`);
      if (mode === 'bot') {
        // Each comment replies to the part before it.
        expect(sent.map((m) => m.message_reference?.message_id)).toEqual([undefined, sent[0]!.id, sent[1]!.id]);
      } else {
        // Webhooks cannot reply: the comments follow in the channel, from the same webhook.
        expect(sent.every((m) => m.webhook_id && !m.message_reference)).toBe(true);
      }
    });
  }
});
