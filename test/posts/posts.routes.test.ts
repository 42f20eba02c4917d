import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { getProvider } from '../../src/providers/registry.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { createOk, createPosts, getPost, postBody, seedPost, webhookTenant } from '../helpers/posts.ts';

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
let t: TestApp;
const HOOK = 'https://hooks.example.test/in';

beforeAll(async () => {
  t = await createTestApp({ clock });
});

describe('POST /public/v1/posts', () => {
  it('creates a draft per channel, grouped, with sanitised HTML, tags and settings', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const second = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Second',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const res = await createPosts(t, tenant, {
      type: 'draft',
      date: '2026-05-02T09:00:00Z',
      tags: ['launch', 'launch', 'q2'],
      posts: [
        {
          integration: { id: tenant.channelId },
          value: [
            {
              content:
                '<p onclick="steal()">Hi <script>alert(1)</script><a href="javascript:x()">x</a><a href="https://herald.test">site</a></p>',
            },
            { content: '<p>reply</p>', delay: 3 },
          ],
          settings: { __type: 'webhook', title: 'Launch' },
        },
        { integration: { id: second.id }, value: [{ content: '<p>Other</p>' }] },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const created = res.json() as Array<{ postId: string; integration: string }>;
    expect(created.map((c) => c.integration)).toEqual([tenant.channelId, second.id]);
    const a = await getPost(t, tenant, created[0]!.postId);
    const b = await getPost(t, tenant, created[1]!.postId);
    expect(a.group).toBe(b.group);
    expect(a).toMatchObject({
      state: 'DRAFT',
      publishDate: '2026-05-02T09:00:00.000Z',
      integration: { id: tenant.channelId, providerIdentifier: 'webhook' },
      tags: ['launch', 'q2'],
      settings: { __type: 'webhook', title: 'Launch' },
      shortLink: false,
    });
    const content = (a as unknown as { content: string }).content;
    expect(content).not.toMatch(/script|onclick|javascript/);
    expect(content).toContain('<a href="https://herald.test" rel="noopener noreferrer nofollow">site</a>');
    expect(a.value.map((v) => (v as unknown as { delay: number }).delay)).toEqual([0, 3]);
  });

  it('keeps the paragraphs and line breaks of plain text (content without HTML tags), and its characters as written', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const contents = [
      'line one\nline two',
      'First paragraph,\r\nstill the first.\n\n  \nSecond: 1 < 2 & "quotes" <3',
      '<p>Already HTML\nwith a newline inside</p>',
    ];
    const [created] = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-02T09:00:00Z',
      posts: [{ integration: { id: tenant.channelId }, value: contents.map((content) => ({ content })) }],
    });
    const post = await getPost(t, tenant, created!.postId);
    const stored = post.value.map((v) => (v as unknown as { content: string }).content);
    expect(stored).toEqual([
      '<p>line one<br />line two</p>',
      '<p>First paragraph,<br />still the first.</p><p>Second: 1 &lt; 2 &amp; "quotes" &lt;3</p>',
      // HTML is HTML: a newline inside it is white space, as in a browser.
      '<p>Already HTML\nwith a newline inside</p>',
    ]);
    // What a platform that takes text receives.
    expect(getProvider('webhook').toText(stored[0]!)).toBe('line one\nline two');
    expect(getProvider('webhook').toText(stored[1]!)).toBe('First paragraph,\nstill the first.\n\nSecond: 1 < 2 & "quotes" <3');
  });

  it('schedules with posts:publish, answering QUEUE; a draft-only key cannot', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-05-03T10:00:00Z' }));
    expect((await getPost(t, tenant, created!.postId)).state).toBe('QUEUE');

    const drafter = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    for (const type of ['schedule', 'now'] as const) {
      const res = await createPosts(t, drafter, postBody(tenant.channelId, { type }));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ scope: 'posts:publish', code: 'missing_scope' });
    }
    expect((await createPosts(t, drafter, postBody(tenant.channelId, { type: 'draft' }))).statusCode).toBe(200);

    const contributor = await createTenant(t, { workspaceId: tenant.workspaceId, role: 'contributor' });
    const res = await createPosts(t, contributor, postBody(tenant.channelId));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ scope: 'posts:publish', role: 'contributor' });
  });

  it("refuses another workspace's channel as not found, a channel outside a limited key, and a disabled channel", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const foreign = await createPosts(t, tenant, postBody(other.channelId));
    const missing = await createPosts(t, tenant, postBody('no-such-channel'));
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json().msg).toMatch(/posts\[0\]\.integration\.id: no channel/);

    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: ['something-else'] });
    const outside = await createPosts(t, limited, postBody(tenant.channelId));
    expect(outside.statusCode).toBe(403);
    expect(outside.json().msg).toMatch(/limited to other channels/);

    await t.services.channels.disable(tenant.channelId, 'needs_reconnect');
    const disabled = await createPosts(t, tenant, postBody(tenant.channelId));
    expect(disabled.statusCode).toBe(400);
    expect(disabled.json().msg).toMatch(/needs reconnecting/);
  });

  it('answers 400 naming the field for every malformed part of the body', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const good = postBody(tenant.channelId);
    const cases: Array<[string, unknown, RegExp]> = [
      ['no body', undefined, /body/],
      ['type missing', { ...good, type: undefined }, /body\.type/],
      ['unknown type', { ...good, type: 'later' }, /body\.type/],
      ['date missing', { ...good, date: undefined }, /body\.date/],
      ['date without zone', { ...good, date: '2026-05-03T10:00:00' }, /body\.date/],
      ['date nonsense', { ...good, date: 'tomorrow' }, /body\.date/],
      ['posts empty', { ...good, posts: [] }, /body\.posts/],
      ['value empty', { ...good, posts: [{ integration: { id: tenant.channelId }, value: [] }] }, /body\.posts\.0\.value/],
      [
        'content missing',
        { ...good, posts: [{ integration: { id: tenant.channelId }, value: [{}] }] },
        /body\.posts\.0\.value\.0\.content/,
      ],
      [
        'negative delay',
        { ...good, posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'a' }, { content: 'b', delay: -1 }] }] },
        /delay/,
      ],
      [
        'fractional delay',
        { ...good, posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'a' }, { content: 'b', delay: 1.5 }] }] },
        /delay/,
      ],
      [
        'image not a url',
        { ...good, posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'a', image: [{ path: 'cat.png' }] }] }] },
        /image\.0\.path/,
      ],
      ['tags not strings', { ...good, tags: [1] }, /body\.tags\.0/],
      ['shortLink not boolean', { ...good, shortLink: 'yes' }, /shortLink/],
      ['integration missing', { ...good, posts: [{ value: [{ content: 'a' }] }] }, /integration/],
    ];
    for (const [name, body, pattern] of cases) {
      const res = await t.request({
        method: 'POST',
        url: '/public/v1/posts',
        key: tenant.key,
        ...(body !== undefined && { payload: body as Record<string, unknown> }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, name).toBe(400);
      const json = res.json();
      expect(json, name).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      expect(JSON.stringify(json.message), name).toMatch(pattern);
    }
  });

  it('answers 400 {msg} for business-rule problems in the items', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const cases: Array<[string, unknown, RegExp]> = [
      [
        '__type mismatch',
        postBody(tenant.channelId, {
          posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'x' }], settings: { __type: 'bluesky' } }],
        }),
        /settings\.__type.*does not match/,
      ],
      [
        'wrong setting type',
        postBody(tenant.channelId, {
          posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'x' }], settings: { __type: 'webhook', title: 5 } }],
        }),
        /posts\[0\]\.settings\.title/,
      ],
      [
        'duplicate channel',
        postBody(tenant.channelId, {
          posts: [
            { integration: { id: tenant.channelId }, value: [{ content: 'x' }] },
            { integration: { id: tenant.channelId }, value: [{ content: 'y' }] },
          ],
        }),
        /appears twice/,
      ],
      [
        'image not in library',
        postBody(tenant.channelId, {}, [{ content: 'x', image: [{ path: 'http://herald.test/media/nope.png' }] }]),
        /posts\[0\]\.value\[0\]\.image\[0\]: .* not a file of this workspace/,
      ],
      ['schedule in the past', postBody(tenant.channelId, { date: '2026-04-01T00:00:00Z' }), /in the past/],
    ];
    for (const [name, body, pattern] of cases) {
      const res = await createPosts(t, tenant, body);
      expect(res.statusCode, name).toBe(400);
      expect(res.json().msg, name).toMatch(pattern);
    }
  });

  it('an Idempotency-Key replays the first answer and creates nothing; another body with it is refused', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const body = postBody(tenant.channelId, { date: '2026-05-05T10:00:00Z' });
    const first = await createPosts(t, tenant, body, { 'idempotency-key': 'retry-1' });
    const again = await createPosts(t, tenant, body, { 'idempotency-key': 'retry-1' });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const listed = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-05-05T00:00:00Z&endDate=2026-05-06T00:00:00Z',
      key: tenant.key,
    });
    expect(listed.json().posts).toHaveLength(1);
    const other = await createPosts(t, tenant, { ...body, tags: ['changed'] }, { 'idempotency-key': 'retry-1' });
    expect(other.statusCode).toBe(400);
    expect(other.json().code).toBe('idempotency_key_reused');
    // Keys are per workspace: the same key elsewhere is a new request.
    const elsewhere = await webhookTenant(t, HOOK);
    expect((await createPosts(t, elsewhere, postBody(elsewhere.channelId), { 'idempotency-key': 'retry-1' })).statusCode).toBe(200);
  });

  it('a failed request does not burn its Idempotency-Key', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const bad = await createPosts(t, tenant, postBody('missing-channel'), { 'idempotency-key': 'k-fail' });
    expect(bad.statusCode).toBe(404);
    const good = await createPosts(t, tenant, postBody(tenant.channelId), { 'idempotency-key': 'k-fail' });
    expect(good.statusCode).toBe(200);
  });

  it('concurrent requests with one Idempotency-Key create one post', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const body = postBody(tenant.channelId, { date: '2026-05-07T10:00:00Z' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => createPosts(t, tenant, body, { 'idempotency-key': 'same' })));
    const ok = answers.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of answers) expect([200, 409]).toContain(r.statusCode);
    expect(new Set(ok.map((r) => r.body)).size).toBe(1);
    const listed = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-05-07T00:00:00Z&endDate=2026-05-08T00:00:00Z',
      key: tenant.key,
    });
    expect(listed.json().posts).toHaveLength(1);
  });

  it('with `group`, updates the composition in place: edits, adds and removes channels', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const b = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'B',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const c = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'C',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const created = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-08T10:00:00Z',
      posts: [
        { integration: { id: tenant.channelId }, value: [{ content: 'A1' }] },
        { integration: { id: b.id }, value: [{ content: 'B1' }] },
      ],
    });
    const group = (await getPost(t, tenant, created[0]!.postId)).group;
    const updated = await createOk(t, tenant, {
      type: 'schedule',
      group,
      date: '2026-05-09T10:00:00Z',
      posts: [
        { integration: { id: tenant.channelId }, value: [{ content: 'A2' }] },
        { integration: { id: c.id }, value: [{ content: 'C2' }] },
      ],
    });
    expect(updated[0]!.postId).toBe(created[0]!.postId);
    expect(updated[1]!.postId).not.toBe(created[1]!.postId);
    const a = await getPost(t, tenant, created[0]!.postId);
    expect(a).toMatchObject({ state: 'QUEUE', publishDate: '2026-05-09T10:00:00.000Z', content: '<p>A2</p>' });
    const gone = await t.request({ method: 'GET', url: `/public/v1/posts/${created[1]!.postId}`, key: tenant.key });
    expect(gone.statusCode).toBe(404);
    const listed = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-05-01T00:00:00Z&endDate=2026-05-31T00:00:00Z',
      key: tenant.key,
    });
    expect((listed.json().posts as Array<{ group: string }>).filter((p) => p.group === group)).toHaveLength(2);

    const unknown = await createPosts(t, tenant, { ...postBody(tenant.channelId), group: 'no-such-group' });
    expect(unknown.statusCode).toBe(404);
  });

  it('refuses to edit a composition that is already published', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHED' }).where('id', '=', created!.postId).execute();
    const group = (await getPost(t, tenant, created!.postId)).group;
    const res = await createPosts(t, tenant, { ...postBody(tenant.channelId), group });
    expect(res.statusCode).toBe(400);
    expect(res.json().msg).toMatch(/already published/);
  });

  it('enforces the monthly post quota with 402 and warns when it is nearly used', async () => {
    const tenant = await webhookTenant(t, HOOK);
    await t.services.workspaces.setPlan(tenant.workspaceId, { postsPerMonth: 5 });
    for (let i = 0; i < 4; i++) await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    let notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes).toEqual([
      expect.objectContaining({ type: 'limit_warning', message: "4 of the 5 posts this month's plan allows are used." }),
    ]);
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    const over = await createPosts(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    expect(over.statusCode).toBe(402);
    expect(over.json()).toMatchObject({ code: 'quota_posts', msg: expect.stringMatching(/5 posts a month/) });
    notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes.map((n: { type: string }) => n.type)).toEqual(['limit_warning', 'limit_warning']);
    // A new month starts afresh.
    clock.set('2026-06-01T00:00:00.000Z');
    try {
      expect((await createPosts(t, tenant, postBody(tenant.channelId, { type: 'draft' }))).statusCode).toBe(200);
    } finally {
      clock.set('2026-05-01T12:00:00.000Z');
    }
  });

  runAuthMatrix(() => t, {
    method: 'POST',
    url: () => '/public/v1/posts',
    scope: 'posts:draft',
    body: { type: 'draft', date: '2026-05-02T09:00:00Z', posts: [{ integration: { id: 'x' }, value: [{ content: 'x' }] }] },
    okStatus: 404,
  });
});

