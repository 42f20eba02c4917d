import { beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { BullmqQueue } from '../../src/publishing/bullmq-queue.ts';
import { EmbeddedQueue } from '../../src/publishing/embedded-queue.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody, seedQueuedPosts, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// The engine holds only the work due within its horizon (the sweep interval plus a margin: two
// minutes with the default 30-second sweep); later posts stay in the database and are brought in
// as they come within it. Both backends: in memory (embedded) and delayed jobs in Redis (BullMQ).
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const env = { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' };

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

const deliveriesFor = (postId: string) => receiver.deliveries.filter((d) => d.body.data.postId === postId);

/** Jobs the queue holds: in this process's memory (embedded), or in Redis (BullMQ). */
async function held(t: TestApp): Promise<number> {
  const queue = t.runtime.queue;
  if (queue instanceof EmbeddedQueue) return queue.size;
  if (queue instanceof BullmqQueue) return queue.size();
  throw new Error('Unknown queue.');
}

const horizonOf = (t: TestApp) => t.config.publishing.horizonSeconds * SECOND;
const iso = (ms: number) => new Date(ms).toISOString();

const seedQueued = (t: TestApp, workspaceId: string, channelId: string, count: number, nextRunAt: (i: number) => string) =>
  seedQueuedPosts(t, workspaceId, channelId, count, nextRunAt, new Date().toISOString());

describe('the horizon, with a clock the test moves', () => {
  const clock = new ManualClock('2026-07-01T08:00:00.000Z');
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clock, engine: true, env });
  });

  async function at(ms: number) {
    clock.set(iso(ms));
    await t.settle();
  }

  it('the default horizon is the sweep interval plus a margin', () => {
    expect(t.config.publishing.sweepIntervalSeconds).toBe(30);
    expect(horizonOf(t)).toBe(2 * MINUTE);
  });

  it('posts far ahead are not held; each is published on time once it comes within the horizon, one a second past its edge included', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const start = Date.parse('2026-07-01T08:00:00.000Z');
    clock.set(iso(start));
    await t.settle();
    const before = await held(t);
    const far = [];
    for (let i = 0; i < 20; i++)
      far.push((await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + DAY + i * MINUTE) })))[0]!.postId);
    const [edge] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + horizonOf(t) + SECOND) }));
    const [near] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + MINUTE) }));
    // Only the post within the horizon is held.
    expect((await held(t)) - before).toBe(1);

    // A sweep interval later, the post a second past the edge has come within it.
    await at(start + 30 * SECOND);
    expect((await held(t)) - before).toBe(2);
    await at(start + MINUTE);
    expect(deliveriesFor(near!.postId)).toHaveLength(1);

    const edgeAt = start + horizonOf(t) + SECOND;
    await at(edgeAt - 1);
    expect(deliveriesFor(edge!.postId)).toHaveLength(0);
    await at(edgeAt);
    expect(deliveriesFor(edge!.postId)).toHaveLength(1);
    expect((await getPost(t, tenant, edge!.postId)).state).toBe('PUBLISHED');

    // The far posts: none published before its time, each at its time.
    await at(start + DAY - 1);
    for (const id of far) expect(deliveriesFor(id)).toHaveLength(0);
    for (let i = 0; i < far.length; i++) {
      await at(start + DAY + i * MINUTE);
      expect(deliveriesFor(far[i]!)).toHaveLength(1);
      if (far[i + 1]) expect(deliveriesFor(far[i + 1]!)).toHaveLength(0);
    }
  });

  it('a clock jump far past many posts publishes every one of them, each once', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const start = Date.parse('2026-07-05T08:00:00.000Z');
    clock.set(iso(start));
    const ids = [];
    for (let i = 0; i < 5; i++)
      ids.push((await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + (i + 1) * DAY) })))[0]!.postId);
    await at(start + 10 * DAY);
    for (const id of ids) expect(deliveriesFor(id)).toHaveLength(1);
  });

  describe('edits and deletes behave as before, beyond the horizon and within it', () => {
    const start = Date.parse('2026-07-20T08:00:00.000Z');
    const reschedule = async (tenant: Awaited<ReturnType<typeof webhookTenant>>, id: string, date: number) => {
      const { group } = await getPost(t, tenant, id);
      const [edited] = await createOk(t, tenant, postBody(tenant.channelId, { group, date: iso(date) }));
      expect(edited!.postId).toBe(id);
    };

    it('a post beyond the horizon moved later, moved within it, deleted', async () => {
      const tenant = await webhookTenant(t, receiver.url);
      clock.set(iso(start));
      const [later] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + DAY) }));
      const [sooner] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + DAY) }));
      const [deleted] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(start + DAY) }));
      await reschedule(tenant, later!.postId, start + 2 * DAY);
      await reschedule(tenant, sooner!.postId, start + MINUTE);
      expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${deleted!.postId}`, key: tenant.key })).statusCode).toBe(200);

      await at(start + MINUTE);
      expect(deliveriesFor(sooner!.postId)).toHaveLength(1);
      await at(start + DAY);
      expect(deliveriesFor(later!.postId)).toHaveLength(0);
      await at(start + 2 * DAY);
      expect(deliveriesFor(later!.postId)).toHaveLength(1);
      expect(deliveriesFor(sooner!.postId)).toHaveLength(1);
      expect(deliveriesFor(deleted!.postId)).toHaveLength(0);
    });

    it('a post within the horizon moved beyond it, moved within it, deleted', async () => {
      const tenant = await webhookTenant(t, receiver.url);
      const now = start + 10 * DAY;
      clock.set(iso(now));
      const [beyond] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(now + MINUTE) }));
      const [within] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(now + MINUTE) }));
      const [deleted] = await createOk(t, tenant, postBody(tenant.channelId, { date: iso(now + MINUTE) }));
      await reschedule(tenant, beyond!.postId, now + DAY);
      await reschedule(tenant, within!.postId, now + 30 * SECOND);
      expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${deleted!.postId}`, key: tenant.key })).statusCode).toBe(200);

      await at(now + 30 * SECOND);
      expect(deliveriesFor(within!.postId)).toHaveLength(1);
      await at(now + MINUTE);
      expect(deliveriesFor(beyond!.postId)).toHaveLength(0);
      expect(deliveriesFor(deleted!.postId)).toHaveLength(0);
      await at(now + DAY);
      expect(deliveriesFor(beyond!.postId)).toHaveLength(1);
      expect(deliveriesFor(within!.postId)).toHaveLength(1);
      expect(deliveriesFor(deleted!.postId)).toHaveLength(0);
    });
  });
});

