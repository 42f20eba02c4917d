import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type Tenant, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { createOk, createPosts, getPost, postBody, seedPost, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

type Post = {
  id: string;
  group: string;
  state: string;
  publishDate: string;
  content: string;
  value: Array<{ content: string; image: Array<{ id?: string; path: string }>; delay: number; state: string }>;
  settings: Record<string, unknown>;
  tags: string[];
  shortLink: boolean;
  updatedAt: string;
};

function patch(tenant: Tenant, id: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'PATCH',
    url: `/public/v1/posts/${id}`,
    key: tenant.key,
    payload: payload as Record<string, unknown>,
    headers,
  });
}

function put(tenant: Tenant, id: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.request({ method: 'PUT', url: `/public/v1/posts/${id}`, key: tenant.key, payload: payload as Record<string, unknown>, headers });
}

const versionOf = async (id: string) =>
  Number((await t.runtime.db.selectFrom('posts').select('version').where('id', '=', id).executeTakeFirstOrThrow()).version);

/** A scheduled post with two comments, tags and a setting, on a tenant's webhook channel. */
async function scheduled(tenant: Awaited<ReturnType<typeof webhookTenant>>, date = '2026-06-01T10:00:00Z') {
  const [created] = await createOk(t, tenant, {
    type: 'schedule',
    date,
    tags: ['launch'],
    shortLink: true,
    posts: [
      {
        integration: { id: tenant.channelId },
        value: [{ content: '<p>Post</p>' }, { content: '<p>First</p>', delay: 5 }, { content: '<p>Second</p>', delay: 10 }],
        settings: { __type: 'webhook', title: 'Launch', note: 'keep' },
      },
    ],
  });
  return created!.postId;
}

describe('POST /public/v1/posts answers the group', () => {
  it('each created item carries the composition’s group id, the one the post shows', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const second = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Second',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const created = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-02T09:00:00Z',
      posts: [
        { integration: { id: tenant.channelId }, value: [{ content: 'a' }] },
        { integration: { id: second.id }, value: [{ content: 'b' }] },
      ],
    });
    const group = (await getPost(t, tenant, created[0]!.postId)).group;
    expect(created).toEqual([
      { postId: expect.any(String), integration: tenant.channelId, group },
      { postId: expect.any(String), integration: second.id, group },
    ]);
  });
});

