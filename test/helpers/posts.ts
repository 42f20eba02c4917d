import { expect } from 'vitest';
import { REST_SCOPES } from '../../src/auth/scopes.ts';
import { newId } from '../../src/lib/ids.ts';
import type { PostPartsTable, PostsTable } from '../../src/posts/posts.table.ts';
import { createTenant, TEST_WEBHOOK_SECRET, type TestApp, type Tenant } from './app.ts';
import { fileBody } from './media-files.ts';

/** A tenant with one webhook channel pointing at `url`. */
export async function webhookTenant(
  t: TestApp,
  url: string,
  config: Record<string, unknown> = {},
  tenantOptions: Parameters<typeof createTenant>[1] = {},
) {
  const tenant = await createTenant(t, tenantOptions);
  const channel = await t.services.channels.create(tenant.workspaceId, {
    provider: 'webhook',
    name: 'Hook',
    config: { url, secret: TEST_WEBHOOK_SECRET, ...config },
  });
  return { ...tenant, channelId: channel.id };
}

export type PostBody = {
  type: 'draft' | 'schedule' | 'now';
  date: string;
  posts: Array<{
    integration: { id: string };
    value: Array<{ content: string; image?: Array<{ id?: string; path: string }>; delay?: number }>;
    settings?: Record<string, unknown>;
  }>;
  shortLink?: boolean;
  tags?: string[];
  group?: string;
};

export function postBody(
  channelId: string,
  overrides: Partial<PostBody> = {},
  values: PostBody['posts'][number]['value'] = [{ content: '<p>Hello world</p>' }],
): PostBody {
  return { type: 'schedule', date: '2026-06-01T10:00:00.000Z', posts: [{ integration: { id: channelId }, value: values }], ...overrides };
}

export async function createPosts(t: TestApp, tenant: Tenant, body: unknown, headers: Record<string, string> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/public/v1/posts',
    key: tenant.key,
    payload: body as Record<string, unknown>,
    headers,
  });
  return res;
}

export async function createOk(t: TestApp, tenant: Tenant, body: unknown): Promise<Array<{ postId: string; integration: string }>> {
  const res = await createPosts(t, tenant, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function getPost(t: TestApp, tenant: Tenant, id: string) {
  const res = await t.request({ method: 'GET', url: `/public/v1/posts/${id}`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    id: string;
    state: string;
    group: string;
    publishDate: string;
    releaseId: string | null;
    releaseURL: string | null;
    error: string | null;
    errorKind: string | null;
    value: Array<{ state: string; releaseId: string | null; error: string | null; publishedAt: string | null }>;
  };
}

/**
 * A draft post in `workspaceId`, made through the service (not through any key), so auth
 * tests can point at a real post whatever they do to the caller's key.
 */
export async function seedPost(t: TestApp, workspaceId: string): Promise<{ postId: string; group: string }> {
  const channel = await t.services.channels.create(workspaceId, {
    provider: 'webhook',
    name: 'Seed',
    config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
  });
  const workspace = await t.services.workspaces.get(workspaceId);
  const access = {
    principal: { keyId: 'seed', userId: 'seed', kind: 'rest' as const, scopes: [], channelIds: null, workspaceId: null },
    workspace,
    role: 'owner' as const,
    scopes: new Set(REST_SCOPES),
    channelIds: null,
  };
  const [created] = await t.services.posts.create(access, {
    type: 'draft',
    date: '2026-05-10T10:00:00.000Z',
    shortLink: false,
    tags: [],
    posts: [{ integration: { id: channel.id }, value: [{ content: 'seed', image: [] }] }],
  });
  const row = await t.runtime.db.selectFrom('posts').select('group_id').where('id', '=', created!.postId).executeTakeFirstOrThrow();
  return { postId: created!.postId, group: row.group_id };
}

/**
 * Stores `count` queued posts of `channelId` straight in the database, `nextRunAt(i)` each, 500
 * per statement (as many as a busy calendar holds, without the API's cost; no parts).
 */
export async function seedQueuedPosts(
  t: TestApp,
  workspaceId: string,
  channelId: string,
  count: number,
  nextRunAt: (i: number) => string,
  stamp: string,
): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    const rows: PostsTable[] = [];
    for (let i = start; i < Math.min(count, start + 500); i++) {
      const at = nextRunAt(i);
      rows.push(
        postRow({
          id: newId(),
          group_id: newId(),
          workspace_id: workspaceId,
          channel_id: channelId,
          state: 'QUEUE',
          publish_at: at,
          next_run_at: at,
          created_at: stamp,
        }),
      );
    }
    await t.runtime.db.insertInto('posts').values(rows).execute();
  }
}

/**
 * A post's row as it is stored, for tests that write many straight to the database: a draft in
 * its own group (`group_id` = `id`), no outcome, `updated_at` = `created_at`; `row` sets the rest.
 */
export function postRow(
  row: Pick<PostsTable, 'id' | 'workspace_id' | 'channel_id' | 'publish_at' | 'created_at'> & Partial<PostsTable>,
): PostsTable {
  return {
    group_id: row.id,
    series_id: null,
    occurrence_at: null,
    series_exception: null,
    state: 'DRAFT',
    settings: '{}',
    tags: '[]',
    short_link: 0,
    release_id: null,
    release_url: null,
    error: null,
    error_kind: null,
    next_run_at: null,
    published_at: null,
    updated_at: row.created_at,
    deleted_at: null,
    version: 0,
    ...row,
  };
}

/** A part's row as it is stored: the post itself (`idx` 0), pending, no images, never tried; `row` sets the rest. */
export function partRow(row: Pick<PostPartsTable, 'post_id' | 'content'> & Partial<PostPartsTable>): PostPartsTable {
  return {
    idx: 0,
    images: '[]',
    delay_minutes: 0,
    state: 'PENDING',
    attempts: 0,
    claimed_at: null,
    lease_until: null,
    release_id: null,
    release_url: null,
    release_meta: null,
    error: null,
    published_at: null,
    ...row,
  };
}

/** Uploads `data` to the tenant's media library (POST /upload); the stored item's id and path. */
export async function uploadMedia(t: TestApp, tenant: Tenant, data: Buffer, name: string, type: string) {
  const res = await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(data, name, type) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; path: string };
}

/** What GET /posts/:id/missing says about `body` saved as a draft. */
export async function missingOf(t: TestApp, tenant: Tenant, body: unknown): Promise<Array<{ field: string; reason: string }>> {
  const [created] = await createOk(t, tenant, { ...(body as object), type: 'draft' });
  const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { missing: Array<{ field: string; reason: string }> }).missing;
}
