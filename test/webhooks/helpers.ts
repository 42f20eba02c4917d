import { Webhook } from 'standardwebhooks';
import { expect } from 'vitest';
import type { TestApp, Tenant } from '../helpers/app.ts';
import type { Delivery } from '../helpers/webhook-receiver.ts';

export type Envelope = { type: string; timestamp: string; workspace: string; data: Record<string, unknown> };

/** Creates an endpoint through the API; its id and its secret (shown once). */
export async function createEndpoint(
  t: TestApp,
  tenant: Tenant,
  url: string,
  eventTypes: string[],
  extra: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const res = await t.request({ method: 'POST', url: '/public/v1/webhooks', key: tenant.key, payload: { url, eventTypes, ...extra } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Verifies a delivery with the Standard Webhooks library (not Herald's code) and returns its envelope. */
export function verified(delivery: Delivery, secret: string): Envelope {
  return new Webhook(secret).verify(delivery.raw, {
    'webhook-id': delivery.id,
    'webhook-timestamp': delivery.timestamp,
    'webhook-signature': delivery.signature,
  }) as Envelope;
}

/** Runs the engine until idle, then the webhook worker until nothing is due. */
export async function deliverAll(t: TestApp): Promise<void> {
  await t.settle();
  await t.services.webhookDelivery.drain();
}

export async function deliveryLog(t: TestApp, tenant: Tenant, endpointId: string) {
  const res = await t.request({ method: 'GET', url: `/public/v1/webhooks/${endpointId}/deliveries`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return (
    res.json() as {
      deliveries: Array<{
        id: string;
        type: string;
        state: string;
        attempts: number;
        webhookId: string;
        nextAttemptAt: string | null;
        lastStatus: number | null;
        attemptLog: Array<{ attempt: number; status: number | null; error: string | null; response: string | null }>;
      }>;
    }
  ).deliveries;
}
