import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, createPosts, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// The promise under test: a post goes out once, with the content the API shows, or ends in ERROR
// with a reason. Calls held open by the receiver stand for slow platforms; the outbound time
// limit is long so that only the test decides when a held call answers.
const clock = new ManualClock('2026-09-01T08:00:00.000Z');
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** Runs once, in the worker, between its read of a post and its claim. */
let betweenReadAndClaim: (() => Promise<void>) | null = null;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({
    clock,
    engine: true,
    // One job at a time, as BullMQ runs a job id once: the interleaving below is then the only one.
    engineConcurrency: 1,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '120' },
    publisherHooks: {
      beforeClaim: async () => {
        const run = betweenReadAndClaim;
        betweenReadAndClaim = null;
        await run?.();
      },
    },
    publisherOptions: { renewEveryMs: 20 },
  });
});

const deliveriesFor = (postId: string) => receiver.deliveries.filter((d) => d.body.data.postId === postId);

async function at(iso: string) {
  clock.set(iso);
  await t.settle();
}

async function notificationTypes(key: string, postId: string): Promise<string[]> {
  const res = await t.request({ method: 'GET', url: '/public/v1/notifications', key });
  return (res.json().notifications as Array<{ type: string; postId: string | null }>).filter((n) => n.postId === postId).map((n) => n.type);
}

describe('an edit racing the claim', () => {
  it('an edit committed between the worker reading a post and claiming it: only the edited content goes out, once', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-01T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { date: '2026-09-01T09:00:00Z' }, [{ content: '<p>Old text</p>' }]),
    );
    const postId = created!.postId;
    const { group } = await getPost(t, tenant, postId);
    betweenReadAndClaim = async () => {
      const res = await createPosts(
        t,
        tenant,
        postBody(tenant.channelId, { date: '2026-09-01T09:00:00Z', group }, [{ content: '<p>New text</p>' }]),
      );
      expect(res.statusCode, res.body).toBe(200);
    };
    await at('2026-09-01T09:00:00.000Z');
    expect(betweenReadAndClaim).toBeNull();
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['New text']);
    const post = (await t.request({ method: 'GET', url: `/public/v1/posts/${postId}`, key: tenant.key })).json();
    expect(post).toMatchObject({ state: 'PUBLISHED', content: '<p>New text</p>' });
  });

  it('a PATCH of the post committed between the worker reading it and claiming it: only the edited content goes out, once', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-01T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { date: '2026-09-01T09:30:00Z' }, [{ content: '<p>Old text</p>' }]),
    );
    const postId = created!.postId;
    betweenReadAndClaim = async () => {
      const res = await t.request({
        method: 'PATCH',
        url: `/public/v1/posts/${postId}`,
        key: tenant.key,
        payload: { content: '<p>Patched text</p>' },
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await at('2026-09-01T09:30:00.000Z');
    expect(betweenReadAndClaim).toBeNull();
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['Patched text']);
    expect((await getPost(t, tenant, postId)).state).toBe('PUBLISHED');
  });

  it('while a post is being published, an edit, a status change and a delete answer 409 post_publishing; what was claimed goes out', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-02T08:00:00.000Z');
    receiver.answer('hold');
    const before = receiver.deliveries.length;
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Being sent</p>' }]));
    const postId = created!.postId;
    await receiver.received(before + 1);
    const { group, state } = await getPost(t, tenant, postId);
    expect(state).toBe('PUBLISHING');

    const edit = await createPosts(t, tenant, postBody(tenant.channelId, { type: 'now', group }, [{ content: '<p>Too late</p>' }]));
    const draft = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${postId}/status`,
      key: tenant.key,
      payload: { status: 'draft' },
    });
    const removed = await t.request({ method: 'DELETE', url: `/public/v1/posts/${postId}`, key: tenant.key });
    const removedGroup = await t.request({ method: 'DELETE', url: `/public/v1/posts/group/${group}`, key: tenant.key });
    const patched = await t.request({
      method: 'PATCH',
      url: `/public/v1/posts/${postId}`,
      key: tenant.key,
      payload: { content: 'Too late' },
    });
    const replaced = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${postId}`,
      key: tenant.key,
      payload: { type: 'now', date: '2026-09-02T08:00:00Z', value: [{ content: 'Too late' }] },
    });
    for (const res of [edit, draft, removed, removedGroup, patched, replaced]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'post_publishing', msg: expect.stringMatching(/being published/) });
    }

    receiver.release();
    await t.settle();
    const post = (await t.request({ method: 'GET', url: `/public/v1/posts/${postId}`, key: tenant.key })).json();
    expect(post).toMatchObject({ state: 'PUBLISHED', content: '<p>Being sent</p>' });
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['Being sent']);
  });

  it('while a post or one of its comments is being published, a release id answers 409 post_publishing and changes nothing; afterwards it is an edit, counted in the version', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-02T10:00:00.000Z');
    receiver.answer('hold', 'hold');
    const before = receiver.deliveries.length;
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Post</p>' }, { content: '<p>Comment</p>', delay: 0 }]),
    );
    const postId = created!.postId;
    const version = async () =>
      Number((await t.runtime.db.selectFrom('posts').select('version').where('id', '=', postId).executeTakeFirstOrThrow()).version);
    const setRelease = (releaseId: string) =>
      t.request({
        method: 'PUT',
        url: `/public/v1/posts/${postId}/release-id`,
        key: tenant.key,
        payload: { releaseId, releaseURL: `https://platform.example/p/${releaseId}` },
      });

    await receiver.received(before + 1);
    expect((await getPost(t, tenant, postId)).state).toBe('PUBLISHING');
    const claimed = await version();
    const whilePost = await setRelease('manual-1');
    // Its post published, its comment sent and held: the post is PUBLISHED, its comment SENDING.
    receiver.release();
    await receiver.received(before + 2);
    const published = await getPost(t, tenant, postId);
    expect(published).toMatchObject({ state: 'PUBLISHED', value: [{ state: 'PUBLISHED' }, { state: 'SENDING' }] });
    const whileComment = await setRelease('manual-2');
    const versionWhilePublishing = await version();
    receiver.release();
    await t.settle();
    for (const res of [whilePost, whileComment]) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ code: 'post_publishing', msg: expect.stringMatching(/being published/) });
    }
    expect(versionWhilePublishing).toBe(claimed);
    const done = await getPost(t, tenant, postId);
    expect(done).toMatchObject({
      state: 'PUBLISHED',
      releaseId: published.releaseId,
      value: [{ state: 'PUBLISHED' }, { state: 'PUBLISHED' }],
    });
    expect(done.releaseId).not.toMatch(/^manual/);

    const set = await setRelease('manual-3');
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({ state: 'PUBLISHED', releaseId: 'manual-3', releaseURL: 'https://platform.example/p/manual-3' });
    expect(await version()).toBe(claimed + 1);
  });
});

