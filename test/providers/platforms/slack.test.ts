import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackProvider } from '../../../src/providers/slack/slack.provider.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { png } from '../../helpers/media-files.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { startFakeSlack } from './fake-slack.ts';
import { publishThreadThroughApi } from './platform-e2e.ts';
import { NO_PLATFORM_APPS } from '../../helpers/providers.ts';

let slack: Awaited<ReturnType<typeof startFakeSlack>>;
let t: TestApp;
beforeAll(async () => {
  slack = await startFakeSlack();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await slack?.close();
});

const config = () => ({ botToken: slack.botToken, channel: slack.channel, apiBase: slack.apiBase });

describe('slack provider', () => {
  it("converts HTML to mrkdwn with Slack's three escapes", () => {
    expect(
      slackProvider.toText(
        '<p><strong>Big</strong> &amp; <em>small</em> a&lt;b <a href="https://e.com/x">notes</a></p><ul><li>one</li></ul>',
      ),
    ).toBe('*Big* &amp; _small_ a&lt;b <https://e.com/x|notes>\n\n• one');
    expect(
      slackProvider.validate({
        text: 'x',
        media: [{ id: 'm', url: 'u', name: 'v.mp4', mimeType: 'video/mp4', size: 1, width: null, height: null }],
        settings: {},
        part: 0,
        config: config(),
        platformApps: NO_PLATFORM_APPS,
      })[0]?.field,
    ).toBe('value[0].image[0]');
  });

  it('uploads an image through the external upload flow and posts it in image blocks; comments go in the thread', async () => {
    const ctx = providerContext(config());
    const bytes = png(12, 12);
    const input = publishInput({ text: 'With a picture', media: [mediaItem(bytes, { name: 'pic.png' })] });
    input.settings = { alt: { [input.media[0]!.id]: 'A square' } };
    const root = await slackProvider.publish(ctx, input);
    const posted = slack.messages.find((m) => m.ts === root.id)!;
    const image = posted.blocks!.find((b) => b.type === 'image')!;
    const file = slack.files.get((image.slack_file as { id: string }).id)!;
    expect(file.bytes!.equals(bytes)).toBe(true);
    expect([file.alt, image.alt_text]).toEqual(['A square', 'A square']);
    expect(posted.blocks![0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'With a picture' } });
    const reply = await slackProvider.comment(
      ctx,
      publishInput({ postId: input.postId, part: 1, text: 'In the thread', root, parent: root }),
    );
    expect(slack.messages.find((m) => m.ts === reply.id)!.thread_ts).toBe(root.id);
  });

  it("maps Slack's errors: ratelimited with Retry-After, auth errors, other codes rejected in a sentence, 5xx transient", async () => {
    const ctx = providerContext(config());
    slack.failNext(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '30' });
    await expect(slackProvider.publish(ctx, publishInput())).rejects.toMatchObject({
      kind: 'rate_limited',
      options: { retryAfterMs: 30_000 },
    });
    for (const error of ['invalid_auth', 'token_revoked', 'account_inactive']) {
      slack.failNext(200, { ok: false, error });
      await expect(slackProvider.publish(ctx, publishInput())).rejects.toMatchObject({
        kind: 'auth',
        message: expect.stringContaining(error),
      });
    }
    slack.failNext(200, { ok: false, error: 'not_in_channel' });
    await expect(slackProvider.publish(ctx, publishInput())).rejects.toMatchObject({
      kind: 'rejected',
      message: 'Slack refused the message: the bot is not a member of the channel (invite it with /invite @your-bot) (not_in_channel).',
    });
    slack.failNext(503, { ok: false, error: 'service_unavailable' });
    await expect(slackProvider.publish(ctx, publishInput())).rejects.toMatchObject({ kind: 'transient' });
  });

  it('connectAccount checks the token and the channel; listChannels pages through conversations.list', async () => {
    await expect(slackProvider.connectAccount!(providerContext(config()))).resolves.toEqual({
      internalId: slack.channel,
      name: '#launches',
      handle: 'herald',
      picture: null,
    });
    await expect(slackProvider.connectAccount!(providerContext({ ...config(), channel: 'C0NOWHERE1' }))).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringContaining('channel_not_found'),
    });
    await expect(slackProvider.connectAccount!(providerContext({ ...config(), botToken: 'xoxb-0000000000-wrong' }))).rejects.toMatchObject({
      kind: 'auth',
    });
    const listed = (await slackProvider.tools.listChannels!.run(providerContext(config()), { includePrivate: true })) as {
      channels: Array<{ id: string; isMember: boolean }>;
    };
    expect(listed.channels).toEqual([
      { id: slack.channel, name: 'launches', isMember: true, isPrivate: false },
      { id: 'C0OTHER002', name: 'random', isMember: false, isPrivate: false },
    ]);
  });

  it('end to end: a post with an image and two comments in its thread, published by the engine', async () => {
    const before = slack.messages.length;
    const { post, settingsSchema } = await publishThreadThroughApi(t, 'slack', config());
    expect(settingsSchema).toMatchObject({ identifier: 'slack', textLimit: { max: 40000, unit: 'characters' } });
    const sent = slack.messages.slice(before);
    expect(sent.map((m) => m.text)).toEqual(['Launch *day*: <https://example.com/launch|the notes>', 'First comment', 'Second comment']);
    expect(sent[0]!.blocks!.map((b) => b.type)).toEqual(['section', 'image']);
    expect(sent.map((m) => m.thread_ts)).toEqual([undefined, sent[0]!.ts, sent[0]!.ts]);
    expect(post.releaseId).toBe(sent[0]!.ts);
    expect(post.releaseURL).toBe(`https://herald-hq.slack.com/archives/${slack.channel}/p${sent[0]!.ts.replace('.', '')}`);
  });
});
