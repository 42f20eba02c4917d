// Connecting Bluesky (app password) and webhook channels through the API: checked live first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clearBlueskySessions } from '../../src/providers/bluesky/bluesky.client.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp, type Tenant } from '../helpers/app.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { FakeXrpc } from '../providers/bluesky/fake-xrpc.ts';

let t: TestApp;
let pds: FakeXrpc;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  pds = await new FakeXrpc().start();
  receiver = await startWebhookReceiver();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  clearBlueskySessions();
  await pds.stop();
  await receiver.close();
});

const connect = (tenant: Tenant, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });

describe('bluesky', () => {
  it('signs in with the app password and names the channel after the account; a wrong password is a 400', async () => {
    const tenant = await createTenant(t);
    const wrong = await connect(tenant, {
      provider: 'bluesky',
      service: pds.url,
      identifier: pds.account.handle,
      appPassword: 'zzzz-zzzz-zzzz-zzzz',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('platform_refused');
    const right = await connect(tenant, {
      provider: 'bluesky',
      service: pds.url,
      identifier: pds.account.handle,
      appPassword: pds.account.appPassword,
    });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json()).toMatchObject({ reconnected: false, integration: { identifier: 'bluesky', profile: pds.account.handle } });
    const again = await connect(tenant, {
      provider: 'bluesky',
      service: pds.url,
      identifier: pds.account.did,
      appPassword: pds.account.appPassword,
    });
    expect(again.json()).toMatchObject({ reconnected: true, integration: { id: right.json().integration.id } });
  });
});

describe('webhook', () => {
  it('sends a signed ping and creates the channel when the receiver answers 2xx; a refusal stores nothing', async () => {
    const tenant = await createTenant(t);
    receiver.answer({ status: 401, body: { error: 'bad signature' } });
    const refused = await connect(tenant, { provider: 'webhook', url: receiver.url, secret: TEST_WEBHOOK_SECRET });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().msg).toContain('401');
    const ok = await connect(tenant, { provider: 'webhook', name: 'My hook', url: receiver.url, secret: TEST_WEBHOOK_SECRET });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ integration: { name: 'My hook', identifier: 'webhook' } });
    expect(receiver.deliveries.at(-1)!.body.type).toBe('ping');
  });
});
