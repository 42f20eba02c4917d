import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { createPosts, postBody, webhookTenant } from '../helpers/posts.ts';

// Plan limits hold when the requests that would cross them arrive together.
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});

describe('plan limits under concurrency', () => {
  it('20 concurrent POST /posts against a quota of 5 posts a month: exactly 5 are created', async () => {
    const tenant = await webhookTenant(t, 'https://hooks.example.test/in');
    await t.services.workspaces.setPlan(tenant.workspaceId, { postsPerMonth: 5 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => createPosts(t, tenant, postBody(tenant.channelId, { type: 'draft' }))));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([...Array(5).fill(200), ...Array(15).fill(402)]);
    const { n } = await t.runtime.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', tenant.workspaceId)
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(5);
  });

  it('20 concurrent channel creations against a plan of 5 channels: exactly 5 are created', async () => {
    const tenant = await createTenant(t);
    await t.services.workspaces.setPlan(tenant.workspaceId, { channels: 5 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        t.services.channels.create(tenant.workspaceId, { provider: 'webhook', name: `C${i}`, config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET } }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const refused of results.filter((r) => r.status === 'rejected')) expect((refused.reason as { statusCode: number }).statusCode).toBe(402);
    expect(await t.services.channels.list(tenant.workspaceId)).toHaveLength(5);
  });
});
