// The shared authentication and authorization matrix for the channel-changing endpoints.
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestApp, TEST_WEBHOOK_SECRET, type TestApp, type Tenant } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { FakeMastodon } from '../providers/mastodon/fake-mastodon.ts';

let t: TestApp;
let fake: FakeMastodon;
beforeAll(async () => {
  fake = await new FakeMastodon().start();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(() => fake.stop());

async function webhookChannel(app: TestApp, tenant: Tenant): Promise<string> {
  const channel = await app.services.channels.create(tenant.workspaceId, {
    provider: 'webhook',
    name: 'Hook',
    config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
  });
  return channel.id;
}

describe('POST /public/v1/integrations/connect', () => {
  runAuthMatrix(() => t, {
    method: 'POST',
    url: () => '/public/v1/integrations/connect',
    // The instance is known once the fake has started: read when the body is sent.
    body: {
      provider: 'mastodon',
      get instance() {
        return fake.url;
      },
    },
    scope: 'channels:write',
  });
});

describe('POST /public/v1/integrations/:id/reconnect', () => {
  runAuthMatrix(() => t, {
    method: 'POST',
    url: async (app, tenant) => {
      const channel = await app.services.channels.create(tenant.workspaceId, {
        provider: 'mastodon',
        name: 'Masto',
        config: { instance: fake.url, accessToken: 'tok_0123456789abcdef0123' },
      });
      return `/public/v1/integrations/${channel.id}/reconnect`;
    },
    body: {},
    scope: 'channels:write',
  });
});

describe('PATCH /public/v1/integrations/:id', () => {
  runAuthMatrix(() => t, {
    method: 'PATCH',
    url: async (app, tenant) => `/public/v1/integrations/${await webhookChannel(app, tenant)}`,
    body: { name: 'Renamed' },
    scope: 'channels:write',
  });
});

describe('DELETE /public/v1/integrations/:id', () => {
  runAuthMatrix(() => t, {
    method: 'DELETE',
    url: async (app, tenant) => `/public/v1/integrations/${await webhookChannel(app, tenant)}`,
    scope: 'channels:write',
  });
});
