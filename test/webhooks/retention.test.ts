import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { RETENTION_MS } from '../../src/webhooks/webhook-delivery.ts';
import { lockWebhookEvent } from '../../src/db/sql.ts';
import { requeueDelivery } from '../../src/webhooks/webhooks.repository.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, deliverAll, deliveryLog } from './helpers.ts';

const clock = new ManualClock('2026-07-01T08:00:00.000Z');
const DAY = 24 * 3600_000;
let t: TestApp;
let tenant: Tenant;
let healthy: string;
let failing: string;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  tenant = await createTenant(t);
  const ok = await startWebhookReceiver();
  const down = await startWebhookReceiver();
  down.always({ status: 500 });
  healthy = (await createEndpoint(t, tenant, ok.url, ['post.published'])).id;
  failing = (await createEndpoint(t, tenant, down.url, ['post.published'])).id;
});

afterAll(async () => {
  await t.services.webhookDelivery.stop();
});

async function sendTest(endpointId: string): Promise<string> {
  const res = await t.request({ method: 'POST', url: `/public/v1/webhooks/${endpointId}/test`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { eventId: string }).eventId;
}

const redeliver = (endpointId: string, deliveryId: string) =>
  t.request({ method: 'POST', url: `/public/v1/webhooks/${endpointId}/deliveries/${deliveryId}/redeliver`, key: tenant.key });

/** What is left of an event: the event row, its deliveries, their attempts. */
async function stored(eventId: string) {
  const db = t.runtime.db;
  const deliveries = await db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', eventId).execute();
  const attempts = deliveries.length
    ? await db
        .selectFrom('webhook_attempts')
        .select('id')
        .where(
          'delivery_id',
          'in',
          deliveries.map((d) => d.id),
        )
        .execute()
    : [];
  const event = await db.selectFrom('webhook_events').select('id').where('id', '=', eventId).executeTakeFirst();
  return { event: event !== undefined, deliveries: deliveries.length, attempts: attempts.length };
}

describe('retention: an event, its deliveries and attempts are purged 30 days after every delivery settled', () => {
  it('purges what settled 30 days ago, keeps what is still retrying and what was sent again since', async () => {
    const delivered = await sendTest(healthy);
    const resent = await sendTest(healthy);
    const retrying = await sendTest(failing);
    await deliverAll(t);
    expect(await stored(delivered)).toEqual({ event: true, deliveries: 1, attempts: 1 });
    expect(await stored(retrying)).toEqual({ event: true, deliveries: 1, attempts: 1 });

    // Sent again 29 days later: its retention counts from then.
    clock.advance(29 * DAY);
    const logged = (await deliveryLog(t, tenant, healthy)).find((d) => d.webhookId === `msg_${resent}`)!;
    const redeliver = await t.request({
      method: 'POST',
      url: `/public/v1/webhooks/${healthy}/deliveries/${logged.id}/redeliver`,
      key: tenant.key,
    });
    expect(redeliver.statusCode, redeliver.body).toBe(200);
    await t.services.webhookDelivery.sendDue();

    // One minute short of 30 days after it settled, nothing goes.
    clock.set(new Date(Date.parse('2026-07-01T08:00:00.000Z') + RETENTION_MS - 60_000));
    expect(await t.services.webhookDelivery.purgeExpired()).toBe(0);
    expect((await stored(delivered)).event).toBe(true);

    clock.advance(2 * 60_000);
    expect(await t.services.webhookDelivery.purgeExpired()).toBe(1);
    expect(await stored(delivered)).toEqual({ event: false, deliveries: 0, attempts: 0 });
    expect((await deliveryLog(t, tenant, healthy)).map((d) => d.webhookId)).toEqual([`msg_${resent}`]);
    expect(await stored(resent)).toEqual({ event: true, deliveries: 1, attempts: 2 });
    // Still retrying (no worker ran since): kept, whatever its age.
    expect(await stored(retrying)).toMatchObject({ event: true, deliveries: 1 });

    clock.advance(29 * DAY);
    expect(await t.services.webhookDelivery.purgeExpired()).toBe(1);
    expect((await stored(resent)).event).toBe(false);
    expect((await stored(retrying)).event).toBe(true);
  });

  it('purges in bounded batches, oldest first', async () => {
    const events: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      events.push(await sendTest(healthy));
      clock.advance(1000);
    }
    await deliverAll(t);
    clock.advance(RETENTION_MS + 60_000);
    expect(await t.services.webhookDelivery.purgeExpired(2)).toBe(2);
    expect(await Promise.all(events.map(async (id) => (await stored(id)).event))).toEqual([false, false, true, true, true]);
    expect(await t.services.webhookDelivery.purgeExpired(2)).toBe(2);
    expect(await t.services.webhookDelivery.purgeExpired(2)).toBe(1);
  });

  it('redelivering a purged delivery is a 404 that says so; one still pending is a 409', async () => {
    const event = await sendTest(healthy);
    await deliverAll(t);
    const logged = (await deliveryLog(t, tenant, healthy)).find((d) => d.webhookId === `msg_${event}`)!;
    clock.advance(RETENTION_MS + 60_000);
    expect(await t.services.webhookDelivery.purgeExpired()).toBeGreaterThanOrEqual(1);
    const purged = await redeliver(healthy, logged.id);
    expect(purged.statusCode, purged.body).toBe(404);
    expect(purged.body).toContain('purged');

    const retrying = await sendTest(failing);
    await deliverAll(t);
    const pending = (await deliveryLog(t, tenant, failing)).find((d) => d.webhookId === `msg_${retrying}`)!;
    expect(pending.state).toBe('pending');
    const busy = await redeliver(failing, pending.id);
    expect(busy.statusCode, busy.body).toBe(409);
    expect(busy.json()).toMatchObject({ code: 'delivery_in_progress' });
  });

  it('a redelivery racing the purge is sent again (its event kept) or answered 404 (its event gone), nothing else', async () => {
    const outcomes = new Map<number, number>();
    for (let i = 0; i < 16; i += 1) {
      const event = await sendTest(healthy);
      await deliverAll(t);
      const logged = (await deliveryLog(t, tenant, healthy)).find((d) => d.webhookId === `msg_${event}`)!;
      clock.advance(RETENTION_MS + 60_000);
      // The purge starts a little later each time, so it lands before, inside and after the redelivery's statements.
      const purge = async () => {
        for (let turn = 0; turn < i * 4; turn += 1) await new Promise((resolve) => setImmediate(resolve));
        return t.services.webhookDelivery.purgeExpired();
      };
      const [answer] = await Promise.all([redeliver(healthy, logged.id), purge()]);
      outcomes.set(answer.statusCode, (outcomes.get(answer.statusCode) ?? 0) + 1);
      const left = await stored(event);
      if (answer.statusCode === 200) {
        expect(answer.json()).toMatchObject({ id: logged.id, state: 'pending' });
        expect(left).toMatchObject({ event: true, deliveries: 1 });
        // Sent again: a purge now keeps it (it settled just now).
        await t.services.webhookDelivery.sendDue();
        expect(await t.services.webhookDelivery.purgeExpired()).toBe(0);
        expect((await stored(event)).event).toBe(true);
      } else {
        expect(answer.statusCode, answer.body).toBe(404);
        expect(left).toEqual({ event: false, deliveries: 0, attempts: 0 });
      }
    }
    console.info(`redeliver vs purge: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  });

  it.runIf(BACKEND === 'postgres')(
    'PostgreSQL: a purge meets a redelivery holding its event and leaves it; it purges the event once the delivery settled again',
    async () => {
      const event = await sendTest(healthy);
      await deliverAll(t);
      const logged = (await deliveryLog(t, tenant, healthy)).find((d) => d.webhookId === `msg_${event}`)!;
      clock.advance(RETENTION_MS + 60_000);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      // A redelivery's transaction, held open between its lock and its commit.
      const redelivery = t.runtime.db.transaction().execute(async (trx) => {
        expect(await lockWebhookEvent(trx, event)).toBe(true);
        locked();
        await held;
        expect(await requeueDelivery(trx, logged.id, clock.now().toISOString())).toBe(true);
      });
      await isLocked;
      // The purge does not wait for the lock and does not delete what the redelivery holds.
      await t.services.webhookDelivery.purgeExpired();
      expect((await stored(event)).event).toBe(true);
      release();
      await redelivery;
      expect(await stored(event)).toMatchObject({ event: true, deliveries: 1 });
      await t.services.webhookDelivery.sendDue();
      clock.advance(RETENTION_MS + 60_000);
      expect(await t.services.webhookDelivery.purgeExpired()).toBeGreaterThanOrEqual(1);
      expect((await stored(event)).event).toBe(false);
    },
  );

  it('the running delivery worker purges on its ticks', async () => {
    const event = await sendTest(healthy);
    await deliverAll(t);
    clock.advance(RETENTION_MS + 60_000);
    t.services.webhookDelivery.start({ intervalMs: 5 }, t.services.webhookOutbox);
    await vi.waitFor(async () => expect((await stored(event)).event).toBe(false), { timeout: 60_000, interval: 20 });
    await t.services.webhookDelivery.stop();
  });
});
