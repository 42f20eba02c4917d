// `herald analytics` against a real server on loopback whose Mastodon channel's numbers come from a local Mastodon.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sparkline } from '../../src/client/commands/analytics.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, postBody } from '../helpers/posts.ts';
import { heraldInProcess } from '../helpers/process.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';

let t: TestApp;
let fake: FakeMastodon;
let env: Record<string, string>;
let channelId: string;
let postId: string;

beforeAll(async () => {
  fake = await new FakeMastodon().start();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const tenant = await createTenant(t);
  channelId = (
    await t.services.channels.create(tenant.workspaceId, {
      provider: 'mastodon',
      name: 'Toots',
      config: { instance: fake.url, accessToken: fake.tokenFor('1') },
    })
  ).id;
  postId = (await createOk(t, tenant, postBody(channelId, { type: 'now', date: new Date().toISOString() })))[0]!.postId;
  await t.settle();
  Object.assign(fake.statuses.at(-1)!, { favourites_count: 12, reblogs_count: 3 });
  fake.accounts.get('1')!.followers_count = 99;
  await t.services.analytics.collector.collectDue();
  env = {
    HERALD_URL: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`,
    HERALD_API_KEY: tenant.key,
    XDG_CONFIG_HOME: '/nonexistent-herald-config',
    TZ: 'UTC',
  };
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

describe('herald analytics', () => {
  it("post: the post's numbers as a table, and the API's answer with --json", async () => {
    const human = await heraldInProcess(['analytics', 'post', postId], env);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/post\s+likes\s+12/);
    expect(human.stdout).toMatch(/post\s+reposts\s+3/);
    const json = await heraldInProcess(['analytics', 'post', postId, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ postId, metrics: { likes: 12, reposts: 3 } });
  });

  it('channel: a series per metric with its change and trend; summary: totals and top posts', async () => {
    const channel = await heraldInProcess(['analytics', 'channel', channelId, '--days', '7'], env);
    expect(channel.code, channel.stderr).toBe(0);
    // One reading of the account so far: no change against itself.
    expect(channel.stdout).toMatch(/followers\s+99\s+0%\s+█/);
    expect(channel.stdout).toMatch(/likes\s+12\s+\+100%\s+▁+█/);
    const summary = await heraldInProcess(['analytics', 'summary', '--days', '7', '--json'], env);
    expect(JSON.parse(summary.stdout)).toMatchObject({ posts: 1, totals: { likes: 12 }, top: [{ postId, value: 12 }] });
    const refused = await heraldInProcess(['analytics', 'channel', channelId, '--days', '0'], env);
    expect(refused.code).toBe(2);
  });

  it('draws a sparkline scaled to the series', () => {
    expect(sparkline([0, 5, 10])).toBe('▁▅█');
    expect(sparkline([3, 3])).toBe('██');
    expect(sparkline([0, 0])).toBe('▁▁');
    expect(sparkline([])).toBe('');
  });
});
