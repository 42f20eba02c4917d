// Slack's numbers (reactions and thread replies per message, the channel's members) through the
// provider's metrics capability against the local Slack, and end to end through the collector
// and the analytics API.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slackProvider } from '../../../src/providers/slack/slack.provider.ts';
import { MetricsPermissionError } from '../../../src/providers/metrics.ts';
import { ManualClock } from '../../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk, postBody } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { startFakeSlack } from './fake-slack.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
let slack: Awaited<ReturnType<typeof startFakeSlack>>;
let t: TestApp;
beforeAll(async () => {
  slack = await startFakeSlack();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
beforeEach(() => {
  slack.scopes.add('reactions:read');
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await slack?.close();
});

const metrics = slackProvider.metrics!;
const config = () => ({ botToken: slack.botToken, channel: slack.channel, apiBase: slack.apiBase });
const ctx = () => providerContext(config());
const reaction = (name: string, count: number) => ({ name, count, users: Array.from({ length: count }, (_, i) => `U${i}`) });

describe('Slack metrics', () => {
  it("sums a message's reactions as likes and counts its thread's replies; a reply in a thread has no replies; a deleted message is absent", async () => {
    const post = await slackProvider.publish(ctx(), publishInput({ text: 'Launch day' }));
    const alone = await slackProvider.publish(ctx(), publishInput({ text: 'Nobody answers' }));
    const reply = await slackProvider.comment(ctx(), publishInput({ part: 1, text: 'In the thread', root: post, parent: post }));
    await slackProvider.comment(ctx(), publishInput({ part: 1, text: 'Another', root: post, parent: post }));
    const message = (ts: string) => slack.messages.find((m) => m.ts === ts)!;
    message(post.id).reactions = [reaction('tada', 3), reaction('+1', 2)];
    message(reply.id).reactions = [reaction('eyes', 1)];

    const read = async (refs: Array<{ id: string; meta?: Record<string, unknown> }>) => {
      const found = new Map();
      for (const ref of refs) for (const [id, reading] of await metrics.posts(ctx(), [ref])) found.set(id, reading);
      return found;
    };
    const readings = await read([post, alone, reply, { id: '1700000000.999999' }]);
    expect(readings.get(post.id)).toEqual({ metrics: { likes: 5, replies: 2 }, raw: { reactions: 5, reply_count: 2 } });
    expect(readings.get(alone.id)).toEqual({ metrics: { likes: 0, replies: 0 }, raw: { reactions: 0, reply_count: 0 } });
    expect(readings.get(reply.id)).toEqual({ metrics: { likes: 1 }, raw: { reactions: 1 } });
    expect(readings.has('1700000000.999999')).toBe(false);
    expect(metrics.batchSize).toBe(1);

    // The counts change on Slack: the next reading says so.
    message(post.id).reactions = [reaction('tada', 7)];
    expect((await read([post])).get(post.id)?.metrics).toEqual({ likes: 7, replies: 2 });
  });

  it("reads the channel's member count as followers", async () => {
    slack.setMembers(31);
    expect(await metrics.account(ctx())).toEqual({ metrics: { followers: 31 }, raw: { num_members: 31 } });
    slack.setMembers(32);
    expect((await metrics.account(ctx())).metrics).toEqual({ followers: 32 });
  });

  it('a token without reactions:read is a permission refusal naming the scope; 429 is rate_limited with the wait', async () => {
    const post = await slackProvider.publish(ctx(), publishInput({ text: 'Scopes' }));
    slack.scopes.delete('reactions:read');
    const refused = await providerFailure(metrics.posts(ctx(), [post]));
    expect(refused).toBeInstanceOf(MetricsPermissionError);
    expect(refused.message).toContain('reactions:read');
    slack.scopes.add('reactions:read');
    slack.failNext(429, { ok: false, error: 'ratelimited' }, { 'retry-after': '30' });
    expect(await providerFailure(metrics.posts(ctx(), [post]))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 30_000 } });
  });
});

describe('Slack numbers through the collector and the API', () => {
  it('collects a published post and its comment, and a change on Slack changes the answer', async () => {
    const w = await createTenant(t);
    const channel = await t.services.channels.create(w.workspaceId, { provider: 'slack', name: 'Launches', config: config() });
    const [created] = await createOk(
      t,
      w,
      postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [
        { content: '<p>Hello Slack</p>' },
        { content: '<p>More</p>', delay: 0 },
      ]),
    );
    await t.settle();
    const [root, comment] = slack.messages.slice(-2);
    expect(comment!.thread_ts).toBe(root!.ts);
    root!.reactions = [reaction('rocket', 4)];
    slack.setMembers(50);
    await t.services.analytics.collector.collectDue();
    const read = async () => {
      const res = await t.request({ method: 'GET', url: `/public/v1/analytics/posts/${created!.postId}`, key: w.key });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const first = await read();
    expect(first).toMatchObject({ identifier: 'slack', published: true, metrics: { likes: 4, replies: 1 } });
    expect(first.parts[1].metrics).toEqual({ likes: 0 });

    root!.reactions = [reaction('rocket', 4), reaction('heart', 2)];
    clock.advance(3_600_000);
    await t.services.analytics.collector.collectDue();
    const second = await read();
    expect(second.metrics).toEqual({ likes: 6, replies: 1 });
    expect(second.parts[0].history.map((h: { metrics: { likes: number } }) => h.metrics.likes)).toEqual([4, 6]);

    const account = await t.request({
      method: 'GET',
      url: `/public/v1/analytics/channels/${channel.id}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z`,
      key: w.key,
    });
    expect(account.statusCode, account.body).toBe(200);
    expect(account.json().account).toEqual({ followers: 50 });
  });

  it('publishing does not wait for a collection: a post is published while a reading hangs on the platform', async () => {
    const w = await createTenant(t);
    const channel = await t.services.channels.create(w.workspaceId, { provider: 'slack', name: 'Busy', config: config() });
    const [first] = await createOk(
      t,
      w,
      postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [{ content: '<p>First</p>' }]),
    );
    await t.settle();
    const held = slack.holdReadings();
    const collecting = t.services.analytics.collector.collectDue();
    await held;
    // The collector is inside its reading of this channel's numbers; a new post to the same channel goes out meanwhile.
    const [second] = await createOk(
      t,
      w,
      postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [{ content: '<p>Second</p>' }]),
    );
    await t.settle();
    const posted = await t.request({ method: 'GET', url: `/public/v1/posts/${second!.postId}`, key: w.key });
    expect(posted.json()).toMatchObject({ state: 'PUBLISHED' });
    expect(slack.messages.at(-1)!.text).toContain('Second');
    slack.releaseReadings();
    await collecting;
    const read = await t.request({ method: 'GET', url: `/public/v1/analytics/posts/${first!.postId}`, key: w.key });
    expect(read.json().metricsUpdatedAt).not.toBeNull();
  });
});