describe('a restart with many posts far ahead', () => {
  it('loads none of them, only what is due within the horizon (overdue included), and publishes those', async () => {
    const clock = new ManualClock('2026-08-01T08:00:00.000Z');
    const start = clock.now().getTime();
    const first = await createTestApp({ clock, env });
    const tenant = await webhookTenant(first, receiver.url);
    await seedQueued(first, tenant.workspaceId, tenant.channelId, 5_000, (i) => iso(start + DAY + i * SECOND));
    const [soon] = await createOk(first, tenant, postBody(tenant.channelId, { date: iso(start + MINUTE) }));
    const [overdue] = await createOk(first, tenant, postBody(tenant.channelId, { date: iso(start + 30 * SECOND) }));
    clock.set(iso(start + 45 * SECOND));

    const restarted = await createTestApp({ clock, engine: true, reopen: first, env });
    await restarted.settle();
    expect(deliveriesFor(overdue!.postId)).toHaveLength(1);
    // The post due in 15 seconds is the one job held; none of the 5,000 a day ahead.
    expect(await held(restarted)).toBe(1);
    clock.set(iso(start + MINUTE));
    await restarted.settle();
    expect(deliveriesFor(soon!.postId)).toHaveLength(1);
    expect(await held(restarted)).toBe(0);
    await restarted.close();
  }, 120_000);
});

/** A clock the test moves without telling anyone: only the sweep notices the time, as with a real clock. */
class SilentClock implements Clock {
  #now: number;
  constructor(start: string) {
    this.#now = Date.parse(start);
  }
  now(): Date {
    return new Date(this.#now);
  }
  set(ms: number): void {
    this.#now = ms;
  }
}

describe('the sweep brings posts in as they come within the horizon', () => {
  it('a page at a time, only those within it, each sweep only what came within it since the last', async () => {
    const clock = new SilentClock('2026-09-01T08:00:00.000Z');
    const start = clock.now().getTime();
    const t = await createTestApp({ clock, engine: true, env, publisherOptions: { sweepPage: 100 } });
    const tenant = await webhookTenant(t, receiver.url);
    const horizon = horizonOf(t);
    // 1,000 posts a second past the edge, 250 more a minute later, 3,000 a day ahead.
    await seedQueued(t, tenant.workspaceId, tenant.channelId, 1_000, () => iso(start + horizon + SECOND));
    await seedQueued(t, tenant.workspaceId, tenant.channelId, 250, () => iso(start + horizon + MINUTE));
    await seedQueued(t, tenant.workspaceId, tenant.channelId, 3_000, () => iso(start + DAY));
    expect(await held(t)).toBe(0);

    clock.set(start + 30 * SECOND);
    expect((await t.publisher.sweep()).advanced).toBe(1_000);
    const afterFirst = await held(t);
    // Embedded: a job per post; BullMQ: a wake per lane and instant.
    expect(afterFirst).toBe(t.runtime.queue instanceof EmbeddedQueue ? 1_000 : 1);

    clock.set(start + 30 * SECOND + MINUTE);
    expect((await t.publisher.sweep()).advanced).toBe(250);
    expect(await held(t)).toBe(afterFirst + (t.runtime.queue instanceof EmbeddedQueue ? 250 : 1));
    await t.close();
  }, 120_000);
});