describe('settling a call that outlived its lease', () => {
  it('released for a retry, then the call succeeds: recorded as published, the retry is dropped, the thread carries on', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-03T08:00:00.000Z');
    receiver.answer('hold');
    const before = receiver.deliveries.length;
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Post</p>' }, { content: '<p>Reply</p>', delay: 5 }]),
    );
    const postId = created!.postId;
    await receiver.received(before + 1);
    // What lease recovery does for a platform whose writes are idempotent: the part goes back to PENDING for a retry.
    await t.runtime.db
      .updateTable('post_parts')
      .set({ state: 'PENDING', claimed_at: null, error: 'Attempt 1 failed, retrying: the worker stopped.' })
      .where('post_id', '=', postId)
      .where('idx', '=', 0)
      .execute();
    await t.runtime.db
      .updateTable('posts')
      .set({ state: 'QUEUE', next_run_at: '2026-09-03T08:10:00.000Z' })
      .where('id', '=', postId)
      .execute();

    receiver.release();
    await t.settle();
    let post = await getPost(t, tenant, postId);
    expect(post.state).toBe('PUBLISHED');
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PENDING']);
    expect(post.value[0]!.error).toBeNull();

    await at('2026-09-03T08:05:00.000Z');
    await at('2026-09-03T08:15:00.000Z');
    post = await getPost(t, tenant, postId);
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(deliveriesFor(postId).map((d) => d.body.data.part)).toEqual([0, 1]);
    const row = await t.runtime.db.selectFrom('posts').select('next_run_at').where('id', '=', postId).executeTakeFirstOrThrow();
    expect(row.next_run_at).toBeNull();
    expect(await notificationTypes(tenant.key, postId)).toEqual([]);
  });

  it("recorded as unconfirmed, then the call succeeds: the platform's answer wins and the workspace is told it is out", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-04T08:00:00.000Z');
    receiver.answer('hold');
    const before = receiver.deliveries.length;
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Post</p>' }, { content: '<p>Reply</p>' }]),
    );
    const postId = created!.postId;
    await receiver.received(before + 1);
    // As a restarted single process does at boot: whatever is SENDING has an unknown outcome.
    expect(await t.publisher.recover({ all: true })).toBe(1);
    expect(await getPost(t, tenant, postId)).toMatchObject({ state: 'ERROR', errorKind: 'unconfirmed' });

    receiver.release();
    await t.settle();
    const post = await getPost(t, tenant, postId);
    expect(post).toMatchObject({ state: 'PUBLISHED', errorKind: null, error: null, releaseId: `remote-${before + 1}` });
    // The reply held back by the failure goes out too.
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    expect(deliveriesFor(postId).map((d) => d.body.data.part)).toEqual([0, 1]);
    expect((await notificationTypes(tenant.key, postId)).sort()).toEqual(['publish_confirmed', 'publish_failed']);
  });

  it('a call still in flight keeps renewing its lease, so recovery leaves it alone', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-09-05T08:00:00.000Z');
    receiver.answer('hold');
    const before = receiver.deliveries.length;
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    const postId = created!.postId;
    await receiver.received(before + 1);
    clock.advance(t.publisher.options.leaseMs * 3);
    const now = clock.now().toISOString();
    // Wait for the renewal to happen (event, not time: bounded by the test's own limit).
    for (let i = 0; i < 500; i++) {
      const part = await t.runtime.db
        .selectFrom('post_parts')
        .select('lease_until')
        .where('post_id', '=', postId)
        .where('idx', '=', 0)
        .executeTakeFirstOrThrow();
      if (part.lease_until !== null && part.lease_until > now) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await t.publisher.recover({ all: false })).toBe(0);
    receiver.release();
    await t.settle();
    expect(await getPost(t, tenant, postId)).toMatchObject({ state: 'PUBLISHED' });
    expect(await notificationTypes(tenant.key, postId)).toEqual([]);
  });
});
