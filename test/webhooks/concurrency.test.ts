// The per-endpoint cap on attempts in flight holds across processes: two apps on one database
// (each with its own delivery worker and, on PostgreSQL, its own connections) never have more
// than PER_ENDPOINT attempts to one endpoint in flight together, and another endpoint is not held back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_ENDPOINT } from '../../src/webhooks/webhook-delivery.ts';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint } from './helpers.ts';

let a: TestApp;
let b: TestApp;
let tenant: Tenant;

beforeAll(async () => {
  a = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  b = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' }, reopen: a });
  tenant = await createTenant(a);
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function sendTest(endpointId: string): Promise<void> {
  const res = await a.request({ method: 'POST', url: `/public/v1/webhooks/${endpointId}/test`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(201);
}

/** Deliveries of the endpoint being sent now, as the database has them. */
async function sending(endpointId: string): Promise<number> {
  const rows = await a.runtime.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('state', '=', 'sending')
    .execute();
  return rows.length;
}

describe('per-endpoint concurrency across processes', () => {
  it(`two workers together keep at most ${PER_ENDPOINT} attempts in flight to one endpoint; another endpoint is served meanwhile`, async () => {
    const slow = await startWebhookReceiver();
    const other = await startWebhookReceiver();
    // The slow receiver holds every request until released.
    slow.always('hold');
    const held = await createEndpoint(a, tenant, slow.url, ['post.published']);
    const free = await createEndpoint(a, tenant, other.url, ['post.published']);
    for (let i = 0; i < 10; i += 1) await sendTest(held.id);
    for (let i = 0; i < 3; i += 1) await sendTest(free.id);
    await a.services.webhookDelivery.dispatch();

    // The first worker fills the endpoint's slots; its drain waits on the held attempts.
    const first = a.services.webhookDelivery.drain();
    await slow.received(PER_ENDPOINT);
    expect(await sending(held.id)).toBe(PER_ENDPOINT);
    // The second worker finds the slots taken: it sends nothing more there, and serves the other endpoint.
    await b.services.webhookDelivery.sendDue();
    expect(slow.deliveries).toHaveLength(PER_ENDPOINT);
    expect(await sending(held.id)).toBe(PER_ENDPOINT);
    expect(other.deliveries).toHaveLength(3);

    // Released, the slots go on with the endpoint's next deliveries, still at most PER_ENDPOINT at once.
    const second = b.services.webhookDelivery.drain();
    for (let seen = PER_ENDPOINT; seen < 10; seen = slow.deliveries.length) {
      slow.release();
      await slow.received(Math.min(seen + 1, 10));
      expect(await sending(held.id)).toBeLessThanOrEqual(PER_ENDPOINT);
    }
    slow.always(null);
    slow.release();
    await Promise.all([first, second]);
    expect(new Set(slow.deliveries.map((d) => d.id)).size).toBe(10);
    expect(slow.deliveries).toHaveLength(10);
    expect(await sending(held.id)).toBe(0);
  });
});
