import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/webhooks/webhooks.table.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { fileBody, gif, png } from '../helpers/media-files.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, deliverAll, verified, type Envelope } from './helpers.ts';

const clock = new ManualClock('2026-05-31T22:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true', OUTBOUND_TIMEOUT_SECONDS: '1' } });
});

/** A tenant whose webhook channel posts to one receiver, with an endpoint for every event type at another. */
async function setup() {
  const platform = await startWebhookReceiver();
  const hooks = await startWebhookReceiver();
  const tenant = await webhookTenant(t, platform.url);
  const endpoint = await createEndpoint(t, tenant, hooks.url, [...SUBSCRIBABLE_EVENT_TYPES]);
  const events = (): Envelope[] => hooks.deliveries.map((delivery) => verified(delivery, endpoint.secret));
  return { platform, hooks, tenant, endpoint, events };
}

describe('events: one envelope, the REST shapes, signed by Standard Webhooks', () => {
  it('a post scheduled, moved to draft, scheduled again, published: each event once, in order, with the post as GET /posts/:id shows it', async () => {
    const { tenant, events } = await setup();
    clock.set('2026-06-01T08:00:00.000Z');
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-01T09:00:00.000Z' }));
    const postId = created!.postId;
    await deliverAll(t);
    expect(events().map((e) => e.type)).toEqual(['post.scheduled']);
    const [scheduled] = events();
    expect(scheduled).toMatchObject({ type: 'post.scheduled', workspace: tenant.workspaceId, timestamp: '2026-06-01T08:00:00.000Z' });
    const rest = await getPost(t, tenant, postId);
    expect(scheduled!.data.post).toEqual(rest);

    for (const status of ['draft', 'schedule'])
      expect(
        (await t.request({ method: 'PUT', url: `/public/v1/posts/${postId}/status`, key: tenant.key, payload: { status } })).statusCode,
      ).toBe(200);
    await deliverAll(t);
    expect(events().map((e) => e.type)).toEqual(['post.scheduled', 'post.updated', 'post.scheduled']);

    clock.set('2026-06-01T09:00:00.000Z');
    await deliverAll(t);
    const published = events().at(-1)!;
    expect(published.type).toBe('post.published');
    const post = await getPost(t, tenant, postId);
    expect(post.state).toBe('PUBLISHED');
    expect(published.data).toMatchObject({ post, part: 0, releaseId: post.releaseId, releaseUrl: post.releaseURL });
  });

  it('a draft, its edit and its deletion: post.created, post.updated, post.deleted', async () => {
    const { tenant, events } = await setup();
    clock.set('2026-06-02T08:00:00.000Z');
    const body = postBody(tenant.channelId, { type: 'draft', date: '2026-06-03T09:00:00.000Z' });
    const [created] = await createOk(t, tenant, body);
    const { group } = await getPost(t, tenant, created!.postId);
    await createOk(t, tenant, { ...body, group, posts: [{ ...body.posts[0]!, value: [{ content: '<p>Edited</p>' }] }] });
    expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${created!.postId}`, key: tenant.key })).statusCode).toBe(200);
    await deliverAll(t);
    expect(events().map((e) => e.type)).toEqual(['post.created', 'post.updated', 'post.deleted']);
    expect(events().every((e) => (e.data.post as { id: string }).id === created!.postId)).toBe(true);
  });

  it('PATCH /posts/:id: post.updated with the post as edited, for a draft and for a scheduled post', async () => {
    const { tenant, events } = await setup();
    clock.set('2026-06-02T10:00:00.000Z');
    const [draft] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'draft', date: '2026-06-03T09:00:00.000Z' }));
    const [queued] = await createOk(t, tenant, postBody(tenant.channelId, { date: '2026-06-03T09:00:00.000Z' }));
    await deliverAll(t);
    const before = events().length;
    for (const id of [draft!.postId, queued!.postId]) {
      const res = await t.request({
        method: 'PATCH',
        url: `/public/v1/posts/${id}`,
        key: tenant.key,
        payload: { content: '<p>Patched</p>' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await deliverAll(t);
    const updated = events().slice(before);
    expect(updated.map((e) => e.type)).toEqual(['post.updated', 'post.updated']);
    for (const [i, id] of [draft!.postId, queued!.postId].entries()) expect(updated[i]!.data.post).toEqual(await getPost(t, tenant, id));
    expect((updated[1]!.data.post as { state: string }).state).toBe('QUEUE');
  });

  it('a channel deleted with its scheduled posts: channel.deleted, and post.updated for each post moved to draft', async () => {
    const { tenant, events } = await setup();
    clock.set('2026-06-02T11:00:00.000Z');
    const posts = [];
    for (const date of ['2026-06-04T09:00:00.000Z', '2026-06-05T09:00:00.000Z'])
      posts.push((await createOk(t, tenant, postBody(tenant.channelId, { date })))[0]!.postId);
    const listed = (await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key })).json() as Array<{
      id: string;
      name: string;
    }>;
    const channel = listed.find((c) => c.id === tenant.channelId)!;
    await deliverAll(t);
    const before = events().length;

    const res = await t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}?force=true`, key: tenant.key });
    expect(res.statusCode, res.body).toBe(200);
    await deliverAll(t);
    const after = events().slice(before);
    expect(after.map((e) => e.type).sort()).toEqual(['channel.deleted', 'post.updated', 'post.updated']);
    const deleted = after.find((e) => e.type === 'channel.deleted')!;
    expect(deleted).toMatchObject({ workspace: tenant.workspaceId, timestamp: '2026-06-02T11:00:00.000Z' });
    expect(deleted.data).toMatchObject({ channelId: tenant.channelId, channel: { id: channel.id, name: channel.name } });
    const moved = after.filter((e) => e.type === 'post.updated').map((e) => e.data.post as { id: string; state: string });
    expect(moved.map((p) => p.id).sort()).toEqual([...posts].sort());
    expect(moved.every((p) => p.state === 'DRAFT')).toBe(true);

    // Deleting it again is a 404, and writes nothing more.
    expect((await t.request({ method: 'DELETE', url: `/public/v1/integrations/${tenant.channelId}`, key: tenant.key })).statusCode).toBe(
      404,
    );
    await deliverAll(t);
    expect(events()).toHaveLength(before + 3);
  });

  it('a thread published now: post.published then post.comment.published for its comment', async () => {
    const { tenant, events } = await setup();
    clock.set('2026-06-04T08:00:00.000Z');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>One</p>' }, { content: '<p>Two</p>', delay: 0 }]),
    );
    await deliverAll(t);
    const types = events().map((e) => e.type);
    expect(types).toEqual(['post.scheduled', 'post.published', 'post.comment.published']);
    const comment = events().at(-1)!;
    expect(comment.data).toMatchObject({ part: 1, post: { id: created!.postId } });
  });

  it('a failure the engine retries, then one it does not: post.failed with the reason and whether it will be retried; notification.created', async () => {
    const { platform, tenant, events } = await setup();
    clock.set('2026-06-05T08:00:00.000Z');
    platform.answer({ status: 503, body: 'busy' }, { status: 400, body: { error: 'no' } });
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await deliverAll(t);
    const failed = events().filter((e) => e.type === 'post.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({ willRetry: true, part: 0, attempt: 1, post: { id: created!.postId } });
    expect(failed[0]!.data.reason).toMatch(/503/);
    expect(Date.parse(failed[0]!.data.retryAt as string)).toBeGreaterThan(clock.now().getTime());

    clock.advance(60 * 60_000);
    await deliverAll(t);
    const last = events()
      .filter((e) => e.type === 'post.failed')
      .at(-1)!;
    expect(last.data).toMatchObject({
      willRetry: false,
      retryAt: null,
      errorKind: 'rejected',
      post: { id: created!.postId, state: 'ERROR' },
    });
    const notification = events().find((e) => e.type === 'notification.created');
    expect(notification!.data.notification).toMatchObject({ type: 'publish_failed', postId: created!.postId });
    const listed = await t.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key });
    // The list's shape, without the reader's own `unread` (a read marker is a member's, an event the workspace's).
    const { unread, ...shape } = listed.json().notifications[0] as { unread: boolean };
    expect(unread).toBe(true);
    expect(shape).toEqual(notification!.data.notification);
  });

  it('an endpoint receives only the types it subscribed to, and a workspace without endpoints writes no events', async () => {
    const platform = await startWebhookReceiver();
    const hooks = await startWebhookReceiver();
    const tenant = await webhookTenant(t, platform.url);
    clock.set('2026-06-06T08:00:00.000Z');
    // Before any endpoint exists: nothing is recorded.
    const [before] = await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await deliverAll(t);
    const rows = await t.runtime.db.selectFrom('webhook_events').select('id').where('subject_id', '=', before!.postId).execute();
    expect(rows).toHaveLength(0);

    const endpoint = await createEndpoint(t, tenant, hooks.url, ['post.published']);
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await deliverAll(t);
    expect(hooks.deliveries.map((d) => verified(d, endpoint.secret).type)).toEqual(['post.published']);
  });

  it('a channel refused by its platform needs reconnecting, then is enabled again: channel.needs_reconnect, channel.connected', async () => {
    const { platform, tenant, events } = await setup();
    clock.set('2026-06-07T08:00:00.000Z');
    const second = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Second',
      config: { url: platform.url, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
    platform.answer({ status: 403, body: 'revoked' });
    await createOk(t, tenant, postBody(tenant.channelId, { type: 'now' }));
    await deliverAll(t);
    await t.services.channels.enable(tenant.workspaceId, tenant.channelId);
    await deliverAll(t);
    const channelEvents = events().filter((e) => e.type.startsWith('channel.'));
    expect(channelEvents.map((e) => [e.type, (e.data.channel as { id: string }).id])).toEqual([
      ['channel.connected', second.id],
      ['channel.needs_reconnect', tenant.channelId],
      ['channel.connected', tenant.channelId],
    ]);
    expect(channelEvents[1]!.data).toMatchObject({ reason: 'needs_reconnect' });
    const listed = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
    expect(listed.json()).toContainEqual(channelEvents[2]!.data.channel);
    expect(
      events().some((e) => e.type === 'notification.created' && (e.data.notification as { type: string }).type === 'channel_disconnected'),
    ).toBe(true);
  });

  it('media.uploaded for an upload through the API and one dropped through an upload link (with its id)', async () => {
    const { tenant, events } = await setup();
    const upload = await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(png(4, 4), 'a.png') });
    expect(upload.statusCode, upload.body).toBe(200);
    const link = (await t.request({ method: 'POST', url: '/public/v1/upload-link', key: tenant.key })).json();
    const dropped = await t.request({ method: 'POST', url: `${new URL(link.url).pathname}/files`, ...fileBody(gif(5, 5), 'b.gif') });
    expect(dropped.statusCode, dropped.body).toBe(200);
    await deliverAll(t);
    const media = events()
      .filter((e) => e.type === 'media.uploaded')
      .map((e) => e.data.media as { id: string; uploadLinkId: string | null });
    expect(media.map((m) => [m.id, m.uploadLinkId])).toEqual([
      [upload.json().id, null],
      [dropped.json().id, link.id],
    ]);
    const library = (await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key })).json();
    expect(library.results).toContainEqual(media[1]);
  });

  it('a change rolled back leaves no event: the event is written in its transaction', async () => {
    const { tenant } = await setup();
    const stamp = clock.now().toISOString();
    const composition = {
      post: {
        workspace_id: tenant.workspaceId,
        group_id: 'rolled-back',
        channel_id: tenant.channelId,
        publish_at: stamp,
        settings: '{}',
        tags: '[]',
        short_link: 0,
        state: 'QUEUE' as const,
      },
      parts: [{ content: '<p>Never</p>', images: '[]', delay_minutes: 0 }],
      mediaIds: [],
      author: { userId: tenant.userId, role: 'owner' as const },
    };
    let written: string | null = null;
    await expect(
      t.runtime.db.transaction().execute(async (trx) => {
        written = (await t.services.postTransitions.write(trx, undefined, composition, stamp)).id;
        expect(await trx.selectFrom('webhook_events').select('id').where('subject_id', '=', written).execute()).toHaveLength(1);
        throw new Error('the request failed after the write');
      }),
    ).rejects.toThrow(/after the write/);
    expect(await t.runtime.db.selectFrom('webhook_events').select('id').where('subject_id', '=', written!).execute()).toHaveLength(0);
  });
});
