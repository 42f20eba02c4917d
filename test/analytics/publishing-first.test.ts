// Publishing goes first, and the API's requests too: a collection cycle that comes due at the same instant as a burst of posts
// reads no number before every post of the burst has been sent to the platform. The clock is a test
// clock; the verdict is the order in which the local Mastodon received the calls.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { requestActivity } from '../../src/http/request-activity.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { clearMastodonInstances } from '../../src/providers/mastodon/mastodon.provider.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, postBody } from '../helpers/posts.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';
import { newCollector } from './collectors.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
const HOUR = 3_600_000;
const BURST = 12;
let t: TestApp;
let fake: FakeMastodon;

beforeAll(async () => {
  fake = await new FakeMastodon().start();
  fake.processingPolls = 0;
  clearMastodonInstances();
  // Four publishes at once: the burst goes out in several waves, and the cycle could slip between them.
  t = await createTestApp({ clock, engine: true, engineConcurrency: 4, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await t?.close();
  await fake?.stop();
});

it('a burst of due posts is published before the collection cycle due at the same instant makes any platform call', async () => {
  const tenant = await createTenant(t);
  const channelIds: string[] = [];
  for (const accountId of ['1', '2']) {
    fake.addAccount({ id: accountId, username: `user${accountId}`, display_name: '', avatar: '' });
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'mastodon',
      name: `Toots ${accountId}`,
      config: { instance: fake.url, accessToken: fake.tokenFor(accountId) },
    });
    channelIds.push(channel.id);
  }
  // A published post on each channel, read once: an hour later both channels are due for reading again.
  for (const [i, channelId] of channelIds.entries())
    await createOk(t, tenant, postBody(channelId, { type: 'now', date: clock.now().toISOString() }, [{ content: `<p>First ${i}</p>` }]));
  await t.settle();
  const collector = t.services.analytics.collector;
  expect((await collector.collectDue()).calls).toBeGreaterThan(0);

  // The burst: posts on both channels, due at the instant the cycle comes due.
  const at = new Date(clock.now().getTime() + HOUR).toISOString();
  for (let i = 0; i < BURST; i++)
    await createOk(t, tenant, postBody(channelIds[i % 2]!, { type: 'schedule', date: at }, [{ content: `<p>Burst ${i}</p>` }]));
  const from = fake.received.length;
  clock.set(at);
  const cycle = collector.collectDue();
  await t.settle();
  const report = await cycle;

  const calls = fake.received.slice(from);
  const publishes = calls.flatMap((c, i) => (c.method === 'POST' && c.path === '/api/v1/statuses' ? [i] : []));
  const reads = calls.flatMap((c, i) =>
    c.method === 'GET' && (c.path === '/api/v1/statuses' || c.path === '/api/v1/accounts/verify_credentials') ? [i] : [],
  );
  expect(publishes).toHaveLength(BURST);
  // The cycle did read (both channels' posts, and their accounts if due), only after the last publish had started.
  expect(report.channels).toBe(2);
  expect(reads.length).toBe(report.calls);
  expect(reads.length).toBeGreaterThan(0);
  expect(Math.max(...publishes)).toBeLessThan(Math.min(...reads));
  const posts = await t.runtime.db.selectFrom('posts').select('state').where('workspace_id', '=', tenant.workspaceId).execute();
  expect(posts.map((p) => p.state)).toEqual(Array(BURST + 2).fill('PUBLISHED'));
});

it("the cycle waits for a pause in the API's requests before each platform call", async () => {
  const tenant = await createTenant(t);
  fake.addAccount({ id: '3', username: 'user3', display_name: '', avatar: '' });
  const channel = await t.services.channels.create(tenant.workspaceId, {
    provider: 'mastodon',
    name: 'Toots 3',
    config: { instance: fake.url, accessToken: fake.tokenFor('3') },
  });
  await createOk(t, tenant, postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [{ content: '<p>Third</p>' }]));
  await t.settle();
  // A server whose one request is answered only once the collector has started waiting for it.
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const server = http.createServer((_req, res) => void answered.then(() => res.end('ok')));
  const requests = requestActivity(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let callsWhileWaiting = -1;
  const watched = {
    busy: () => requests.busy(),
    changed: (pollMs: number) => {
      if (callsWhileWaiting < 0) {
        callsWhileWaiting = fake.received.length - from;
        answer();
      }
      return requests.changed(pollMs);
    },
  };
  // Waits as long as the request is in flight: the verdict never depends on how long that is.
  const collector = newCollector(t, clock, { requestYieldMaxMs: 3_600_000 });
  collector.yieldTo(t.publisher.activity, watched);
  clock.advance(HOUR);
  const from = fake.received.length;
  const response = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  // The request is in flight once the server has it.
  await new Promise<void>((resolve) => server.once('request', () => resolve()));
  const report = await collector.collectDue();
  expect(await (await response).text()).toBe('ok');
  server.close();
  expect(callsWhileWaiting).toBe(0);
  expect(report.calls).toBeGreaterThan(0);
  expect(fake.received.length - from).toBeGreaterThanOrEqual(report.calls);
});
