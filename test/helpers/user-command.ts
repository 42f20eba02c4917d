import type { AddressInfo } from 'node:net';
import { createTestApp } from './app.ts';
import { webhookTenant } from './posts.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

/**
 * A real server on loopback for the `herald` command's tests: a tenant with its webhook channel
 * "Hook", and a second one, "News Desk" (handle acme-news), filed under the client group "Clients".
 */
export async function userCommandServer() {
  const receiver = await startWebhookReceiver();
  const t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const tenant = await webhookTenant(t, receiver.url);
  const group = await t.services.groups.create(tenant.workspaceId, 'Clients');
  const news = await t.services.channels.create(tenant.workspaceId, {
    provider: 'webhook',
    name: 'News Desk',
    profile: 'acme-news',
    groupId: group.id,
    config: { url: receiver.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  });
  return { t, url, tenant, group, news };
}
