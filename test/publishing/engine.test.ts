import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const clock = new ManualClock('2026-05-31T22:00:00.000Z');
let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' } });
});

const deliveriesFor = (postId: string) => receiver.deliveries.filter((d) => d.body.data.postId === postId);

async function at(iso: string) {
  clock.set(iso);
  await t.settle();
}

describe('publishing on time', () => {
  it('publishes a scheduled post when its date comes, not before, with a signed delivery', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-05-31T22:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-01T10:00:00+10:30' }));
    const postId = created!.postId;
    expect((await getPost(t, tenant, postId)).publishDate).toBe('2026-05-31T23:30:00.000Z');

    await at('2026-05-31T23:29:59.999Z');
    expect(deliveriesFor(postId)).toHaveLength(0);
    expect((await getPost(t, tenant, postId)).state).toBe('QUEUE');

    await at('2026-05-31T23:30:00.000Z');
    const [delivery] = deliveriesFor(postId);
    expect(delivery).toBeDefined();
    expect(delivery!.body).toMatchObject({
      type: 'post.published',
      data: { postId, part: 0, text: 'Hello world', html: '<p>Hello world</p>' },
    });
    const key = Buffer.from(TEST_WEBHOOK_SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${delivery!.id}.${delivery!.timestamp}.${delivery!.raw}`).digest('base64');
    expect(delivery!.signature).toBe(`v1,${expected}`);
    expect(delivery!.id).toBe(`msg_${postId}_0`);

    const post = await getPost(t, tenant, postId);
    expect(post.state).toBe('PUBLISHED');
    expect(post.releaseId).toMatch(/^remote-/);
    expect(post.releaseURL).toMatch(/^https:\/\/receiver\.example\/p\//);
  });

  it('a scheduled post edited in place (PATCH) goes out with its new text, comments and time; the old one never does', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-05T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { date: '2026-06-05T09:00:00Z' }, [{ content: '<p>Old text</p>' }, { content: '<p>Old reply</p>' }]),
    );
    const postId = created!.postId;
    const res = await t.request({
      method: 'PATCH',
      url: `/public/v1/posts/${postId}`,
      key: tenant.key,
      payload: { content: 'New text', date: '2026-06-05T09:30:00Z', comments: [{ content: 'New reply', delay: 2 }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ state: 'QUEUE', publishDate: '2026-06-05T09:30:00.000Z' });

    await at('2026-06-05T09:00:00.000Z');
    expect(deliveriesFor(postId)).toHaveLength(0);
    await at('2026-06-05T09:30:00.000Z');
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['New text']);
    await at('2026-06-05T09:32:00.000Z');
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['New text', 'New reply']);
    expect(await getPost(t, tenant, postId)).toMatchObject({ state: 'PUBLISHED', value: [{ state: 'PUBLISHED' }, { state: 'PUBLISHED' }] });
  });

  it('a draft edited with type "now" (PATCH) is published at once, with its edited text; a retry with its key answers the first result', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft' }, [{ content: '<p>Draft</p>' }]));
    const postId = created!.postId;
    const send = () =>
      t.request({
        method: 'PATCH',
        url: `/public/v1/posts/${postId}`,
        key: tenant.key,
        headers: { 'idempotency-key': 'publish-now' },
        payload: { type: 'now', content: 'Out now' },
      });
    const res = await send();
    expect(res.statusCode, res.body).toBe(200);
    await t.settle();
    expect(deliveriesFor(postId).map((d) => d.body.data.text)).toEqual(['Out now']);
    expect((await getPost(t, tenant, postId)).state).toBe('PUBLISHED');
    // The retry of a call whose answer was lost: the first answer, not a refusal of a published post, and nothing sent again.
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toEqual(res.json());
    await t.settle();
    expect(deliveriesFor(postId)).toHaveLength(1);
  });

  it('publishes type "now" at once, without the clock moving', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    expect(deliveriesFor(created!.postId)).toHaveLength(1);
    expect((await getPost(t, tenant, created!.postId)).state).toBe('PUBLISHED');
  });

  it('sends comments in order, each `delay` minutes after the one before, as replies', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-02T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { date: '2026-06-02T09:00:00Z' }, [
        { content: '<p>Thread start</p>' },
        { content: '<p>First reply</p>', delay: 5 },
        { content: '<p>Second reply</p>', delay: 0 },
        { content: '<p>Third reply</p>', delay: 10 },
      ]),
    );
    const postId = created!.postId;
    await at('2026-06-02T09:00:00.000Z');
    expect(deliveriesFor(postId).map((d) => d.body.data.part)).toEqual([0]);
    await at('2026-06-02T09:04:59.000Z');
    expect(deliveriesFor(postId)).toHaveLength(1);
    await at('2026-06-02T09:05:00.000Z');
    // The second reply has no delay: it follows the first at once.
    expect(deliveriesFor(postId).map((d) => d.body.data.part)).toEqual([0, 1, 2]);
    await at('2026-06-02T09:15:00.000Z');
    const parts = deliveriesFor(postId);
    expect(parts.map((d) => d.body.data.part)).toEqual([0, 1, 2, 3]);
    expect(parts.map((d) => d.body.type)).toEqual(['post.published', 'comment.published', 'comment.published', 'comment.published']);
    expect((parts[2]!.body.data.inReplyTo as { id: string }).id).toBe(
      parts[1]!.body.data.postId ? (await getPost(t, tenant, postId)).value[1]!.releaseId : '',
    );
    expect((parts[3]!.body.data.root as { id: string }).id).toBe((await getPost(t, tenant, postId)).releaseId);
    const post = await getPost(t, tenant, postId);
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
  });

  it('two workers handling the same job publish once', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-03T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-06-03T08:00:00Z' }));
    // Scheduled behind the queue's back, then handled by "two workers" at once.
    await t.runtime.db
      .updateTable('posts')
      .set({ state: 'QUEUE', next_run_at: '2026-06-03T08:00:00.000Z' })
      .where('id', '=', created!.postId)
      .execute();
    const job = { postId: created!.postId, runAt: new Date('2026-06-03T08:00:00.000Z'), provider: 'webhook' };
    await Promise.all([t.publisher.handle(job), t.publisher.handle(job), t.publisher.handle(job)]);
    await t.settle();
    expect(deliveriesFor(created!.postId)).toHaveLength(1);
  });

  it('a deleted scheduled post is never published', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-04T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-04T09:00:00Z' }));
    const res = await t.request({ method: 'DELETE', url: `/public/v1/posts/${created!.postId}`, key: tenant.key });
    expect(res.json()).toEqual({ deleted: 1, ids: [created!.postId] });
    await at('2026-06-04T10:00:00.000Z');
    expect(deliveriesFor(created!.postId)).toHaveLength(0);
  });

  it('a post moved back to draft is not published; scheduled again, it is', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-05T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-05T09:00:00Z' }));
    const id = created!.postId;
    await t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: tenant.key, payload: { status: 'draft' } });
    await at('2026-06-05T09:00:01.000Z');
    expect(deliveriesFor(id)).toHaveLength(0);
    expect((await getPost(t, tenant, id)).state).toBe('DRAFT');
    // Its date is now a second in the past: within the grace period, so it goes out at once.
    const res = await t.request({ method: 'PUT', url: `/public/v1/posts/${id}/status`, key: tenant.key, payload: { status: 'schedule' } });
    expect(res.statusCode, res.body).toBe(200);
    await t.settle();
    expect(deliveriesFor(id)).toHaveLength(1);
  });
});

describe('failures', () => {
  it('retries a 429 after Retry-After, then publishes', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-10T08:00:00.000Z');
    receiver.answer({ status: 429, headers: { 'retry-after': '120' }, body: { error: 'slow down' } });
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    const id = created!.postId;
    let post = await getPost(t, tenant, id);
    expect(post.state).toBe('QUEUE');
    expect(post.value[0]!.error).toMatch(/429/);
    await at('2026-06-10T08:01:59.000Z');
    expect(deliveriesFor(id)).toHaveLength(1);
    await at('2026-06-10T08:02:00.000Z');
    expect(deliveriesFor(id)).toHaveLength(2);
    post = await getPost(t, tenant, id);
    expect(post.state).toBe('PUBLISHED');
  });

  it('retries 5xx with growing backoff and gives up after the last attempt, notifying', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-11T08:00:00.000Z');
    receiver.always({ status: 503, body: { error: 'down' } });
    try {
      const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
      const id = created!.postId;
      await t.settle();
      for (let i = 0; i < 12; i++) await at(new Date(clock.now().getTime() + 20 * 60_000).toISOString());
      const post = await getPost(t, tenant, id);
      expect(post.state).toBe('ERROR');
      expect(post.errorKind).toBe('gave_up');
      expect(post.error).toMatch(/Gave up after 8 attempts.*503/);
      expect(deliveriesFor(id)).toHaveLength(8);
      const gaps = deliveriesFor(id).map((d) => d.at);
      expect(gaps).toHaveLength(8);
      const notes = await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key });
      expect(notes.json().notifications).toEqual([
        expect.objectContaining({ type: 'publish_failed', postId: id, message: expect.stringMatching(/503/) }),
      ]);
    } finally {
      receiver.always(null);
    }
  });

  it('retries when the receiver cannot be reached at all', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const tenant = await webhookTenant(t, closed.url);
    clock.set('2026-06-12T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post.state).toBe('QUEUE');
    expect(post.value[0]!.error).toMatch(/could not be reached/);
  });

  it('an authentication failure disables the channel as needing reconnection and notifies', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-13T08:00:00.000Z');
    receiver.answer({ status: 401, body: { error: 'bad signature' } });
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'auth' });
    const channels = (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json();
    expect(channels[0]).toMatchObject({ disabled: true, disabledReason: 'needs_reconnect' });
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes.map((n: { type: string }) => n.type).sort()).toEqual(['channel_disconnected', 'publish_failed']);
    // Further posts to the channel are refused until it is reconnected.
    const refused = await t.request({
      method: 'POST',
      url: '/public/v1/posts',
      key: tenant.key,
      payload: postBody(tenant.channelId, { type: 'now' }),
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().msg).toMatch(/needs reconnecting/);
    await t.services.channels.reconnect(tenant.workspaceId, tenant.channelId, { url: receiver.url, secret: TEST_WEBHOOK_SECRET });
    const [again] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    expect((await getPost(t, tenant, again!.postId)).state).toBe('PUBLISHED');
  });

  it("a rejected post goes to ERROR with the platform's reason", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-14T08:00:00.000Z');
    receiver.answer({ status: 422, body: { error: 'Title is required by the CMS' } });
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'rejected' });
    expect(post.error).toMatch(/422.*Title is required by the CMS/);
    expect(deliveriesFor(created!.postId)).toHaveLength(1);
  });

  it('a timeout after sending is not retried blindly: ERROR as unconfirmed, notified', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-15T08:00:00.000Z');
    receiver.answer('hang');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await t.settle();
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'unconfirmed' });
    expect(post.error).toMatch(/Unconfirmed/);
    expect(deliveriesFor(created!.postId)).toHaveLength(1);
    await at('2026-06-15T12:00:00.000Z');
    expect(deliveriesFor(created!.postId)).toHaveLength(1);
  });

  it('a post that lacks a required piece at publishing time goes to ERROR naming it', async () => {
    const tenant = await webhookTenant(t, receiver.url, { requireTitle: true });
    clock.set('2026-06-16T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-16T09:00:00Z' }));
    const missing = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key })).json();
    expect(missing).toEqual({
      postId: created!.postId,
      ready: false,
      missing: [{ field: 'settings.title', reason: 'This webhook channel requires a title.' }],
    });
    await at('2026-06-16T09:00:00.000Z');
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'missing' });
    expect(post.error).toMatch(/settings\.title/);
    expect(deliveriesFor(created!.postId)).toHaveLength(0);
  });

  it('a failed comment stops the thread and is reported; the post stays published', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-06-17T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [
        { content: '<p>Post</p>' },
        { content: '<p>One</p>', delay: 1 },
        { content: '<p>Two</p>', delay: 1 },
      ]),
    );
    await t.settle();
    receiver.answer({ status: 400, body: { error: 'replies are closed' } });
    await at('2026-06-17T08:01:00.000Z');
    await at('2026-06-17T08:05:00.000Z');
    const post = await getPost(t, tenant, created!.postId);
    expect(post.state).toBe('PUBLISHED');
    expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'ERROR', 'ERROR']);
    expect(post.error).toMatch(/Comment 1 failed.*replies are closed/);
    const notes = (await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications;
    expect(notes).toEqual([expect.objectContaining({ type: 'comment_failed', postId: created!.postId })]);
  });
});

describe('surviving a restart', () => {
  it('a post due while the process was down goes out at start-up; pending comments survive', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-07-01T08:00:00.000Z');
    const [early] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Post</p>' }, { content: '<p>Later</p>', delay: 30 }]),
    );
    await t.settle();
    const [due] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-07-01T08:10:00Z' }));
    // "Crash": the engine stops with both a comment and a post pending; a new process starts later.
    await t.publisher.stop();
    const later = new ManualClock('2026-07-01T09:00:00.000Z');
    const restarted = await createTestApp({
      clock: later,
      engine: true,
      reopen: t,
      env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' },
    });
    await restarted.settle();
    expect(deliveriesFor(due!.postId)).toHaveLength(1);
    expect(deliveriesFor(early!.postId).map((d) => d.body.data.part)).toEqual([0, 1]);
    await restarted.close();
  });

  it('a part left SENDING by a dead worker is settled as unconfirmed (webhooks are not idempotent)', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    clock.set('2026-07-02T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-07-02T08:00:00Z' }));
    await t.runtime.db.updateTable('posts').set({ state: 'PUBLISHING' }).where('id', '=', created!.postId).execute();
    await t.runtime.db
      .updateTable('post_parts')
      .set({ state: 'SENDING', claimed_at: '2026-07-02T07:00:00.000Z', attempts: 1 })
      .where('post_id', '=', created!.postId)
      .execute();
    expect(await t.publisher.recover({ all: false })).toBe(1);
    const post = await getPost(t, tenant, created!.postId);
    expect(post).toMatchObject({ state: 'ERROR', errorKind: 'unconfirmed' });
  });
});
