import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createPostsBody } from '../../src/posts/posts.schema.ts';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_RETENTION_MS, idempotencyHash } from '../../src/posts/posts.service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createPosts, postBody, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

async function postsOf(workspaceId: string) {
  return t.runtime.db.selectFrom('posts').select('id').where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null).execute();
}

describe('Idempotency-Key lifetime', () => {
  it('a key left unanswered by a server that stopped mid-request is released after a short lease, and the retry redoes the request', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const body = postBody(tenant.channelId, { date: '2026-05-05T10:00:00Z' });
    // What `kill -9` between taking the key and answering leaves: the key row, no answer, no post.
    await t.runtime.db
      .insertInto('idempotency_keys')
      .values({
        workspace_id: tenant.workspaceId,
        key: 'crashed',
        request_hash: idempotencyHash(createPostsBody.parse(body)),
        status_code: null,
        response: null,
        created_at: clock.now().toISOString(),
      })
      .execute();

    // Within the lease the first request may still be running: the retry is told to wait.
    const early = await createPosts(t, tenant, body, { 'idempotency-key': 'crashed' });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'idempotency_in_progress', msg: expect.stringMatching(/releases its key after 2 minutes/) });

    clock.advance(IDEMPOTENCY_LEASE_MS);
    const retried = await createPosts(t, tenant, body, { 'idempotency-key': 'crashed' });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(await postsOf(tenant.workspaceId)).toHaveLength(1);
    // From then on the key answers as usual.
    const replay = await createPosts(t, tenant, body, { 'idempotency-key': 'crashed' });
    expect(replay.json()).toEqual(retried.json());
    expect(await postsOf(tenant.workspaceId)).toHaveLength(1);
    // A different body with the stuck key is still refused, lease or not.
    await t.runtime.db
      .insertInto('idempotency_keys')
      .values({
        workspace_id: tenant.workspaceId,
        key: 'crashed-2',
        request_hash: 'another body',
        status_code: null,
        response: null,
        created_at: clock.now().toISOString(),
      })
      .execute();
    clock.advance(IDEMPOTENCY_LEASE_MS);
    expect((await createPosts(t, tenant, body, { 'idempotency-key': 'crashed-2' })).json().code).toBe('idempotency_key_reused');
  });

  it('an answer stored before the create answer carried the group is replayed with it', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const body = postBody(tenant.channelId, { date: '2026-05-05T12:00:00Z' });
    const first = await createPosts(t, tenant, body, { 'idempotency-key': 'before-group' });
    const { postId, integration, group } = (first.json() as Array<{ postId: string; integration: string; group: string }>)[0]!;
    await t.runtime.db
      .updateTable('idempotency_keys')
      .set({ response: JSON.stringify([{ postId, integration }]) })
      .where('workspace_id', '=', tenant.workspaceId)
      .where('key', '=', 'before-group')
      .execute();
    const replay = await createPosts(t, tenant, body, { 'idempotency-key': 'before-group' });
    expect(replay.statusCode, replay.body).toBe(200);
    expect(replay.json()).toEqual([{ postId, integration, group }]);
  });

  it('the answer is stored in the same write as the posts, under the claim the request took', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const body = postBody(tenant.channelId, { date: '2026-05-05T11:00:00Z' });
    const ok = await createPosts(t, tenant, body, { 'idempotency-key': 'stored' });
    const row = await t.runtime.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', tenant.workspaceId)
      .where('key', '=', 'stored')
      .executeTakeFirstOrThrow();
    expect(row.status_code).toBe(200);
    expect(JSON.parse(row.response!)).toEqual(ok.json());
  });

  it('keys are kept 48 hours: after that the same key is a new request; README and the OpenAPI description say so', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const first = await createPosts(t, tenant, postBody(tenant.channelId, { date: '2026-05-20T10:00:00Z' }), { 'idempotency-key': 'old' });
    expect(first.statusCode).toBe(200);
    clock.advance(IDEMPOTENCY_RETENTION_MS - 60_000);
    const changed = postBody(tenant.channelId, { date: '2026-05-21T10:00:00Z' });
    expect((await createPosts(t, tenant, changed, { 'idempotency-key': 'old' })).json().code).toBe('idempotency_key_reused');
    clock.advance(60_000);
    const reused = await createPosts(t, tenant, changed, { 'idempotency-key': 'old' });
    expect(reused.statusCode, reused.body).toBe(200);
    expect(reused.json()[0].postId).not.toBe(first.json()[0].postId);

    const openapi = JSON.parse(fs.readFileSync('openapi/public-api-v1.json', 'utf8')) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; description?: string }> }>>;
    };
    const header = openapi.paths['/posts']!.post!.parameters!.find((p) => p.name === 'idempotency-key')!;
    expect(header.description).toMatch(/kept 48 hours/);
    expect(header.description).toMatch(/per workspace/);
    expect(header.description).toMatch(/2 minutes/);
    const readme = fs.readFileSync('README.md', 'utf8');
    expect(readme).toMatch(/kept 48 hours per workspace/);
    expect(readme).not.toMatch(/Idempotency-Key[^\n]*24 hours|kept 24 hours/);
  });
});
