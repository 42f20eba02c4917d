import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS, ROTATION_GRACE_MS } from '../../src/webhooks/webhook-delivery.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { claimDelivery } from '../../src/webhooks/webhooks.repository.ts';
import { createEndpoint, deliverAll, deliveryLog, verified } from './helpers.ts';

const clock = new ManualClock('2026-07-01T08:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    clock,
    engine: true,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' },
    webhookDelivery: { attemptTimeoutMs: 500 },
  });
});

/** An endpoint at a fresh receiver, and a test event sent to it. */
async function withTestEvent(eventTypes = ['post.published']) {
  const hooks = await startWebhookReceiver();
  const tenant = await createTenant(t);
  const endpoint = await createEndpoint(t, tenant, hooks.url, eventTypes);
  const sendTest = () => t.request({ method: 'POST', url: `/public/v1/webhooks/${endpoint.id}/test`, key: tenant.key });
  return { hooks, tenant, endpoint, sendTest };
}

const MAX_WAIT = Math.max(...RETRY_SCHEDULE_MS) * 1.2;

describe('delivery: retries on the service clock, the same webhook-id every time', () => {
  it('retries after a 500, a timeout and a refused connection, then succeeds; every attempt is logged', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    hooks.answer({ status: 500, body: 'oops' }, 'hang', 'drop');
    expect((await sendTest()).statusCode).toBe(201);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(1);
    // Not before the first retry's earliest time (30 s less 20 %)…
    clock.advance(RETRY_SCHEDULE_MS[0] * 0.8 - 1);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(1);
    // …and each one after its wait.
    for (const wait of RETRY_SCHEDULE_MS.slice(0, 3)) {
      clock.advance(wait * 1.2 + 1);
      await deliverAll(t);
    }
    expect(hooks.deliveries).toHaveLength(4);
    expect(new Set(hooks.deliveries.map((d) => d.id)).size).toBe(1);
    expect(new Set(hooks.deliveries.map((d) => d.raw)).size).toBe(1);
    for (const delivery of hooks.deliveries) expect(verified(delivery, endpoint.secret).type).toBe('webhook.test');

    const [logged] = await deliveryLog(t, tenant, endpoint.id);
    expect(logged).toMatchObject({
      state: 'succeeded',
      attempts: 4,
      webhookId: hooks.deliveries[0]!.id,
      lastStatus: 200,
      nextAttemptAt: null,
    });
    expect(logged!.attemptLog.map((a) => a.status)).toEqual([500, null, null, 200]);
    expect(logged!.attemptLog[0]!.response).toBe('oops');
    expect(logged!.attemptLog[1]!.error).toMatch(/time/i);
  });

  it("honours a 429's Retry-After", async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    hooks.answer({ status: 429, headers: { 'retry-after': '7200' } });
    await sendTest();
    await deliverAll(t);
    const [logged] = await deliveryLog(t, tenant, endpoint.id);
    expect(logged!.state).toBe('pending');
    expect(Date.parse(logged!.nextAttemptAt!) - clock.now().getTime()).toBeGreaterThanOrEqual(7200_000);
    clock.advance(3600_000);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(1);
    clock.advance(3600_000);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(2);
  });

  it('gives up after the schedule, disables an endpoint that failed all along, and tells the workspace', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    hooks.always({ status: 500 });
    await sendTest();
    await deliverAll(t);
    for (let i = 1; i < MAX_ATTEMPTS + 2; i++) {
      clock.advance(MAX_WAIT + 1);
      await deliverAll(t);
    }
    expect(hooks.deliveries).toHaveLength(MAX_ATTEMPTS);
    const [logged] = await deliveryLog(t, tenant, endpoint.id);
    expect(logged).toMatchObject({ state: 'failed', attempts: MAX_ATTEMPTS, nextAttemptAt: null });
    const read = await t.request({ method: 'GET', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(read.json()).toMatchObject({ enabled: false, disabledReason: 'failing' });
    const notifications = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notifications[0]).toMatchObject({ type: 'webhook_disabled' });
    expect(notifications[0].message).toContain(endpoint.id);

    // Enabled again and replayed: the same webhook-id arrives once more.
    hooks.always(null);
    const enabled = await t.request({
      method: 'PATCH',
      url: `/public/v1/webhooks/${endpoint.id}`,
      key: tenant.key,
      payload: { enabled: true },
    });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
    const again = await t.request({
      method: 'POST',
      url: `/public/v1/webhooks/${endpoint.id}/deliveries/${logged!.id}/redeliver`,
      key: tenant.key,
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().state).toBe('pending');
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(MAX_ATTEMPTS + 1);
    expect(hooks.deliveries.at(-1)!.id).toBe(hooks.deliveries[0]!.id);
    expect((await deliveryLog(t, tenant, endpoint.id))[0]!.state).toBe('succeeded');
  });

  it('replays every failed delivery since a time', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    const since = clock.now().toISOString();
    hooks.always({ status: 500 });
    await sendTest();
    await sendTest();
    await deliverAll(t);
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) {
      clock.advance(MAX_WAIT + 1);
      await deliverAll(t);
    }
    expect((await deliveryLog(t, tenant, endpoint.id)).map((d) => d.state)).toEqual(['failed', 'failed']);
    const sent = hooks.deliveries.length;
    hooks.always(null);
    await t.request({ method: 'PATCH', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key, payload: { enabled: true } });
    const later = await t.request({
      method: 'POST',
      url: `/public/v1/webhooks/${endpoint.id}/replay`,
      key: tenant.key,
      payload: { since: clock.now().toISOString() },
    });
    expect(later.json()).toEqual({ requeued: 0 });
    const replayed = await t.request({
      method: 'POST',
      url: `/public/v1/webhooks/${endpoint.id}/replay`,
      key: tenant.key,
      payload: { since },
    });
    expect(replayed.statusCode, replayed.body).toBe(200);
    expect(replayed.json()).toEqual({ requeued: 2 });
    await deliverAll(t);
    expect(hooks.deliveries.length).toBe(sent + 2);
    expect((await deliveryLog(t, tenant, endpoint.id)).map((d) => d.state)).toEqual(['succeeded', 'succeeded']);
    const bad = await t.request({
      method: 'POST',
      url: `/public/v1/webhooks/${endpoint.id}/replay`,
      key: tenant.key,
      payload: { since: 'yesterday' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('a success in between keeps the endpoint enabled: only sustained failure disables it', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    hooks.always({ status: 500 });
    await sendTest();
    await deliverAll(t);
    clock.advance(MAX_WAIT + 1);
    await deliverAll(t);
    // The first event's next retry is minutes away: only the second one is due, and it succeeds.
    hooks.answer({ status: 200 });
    await sendTest();
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(3);
    for (let i = 0; i < MAX_ATTEMPTS + 1; i++) {
      clock.advance(MAX_WAIT + 1);
      await deliverAll(t);
    }
    const states = (await deliveryLog(t, tenant, endpoint.id)).map((d) => d.state).sort();
    expect(states).toEqual(['failed', 'succeeded']);
    const read = await t.request({ method: 'GET', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(read.json()).toMatchObject({ enabled: true });
  });
});

describe('secret rotation', () => {
  it('signs with both secrets during the grace period, then with the new one only', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    const rotated = await t.request({ method: 'POST', url: `/public/v1/webhooks/${endpoint.id}/rotate-secret`, key: tenant.key });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { secret } = rotated.json() as { secret: string; previousSecretValidUntil: string };
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    expect(rotated.json().previousSecretValidUntil).toBe(new Date(clock.now().getTime() + ROTATION_GRACE_MS).toISOString());
    await sendTest();
    await deliverAll(t);
    expect(verified(hooks.deliveries[0]!, endpoint.secret).type).toBe('webhook.test');
    expect(verified(hooks.deliveries[0]!, secret).type).toBe('webhook.test');

    clock.advance(ROTATION_GRACE_MS + 1);
    await sendTest();
    await deliverAll(t);
    expect(verified(hooks.deliveries[1]!, secret).type).toBe('webhook.test');
    expect(() => verified(hooks.deliveries[1]!, endpoint.secret)).toThrow();
    // The secret is never shown again.
    const read = await t.request({ method: 'GET', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key });
    expect(read.json()).not.toHaveProperty('secret');
    expect(read.json().previousSecretValidUntil).toBeNull();
  });
});

describe('durability: the outbox', () => {
  it('events committed before the process stops are delivered by the next one, each at least once', async () => {
    const platform = await startWebhookReceiver();
    const hooks = await startWebhookReceiver();
    const first = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    const tenant = await webhookTenant(first, platform.url);
    const endpoint = await createEndpoint(first, tenant, hooks.url, ['post.published']);
    const posts = [];
    for (let i = 0; i < 5; i++) posts.push((await createOk(first, tenant, postBody(tenant.channelId, { type: 'now' })))[0]!.postId);
    await first.settle();
    expect(platform.deliveries).toHaveLength(5);
    // Stopped after publishing, before delivering anything.
    expect(hooks.deliveries).toHaveLength(0);
    // The first process is gone as far as deliveries go (its database stays: it is dropped by its first owner).
    await first.publisher.stop();
    const second = await createTestApp({ clock, reopen: first, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    await second.services.webhookDelivery.drain();
    const delivered = hooks.deliveries.map((d) => verified(d, endpoint.secret));
    expect(delivered.map((e) => (e.data.post as { id: string }).id).sort()).toEqual([...posts].sort());
    expect(delivered.every((e) => e.type === 'post.published')).toBe(true);
  });
});

describe('several workers on one database', () => {
  // Scale-out runs on PostgreSQL; two SQLite connections in one thread would wait on each other's locks synchronously.
  it.runIf(BACKEND === 'postgres')('two processes draining at once send each delivery once', async () => {
    const hooks = await startWebhookReceiver();
    const other = await createTestApp({ clock, reopen: t, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    const tenant = await createTenant(t);
    const endpoint = await createEndpoint(t, tenant, hooks.url, ['post.published']);
    for (let i = 0; i < 30; i++)
      expect((await t.request({ method: 'POST', url: `/public/v1/webhooks/${endpoint.id}/test`, key: tenant.key })).statusCode).toBe(201);
    await Promise.all([t.services.webhookDelivery.drain(), other.services.webhookDelivery.drain()]);
    expect(hooks.deliveries).toHaveLength(30);
    expect(new Set(hooks.deliveries.map((d) => d.id)).size).toBe(30);
    await other.close();
  });

  it('a delivery claimed by a worker that died is sent again once its lease runs out', async () => {
    const { hooks, tenant, endpoint, sendTest } = await withTestEvent();
    await sendTest();
    await t.services.webhookDelivery.dispatch();
    const [pending] = await deliveryLog(t, tenant, endpoint.id);
    // Another process claims it and dies before sending.
    const stamp = clock.now().toISOString();
    expect(
      await claimDelivery(
        t.runtime.db,
        pending!.id,
        { state: 'pending', claimedAt: null },
        { stamp, leaseUntil: new Date(Date.parse(stamp) + 300_000).toISOString() },
      ),
    ).toBe(true);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(0);
    clock.advance(300_001);
    await deliverAll(t);
    expect(hooks.deliveries).toHaveLength(1);
    expect((await deliveryLog(t, tenant, endpoint.id))[0]).toMatchObject({ state: 'succeeded', attempts: 1 });
  });
});