describe('PATCH /public/v1/posts/:id', () => {
  it('changes only what it is given: the text keeps its comments, media, date, state, tags and settings', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const before = (await getPost(t, tenant, id)) as unknown as Post;
    const version = await versionOf(id);
    clock.advance(1000);

    const res = await patch(tenant, id, { content: 'Corrected\n\ntext' });
    expect(res.statusCode, res.body).toBe(200);
    const after = res.json() as Post;
    expect(after).toEqual({ ...(await getPost(t, tenant, id)) });
    expect(after).toMatchObject({
      id,
      group: before.group,
      state: 'QUEUE',
      publishDate: '2026-06-01T10:00:00.000Z',
      content: '<p>Corrected</p><p>text</p>',
      settings: { __type: 'webhook', title: 'Launch', note: 'keep' },
      tags: ['launch'],
      shortLink: true,
    });
    expect(after.value.map((v) => [v.content, v.delay])).toEqual([
      ['<p>Corrected</p><p>text</p>', 0],
      ['<p>First</p>', 5],
      ['<p>Second</p>', 10],
    ]);
    expect(after.updatedAt).not.toBe(before.updatedAt);
    expect(await versionOf(id)).toBe(version + 1);
  });

  it('moves the date, replaces comments, tags and media, merges settings (null removes a key), and moves between draft and scheduled', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const upload = await t.request({
      method: 'POST',
      url: '/public/v1/upload',
      key: tenant.key,
      ...fileBody(png(3, 3, [1, 2, 3]), 'a.png'),
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const { path } = upload.json() as { path: string };

    const moved = await patch(tenant, id, {
      date: '2026-06-02T11:00:00+02:00',
      comments: [{ content: 'Only reply', delay: 3 }],
      image: [{ path }],
      tags: ['b', 'b', 'c'],
      settings: { title: 'New', note: null },
      shortLink: false,
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const post = moved.json() as Post;
    expect(post).toMatchObject({
      state: 'QUEUE',
      publishDate: '2026-06-02T09:00:00.000Z',
      settings: { __type: 'webhook', title: 'New' },
      tags: ['b', 'c'],
      shortLink: false,
    });
    expect(post.settings).not.toHaveProperty('note');
    expect(post.value.map((v) => [v.content, v.delay, v.image.map((i) => i.path)])).toEqual([
      ['<p>Post</p>', 0, [path]],
      ['<p>Only reply</p>', 3, []],
    ]);

    const draft = await patch(tenant, id, { type: 'draft', comments: [] });
    expect(draft.json()).toMatchObject({ state: 'DRAFT', value: [{ content: '<p>Post</p>' }] });
    // Left out, the type keeps a draft a draft.
    expect((await patch(tenant, id, { content: 'Still a draft' })).json()).toMatchObject({ state: 'DRAFT' });
    const again = await patch(tenant, id, { type: 'schedule', value: [{ content: 'Whole thread' }, { content: 'Reply', delay: 1 }] });
    expect(again.json()).toMatchObject({ state: 'QUEUE', value: [{ content: '<p>Whole thread</p>', image: [] }, { delay: 1 }] });
  });

  it('refuses a published post (400 invalid_transition) and one being published (409 post_publishing), changing nothing', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const published = await scheduled(tenant);
    const publishing = await scheduled(tenant);
    await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHED' }).where('id', '=', published).execute();
    await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHING' }).where('id', '=', publishing).execute();
    for (const send of [patch, put]) {
      const body = { type: 'draft', date: '2026-06-01T10:00:00Z', value: [{ content: 'late' }] };
      const late = await send(tenant, published, send === patch ? { content: 'late' } : body);
      expect(late.statusCode, late.body).toBe(400);
      expect(late.json()).toMatchObject({ code: 'invalid_transition', msg: expect.stringMatching(/already published/) });
      const busy = await send(tenant, publishing, send === patch ? { content: 'late' } : body);
      expect(busy.statusCode, busy.body).toBe(409);
      expect(busy.json()).toMatchObject({ code: 'post_publishing', msg: expect.stringMatching(/being published/) });
    }
    for (const id of [published, publishing])
      expect((await getPost(t, tenant, id)).value).toMatchObject([{ content: '<p>Post</p>' }, {}, {}]);
  });

  it('a post in ERROR can be edited: left as it is it becomes a draft, with `schedule` it is queued again', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    await t.runtime.db.updateTable('posts').set({ state: 'ERROR', error: 'boom', error_kind: 'rejected' }).where('id', '=', id).execute();
    expect((await patch(tenant, id, { content: 'fixed' })).json()).toMatchObject({ state: 'DRAFT', error: null, errorKind: null });
    await t.runtime.db.updateTable('posts').set({ state: 'ERROR' }).where('id', '=', id).execute();
    expect((await patch(tenant, id, { type: 'schedule' })).json()).toMatchObject({ state: 'QUEUE' });
  });

  it("another workspace's post, a missing one and one outside a channel-limited key are all 404, alike", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const theirs = await scheduled(other);
    const second = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Second',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const [hidden] = await createOk(t, tenant, postBody(second.id, { type: 'draft' }));
    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: [tenant.channelId] });
    const answers = [
      await patch(tenant, theirs, { content: 'x' }),
      await patch(tenant, 'missing-id', { content: 'x' }),
      await patch(limited, hidden!.postId, { content: 'x' }),
      await put(limited, hidden!.postId, { type: 'draft', date: '2026-06-01T10:00:00Z', value: [{ content: 'x' }] }),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found', msg: expect.stringMatching(/^No post .* in this workspace\.$/) });
    }
    expect((await getPost(t, other, theirs)).value[0]).toMatchObject({ content: '<p>Post</p>' });
    // The limited key edits its own channel's posts.
    const [mine] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    expect((await patch(limited, mine!.postId, { content: 'mine' })).statusCode).toBe(200);
  });

  it('scopes as an edit through the group: posts:draft for drafts, posts:publish for anything queued; posts:read alone is 403', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const queued = await scheduled(tenant);
    const [draft] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    const reader = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:read'] });
    const drafter = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    const contributor = await createTenant(t, { workspaceId: tenant.workspaceId, role: 'contributor' });

    const read = await patch(reader, draft!.postId, { content: 'x' });
    expect(read.statusCode).toBe(403);
    expect(read.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:draft' });
    for (const caller of [drafter, contributor]) {
      expect((await patch(caller, draft!.postId, { content: 'draft edit' })).statusCode).toBe(200);
      for (const [id, body] of [
        [draft!.postId, { type: 'schedule' }],
        [draft!.postId, { type: 'now' }],
        [queued, { content: 'edit in the queue' }],
        [queued, { type: 'draft' }],
      ] as const) {
        const res = await patch(caller, id, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(403);
        expect(res.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
      }
    }
    expect((await getPost(t, tenant, queued)).state).toBe('QUEUE');
    expect((await getPost(t, tenant, draft!.postId)).state).toBe('DRAFT');
  });

  it("answers 400 in the spec's validation shape for malformed fields", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const cases: Array<[string, unknown, RegExp]> = [
      ['date without zone', { date: '2026-06-01T10:00:00' }, /body\.date/],
      ['unknown type', { type: 'later' }, /body\.type/],
      ['content not a string', { content: 5 }, /body\.content/],
      ['empty thread', { value: [] }, /body\.value/],
      ['image not a url', { image: [{ path: 'cat.png' }] }, /body\.image\.0\.path/],
      ['negative delay', { comments: [{ content: 'a', delay: -1 }] }, /body\.comments\.0\.delay/],
      ['tags not strings', { tags: [1] }, /body\.tags\.0/],
      ['shortLink not boolean', { shortLink: 'yes' }, /body\.shortLink/],
    ];
    for (const [name, body, pattern] of cases) {
      const res = await patch(tenant, id, body);
      expect(res.statusCode, name).toBe(400);
      expect(res.json(), name).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(res.json().message), name).toMatch(pattern);
    }
    const putMissing = await put(tenant, id, { value: [{ content: 'x' }] });
    expect(putMissing.statusCode).toBe(400);
    expect(JSON.stringify(putMissing.json().message)).toMatch(/body\.type/);
  });

  it('answers 400 {msg, code} for business-rule problems, changing nothing', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const version = await versionOf(id);
    const cases: Array<[string, unknown, RegExp, string]> = [
      ['nothing', {}, /^Nothing to change/, 'nothing_to_change'],
      ['unknown fields only', { text: 'x' }, /^Nothing to change/, 'nothing_to_change'],
      ['value with content', { value: [{ content: 'a' }], content: 'b' }, /^value: .*not both/, 'bad_request'],
      ['platform mismatch', { settings: { __type: 'bluesky' } }, /^settings\.__type: .*does not match/, 'bad_request'],
      ['wrong setting type', { settings: { title: 5 } }, /^settings\.title/, 'bad_request'],
      [
        'image not in library',
        { image: [{ path: 'http://herald.test/media/nope.png' }] },
        /^value\[0\]\.image\[0\]: .* not a file/,
        'bad_request',
      ],
      ['date in the past', { date: '2026-04-01T00:00:00Z' }, /in the past/, 'date_in_past'],
    ];
    for (const [name, body, pattern, code] of cases) {
      const res = await patch(tenant, id, body);
      expect(res.statusCode, name).toBe(400);
      expect(res.json(), name).toMatchObject({ code, msg: expect.stringMatching(pattern) });
    }
    await t.services.channels.disable(tenant.channelId, 'needs_reconnect');
    const disabled = await patch(tenant, id, { content: 'x' });
    expect(disabled.json()).toMatchObject({ code: 'channel_disabled', msg: expect.stringMatching(/needs reconnecting/) });
    expect(await versionOf(id)).toBe(version);
  });

  it('an Idempotency-Key replays the first answer and edits once; another body, or another post, with it is refused', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const other = await scheduled(tenant);
    const version = await versionOf(id);
    const first = await patch(tenant, id, { content: 'once' }, { 'idempotency-key': 'edit-1' });
    expect(first.statusCode, first.body).toBe(200);
    clock.advance(1000);
    const again = await patch(tenant, id, { content: 'once' }, { 'idempotency-key': 'edit-1' });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await versionOf(id)).toBe(version + 1);
    for (const res of [
      await patch(tenant, id, { content: 'twice' }, { 'idempotency-key': 'edit-1' }),
      await patch(tenant, other, { content: 'once' }, { 'idempotency-key': 'edit-1' }),
      await put(
        tenant,
        id,
        { type: 'schedule', date: '2026-06-01T10:00:00Z', value: [{ content: 'once' }] },
        { 'idempotency-key': 'edit-1' },
      ),
      await createPosts(t, tenant, postBody(tenant.channelId), { 'idempotency-key': 'edit-1' }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('idempotency_key_reused');
    }
    // A replay is answered only to a caller that may make the request.
    const drafter = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    const refused = await patch(drafter, id, { content: 'once' }, { 'idempotency-key': 'edit-1' });
    expect(refused.statusCode).toBe(403);
    // A failed edit does not burn its key.
    const bad = await patch(tenant, other, { date: '2026-04-01T00:00:00Z' }, { 'idempotency-key': 'edit-2' });
    expect(bad.statusCode).toBe(400);
    expect((await patch(tenant, other, { content: 'ok' }, { 'idempotency-key': 'edit-2' })).statusCode).toBe(200);
    expect((await getPost(t, tenant, id)).value[0]).toMatchObject({ content: '<p>once</p>' });
  });

  it('an edit merged with a read that another edit overtook is refused with 409 post_changed', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const stale = (await t.runtime.db.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow())!;
    expect((await patch(tenant, id, { tags: ['first'] })).statusCode).toBe(200);
    const transitions = t.services.postTransitions;
    const composition = {
      post: { ...stale, state: 'QUEUE' as const },
      parts: [{ content: '<p>stale</p>', images: '[]', delay_minutes: 0 }],
      mediaIds: [],
      author: { userId: tenant.userId, role: 'owner' as const },
    };
    await expect(
      t.runtime.db
        .transaction()
        .execute((trx) => transitions.write(trx, stale, composition, clock.now().toISOString(), { version: Number(stale.version) })),
    ).rejects.toMatchObject({ statusCode: 409, code: 'post_changed' });
    expect((await getPost(t, tenant, id)) as unknown as Post).toMatchObject({ tags: ['first'], content: '<p>Post</p>' });
  });

  runAuthMatrix(() => t, {
    method: 'PATCH',
    url: async (_t, tenant) => `/public/v1/posts/${(await seedPost(t, tenant.workspaceId)).postId}`,
    body: { content: 'edited' },
    scope: 'posts:draft',
  });
});

describe('PUT /public/v1/posts/:id', () => {
  it('replaces the post as a whole: what is left out takes its default, through the same rules', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await scheduled(tenant);
    const res = await put(tenant, id, { type: 'draft', date: '2026-06-03T08:00:00Z', value: [{ content: 'Replaced' }] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id,
      state: 'DRAFT',
      publishDate: '2026-06-03T08:00:00.000Z',
      value: [{ content: '<p>Replaced</p>', delay: 0, image: [] }],
      settings: { __type: 'webhook' },
      tags: [],
      shortLink: false,
    });
    expect(res.json().value).toHaveLength(1);
    expect(res.json()).toEqual(await getPost(t, tenant, id));
    const drafter = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    const refused = await put(drafter, id, { type: 'schedule', date: '2026-06-03T08:00:00Z', value: [{ content: 'x' }] });
    expect(refused.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
  });

  runAuthMatrix(() => t, {
    method: 'PUT',
    url: async (_t, tenant) => `/public/v1/posts/${(await seedPost(t, tenant.workspaceId)).postId}`,
    body: { type: 'draft', date: '2026-05-10T10:00:00Z', value: [{ content: 'replaced' }] },
    scope: 'posts:draft',
  });
});