describe('GET /public/v1/posts', () => {
  it("lists the window's posts, oldest first, in the spec's shape", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const [late] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-05-20T10:00:00Z' }));
    const [early] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-05-10T10:00:00Z' }));
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-07-01T10:00:00Z' }));
    const res = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-05-10T10:00:00Z&endDate=2026-05-20T10:00:00Z',
      key: tenant.key,
    });
    expect(res.statusCode).toBe(200);
    const posts = res.json().posts as Array<Record<string, unknown>>;
    expect(posts.map((p) => p.id)).toEqual([early!.postId, late!.postId]);
    expect(posts[0]).toMatchObject({
      id: early!.postId,
      group: expect.any(String),
      state: 'DRAFT',
      publishDate: '2026-05-10T10:00:00.000Z',
      integration: { id: tenant.channelId, providerIdentifier: 'webhook' },
    });
  });

  it('filters by customer (client group), 404 for an unknown one', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const group = await t.services.groups.create(tenant.workspaceId, 'Client');
    const grouped = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'G',
      groupId: group.id,
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const [inGroup] = await createOk(t, tenant, postBody(grouped.id, { type: 'draft' }));
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }));
    const res = await t.request({
      method: 'GET',
      url: `/public/v1/posts?startDate=2026-06-01T00:00:00Z&endDate=2026-06-02T00:00:00Z&customer=${group.id}`,
      key: tenant.key,
    });
    expect((res.json().posts as Array<{ id: string }>).map((p) => p.id)).toEqual([inGroup!.postId]);
    const unknown = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-06-01T00:00:00Z&endDate=2026-06-02T00:00:00Z&customer=nope',
      key: tenant.key,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('refuses missing, malformed, reversed and over-long windows', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const bad = [
      '/public/v1/posts',
      '/public/v1/posts?startDate=2026-05-01T00:00:00Z',
      '/public/v1/posts?startDate=yesterday&endDate=2026-05-02T00:00:00Z',
      '/public/v1/posts?startDate=2026-05-01&endDate=2026-05-02T00:00:00Z',
      '/public/v1/posts?startDate=2026-05-02T00:00:00Z&endDate=2026-05-01T00:00:00Z',
      '/public/v1/posts?startDate=2026-01-01T00:00:00Z&endDate=2027-01-01T00:00:01Z',
    ];
    for (const url of bad) {
      const res = await t.request({ method: 'GET', url, key: tenant.key });
      expect(res.statusCode, url).toBe(400);
    }
    const year = await t.request({
      method: 'GET',
      url: '/public/v1/posts?startDate=2026-01-01T00:00:00Z&endDate=2027-01-01T00:00:00Z',
      key: tenant.key,
    });
    expect(year.statusCode).toBe(200);
  });

  it("never shows another workspace's posts, and a channel-limited key sees only its channels", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    await createOk(t, other, postBody(other.channelId, { type: 'draft', date: '2026-08-01T10:00:00Z' }));
    const second = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'S',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const [mine] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-08-01T10:00:00Z' }));
    await createOk(t, tenant, postBody(second.id, { type: 'draft', date: '2026-08-01T10:00:00Z' }));
    const window = '/public/v1/posts?startDate=2026-08-01T00:00:00Z&endDate=2026-08-02T00:00:00Z';
    expect((await t.request({ method: 'GET', url: window, key: tenant.key })).json().posts).toHaveLength(2);
    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: [tenant.channelId] });
    const seen = (await t.request({ method: 'GET', url: window, key: limited.key })).json().posts as Array<{ id: string }>;
    expect(seen.map((p) => p.id)).toEqual([mine!.postId]);
  });

  runAuthMatrix(() => t, {
    method: 'GET',
    url: () => '/public/v1/posts?startDate=2026-05-01T00:00:00Z&endDate=2026-05-02T00:00:00Z',
    scope: 'posts:read',
  });
});

