import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { RETENTION_MS } from '../../src/webhooks/webhook-delivery.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
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

  it('the running delivery worker purges on its ticks', async () => {
    const event = await sendTest(healthy);
    await deliverAll(t);
    clock.advance(RETENTION_MS + 60_000);
    t.services.webhookDelivery.start({ intervalMs: 5 }, t.services.webhookOutbox);
    await vi.waitFor(async () => expect((await stored(event)).event).toBe(false), { timeout: 60_000, interval: 20 });
    await t.services.webhookDelivery.stop();
  });
});
