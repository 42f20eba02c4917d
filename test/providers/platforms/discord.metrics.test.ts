// Discord's numbers (a bot channel's message reactions, the server's approximate member count)
// through the provider's metrics capability against the local Discord, and end to end through
// the collector and the analytics API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discordProvider } from '../../../src/providers/discord/discord.provider.ts';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import { ManualClock } from '../../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk, postBody } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { startFakeDiscord } from './fake-discord.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
let discord: Awaited<ReturnType<typeof startFakeDiscord>>;
let t: TestApp;
beforeAll(async () => {
  discord = await startFakeDiscord();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => {
  discord.state.readHistory = true;
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await discord?.close();
});

const metrics = discordProvider.metrics!;
const bot = (guild = true) => ({
  botToken: discord.botToken,
  channelId: discord.channelId,
  ...(guild && { guildId: discord.guildId }),
  apiBase: discord.apiBase,
});
const reaction = (name: string, normal: number, burst = 0) => ({
  emoji: { id: null, name },
  count: normal + burst,
  count_details: { normal, burst },
});

describe('Discord metrics', () => {
  it("sums a message's reactions (normal and super) as likes; a message without any has 0; a deleted one is absent", async () => {
    const ctx = providerContext(bot());
    const post = await discordProvider.publish(ctx, publishInput({ text: 'Launch' }));
    const quiet = await discordProvider.publish(ctx, publishInput({ text: 'Quiet' }));
    discord.messages.find((m) => m.id === post.id)!.reactions = [reaction('🎉', 3, 1), reaction('👍', 2)];
    const read = async (ref: { id: string; meta?: Record<string, unknown> }) => (await metrics.posts(ctx, [ref])).get(ref.id);
    expect(await read(post)).toEqual({ metrics: { likes: 6 }, raw: { reactions: 6 } });
    expect(await read(quiet)).toEqual({ metrics: { likes: 0 }, raw: { reactions: 0 } });
    expect(await read({ id: '1999999999999999999' })).toBeUndefined();
    discord.messages.find((m) => m.id === post.id)!.reactions = [reaction('🎉', 9)];
    expect((await read(post))?.metrics).toEqual({ likes: 9 });
  });

  it("reads the server's approximate member count as followers (finding the server from the channel when not configured)", async () => {
    discord.state.members = 321;
    expect(await metrics.account(providerContext(bot()))).toEqual({ metrics: { followers: 321 }, raw: { approximate_member_count: 321 } });
    discord.state.members = 322;
    expect((await metrics.account(providerContext(bot(false)))).metrics).toEqual({ followers: 322 });
  });

  it('a bot without Read Message History is a permission refusal; 429 is rate_limited with the wait; webhook channels read nothing', async () => {
    const ctx = providerContext(bot());
    const post = await discordProvider.publish(ctx, publishInput({ text: 'Permissions' }));
    discord.state.readHistory = false;
    const refused = await providerFailure(metrics.posts(ctx, [post]));
    expect(refused).toBeInstanceOf(MetricsPermissionError);
    expect(refused.message).toContain('Read Message History');
    discord.state.readHistory = true;
    discord.failNext(429, { message: 'You are being rate limited.', retry_after: 2.5, global: false });
    expect(await providerFailure(metrics.posts(ctx, [post]))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 2500 } });

    const hook = providerContext({ webhookUrl: discord.webhookUrl });
    expect((await metrics.posts(hook, [post])).size).toBe(0);
    expect(await metrics.account(hook)).toEqual({ metrics: {}, raw: {} });
  });
});

describe('Discord numbers through the collector and the API', () => {
  it('collects a bot channel post, and a change on Discord changes the answer', async () => {
    const w = await createTenant(t);
    const channel = await t.services.channels.create(w.workspaceId, { provider: 'discord', name: 'Announcements', config: bot() });
    const [created] = await createOk(
      t,
      w,
      postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [{ content: '<p>Hello</p>' }]),
    );
    await t.settle();
    const message = discord.messages.at(-1)!;
    message.reactions = [reaction('🚀', 2)];
    discord.state.members = 77;
    await t.services.analytics.collector.collectDue();
    const read = async () => {
      const res = await t.request({ method: 'GET', url: `/public/v1/analytics/posts/${created!.postId}`, key: w.key });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    expect(await read()).toMatchObject({ identifier: 'discord', published: true, metrics: { likes: 2 } });
    message.reactions = [reaction('🚀', 2), reaction('❤️', 3)];
    clock.advance(3_600_000);
    await t.services.analytics.collector.collectDue();
    const second = await read();
    expect(second.metrics).toEqual({ likes: 5 });
    expect(second.parts[0].history.map((h: { metrics: { likes: number } }) => h.metrics.likes)).toEqual([2, 5]);
    const range = 'startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z';
    const account = await t.request({ method: 'GET', url: `/public/v1/analytics/channels/${channel.id}?${range}`, key: w.key });
    expect(account.statusCode, account.body).toBe(200);
    expect(account.json().account).toEqual({ followers: 77 });
  });
});