describe('single-post routes', () => {
  async function draft(tenant: Awaited<ReturnType<typeof webhookTenant>>, date = '2026-05-10T10:00:00Z') {
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date }));
    return created!.postId;
  }

  it("another workspace's post is a 404 on every route, exactly like a missing one", async () => {
    const tenant = await webhookTenant(t, HOOK);
    const other = await webhookTenant(t, HOOK);
    const theirs = await draft(other);
    const routes: Array<{ method: 'GET' | 'PUT' | 'DELETE'; url: string; payload?: Record<string, unknown> }> = [
      { method: 'GET', url: `/public/v1/posts/${theirs}` },
      { method: 'GET', url: `/public/v1/posts/${theirs}/missing` },
      { method: 'PUT', url: `/public/v1/posts/${theirs}/status`, payload: { status: 'schedule' } },
      { method: 'PUT', url: `/public/v1/posts/${theirs}/release-id`, payload: { releaseId: 'x' } },
      { method: 'DELETE', url: `/public/v1/posts/${theirs}` },
      { method: 'DELETE', url: `/public/v1/posts/group/${(await getPost(t, other, theirs)).group}` },
    ];
    for (const route of routes) {
      const foreign = await t.request({ ...route, key: tenant.key });
      const missing = await t.request({
        ...route,
        url: route.url.replace(theirs, 'missing-id').replace(/group\/.*/, 'group/missing-id'),
        key: tenant.key,
      });
      expect(foreign.statusCode, route.url).toBe(404);
      expect(missing.statusCode, route.url).toBe(404);
      expect(foreign.json().code).toBe(missing.json().code);
    }
    expect((await getPost(t, other, theirs)).state).toBe('DRAFT');
  });

  it('PUT status moves draft ↔ schedule only, and repeats harmlessly', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await draft(tenant);
    const put = (status: string) =>
      t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: tenant.key, payload: { status } });
    expect((await put('schedule')).json().state).toBe('QUEUE');
    expect((await put('schedule')).json().state).toBe('QUEUE');
    expect((await put('draft')).json().state).toBe('DRAFT');
    expect((await put('draft')).json().state).toBe('DRAFT');
    const bad = await put('published');
    expect(bad.statusCode).toBe(400);
    await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHED' }).where('id', '=', id).execute();
    const late = await put('draft');
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ code: 'invalid_transition', msg: expect.stringMatching(/already published/) });
  });

  it('PUT status needs posts:publish: a draft-only key cannot move a post out of draft', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await draft(tenant);
    const drafter = await createTenant(t, { workspaceId: tenant.workspaceId, scopes: ['posts:draft', 'posts:read'] });
    const res = await t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: drafter.key, payload: { status: 'schedule' } });
    expect(res.statusCode).toBe(403);
    expect(res.json().scope).toBe('posts:publish');
  });

  it('PUT status refuses to schedule a draft whose date has passed', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await draft(tenant, '2026-04-01T00:00:00Z');
    const res = await t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: tenant.key, payload: { status: 'schedule' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('date_in_past');
  });

  it('PUT release-id records the platform id and URL without a state change', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const id = await draft(tenant);
    const res = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${id}/release-id`,
      key: tenant.key,
      payload: { releaseId: 'abc123', releaseURL: 'https://platform.example/p/abc123' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ state: 'DRAFT', releaseId: 'abc123', releaseURL: 'https://platform.example/p/abc123' });
    const bad = await t.request({ method: 'PUT', url: `/public/v1/posts/${id}/release-id`, key: tenant.key, payload: { releaseId: '' } });
    expect(bad.statusCode).toBe(400);
  });

  it('DELETE group removes every post of the composition', async () => {
    const tenant = await webhookTenant(t, HOOK);
    const b = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'B',
      config: { url: HOOK, secret: TEST_WEBHOOK_SECRET },
    });
    const created = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-10T10:00:00Z',
      posts: [
        { integration: { id: tenant.channelId }, value: [{ content: 'a' }] },
        { integration: { id: b.id }, value: [{ content: 'b' }] },
      ],
    });
    const group = (await getPost(t, tenant, created[0]!.postId)).group;
    const res = await t.request({
      method: 'DELETE',
      url: `/public/v1/posts/group/${group}`,
      key: tenant.key,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().deleted).toBe(2);
    expect([...res.json().ids].sort()).toEqual(created.map((c) => c.postId).sort());
    expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/group/${group}`, key: tenant.key })).statusCode).toBe(404);
  });

  it('GET missing lists what a publish lacks, empty when ready', async () => {
    const tenant = await webhookTenant(t, HOOK, { requireTitle: true });
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'draft' }, [{ content: '' }, { content: `<p>${'x'.repeat(10_001)}</p>` }]),
    );
    const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
    expect(res.json()).toEqual({
      postId: created!.postId,
      ready: false,
      missing: [
        { field: 'value[0].content', reason: 'There is no text and no media to publish.' },
        { field: 'settings.title', reason: 'This webhook channel requires a title.' },
        { field: 'value[1].content', reason: 'The text is 10001 characters long; Webhook allows 10000.' },
      ],
    });
    const [ready] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, {
        type: 'draft',
        posts: [{ integration: { id: tenant.channelId }, value: [{ content: 'ok' }], settings: { __type: 'webhook', title: 'T' } }],
      }),
    );
    expect((await t.request({ method: 'GET', url: `/public/v1/posts/${ready!.postId}/missing`, key: tenant.key })).json()).toEqual({
      postId: ready!.postId,
      ready: true,
      missing: [],
    });
  });

  const post = async (tenant: { workspaceId: string }) => (await seedPost(t, tenant.workspaceId)).postId;
  runAuthMatrix(() => t, { method: 'GET', url: async (_t, tenant) => `/public/v1/posts/${await post(tenant)}`, scope: 'posts:read' });
  runAuthMatrix(() => t, {
    method: 'GET',
    url: async (_t, tenant) => `/public/v1/posts/${await post(tenant)}/missing`,
    scope: 'posts:read',
  });
  runAuthMatrix(() => t, {
    method: 'PUT',
    url: async (_t, tenant) => `/public/v1/posts/${await post(tenant)}/status`,
    // Asking for the state the post is in changes nothing: the route's own scope; a move takes posts:publish (or approval).
    body: { status: 'draft' },
    scope: 'posts:draft',
  });
  runAuthMatrix(() => t, {
    method: 'PUT',
    url: async (_t, tenant) => `/public/v1/posts/${await post(tenant)}/release-id`,
    body: { releaseId: 'r' },
    scope: 'posts:publish',
  });
  runAuthMatrix(() => t, { method: 'DELETE', url: async (_t, tenant) => `/public/v1/posts/${await post(tenant)}`, scope: 'posts:draft' });
  runAuthMatrix(() => t, {
    method: 'DELETE',
    url: async (_t, tenant) => `/public/v1/posts/group/${(await seedPost(t, tenant.workspaceId)).group}`,
    scope: 'posts:draft',
  });
});
