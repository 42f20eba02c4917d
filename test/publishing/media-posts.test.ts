import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { createOk, createPosts, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});

async function upload(tenant: Tenant, data: Buffer, name: string) {
  const res = await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(data, name, 'image/png') });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { id: string; path: string };
}

describe('media in posts', () => {
  it('attaches library files by path, delivers them, and keeps them while the post is unpublished', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const image = await upload(tenant, png(32, 16), 'cat.png');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'draft' }, [{ content: '<p>With a cat</p>', image: [{ id: image.id, path: image.path }] }]),
    );

    const refused = await t.request({ method: 'DELETE', url: `/public/v1/media/${image.id}`, key: tenant.key });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().msg).toContain(created!.postId);

    const res = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${created!.postId}/status`,
      key: tenant.key,
      payload: { status: 'schedule' },
    });
    expect(res.statusCode).toBe(400); // its date has passed
    const [now] = await createOk(t, tenant, {
      ...postBody(tenant.channelId, { type: 'now' }, [{ content: '<p>Now with a cat</p>', image: [{ path: image.path }] }]),
      group: (await getPost(t, tenant, created!.postId)).group,
    });
    expect(now!.postId).toBe(created!.postId);
    await t.settle();
    const delivery = receiver.deliveries.find((d) => d.body.data.postId === created!.postId)!;
    expect(delivery.body.data.media).toEqual([
      { id: image.id, url: image.path, name: 'cat.png', mimeType: 'image/png', size: expect.any(Number), width: 32, height: 16 },
    ]);
    const served = await t.request({ method: 'GET', url: new URL(image.path).pathname });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');

    // Published: the file may now leave the library.
    const deleted = await t.request({ method: 'DELETE', url: `/public/v1/media/${image.id}`, key: tenant.key });
    expect(deleted.statusCode).toBe(200);
  });

  it("refuses another workspace's file, whatever id comes with its path", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const other = await webhookTenant(t, receiver.url);
    const theirs = await upload(other, png(8, 8, [1, 2, 3]), 'theirs.png');
    const mine = await upload(tenant, png(8, 8, [4, 5, 6]), 'mine.png');
    const foreign = await createPosts(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'draft' }, [{ content: 'x', image: [{ path: theirs.path }] }]),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().msg).toMatch(/posts\[0\]\.value\[0\]\.image\[0\]: .*not a file of this workspace's media library/);
    const foreignWithMyId = await createPosts(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'draft' }, [{ content: 'x', image: [{ id: mine.id, path: theirs.path }] }]),
    );
    expect(foreignWithMyId.statusCode).toBe(400);
  });

  it("an image element counts by its path: an id of the client's own (or another file's) is accepted and replaced by the library file's", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const mine = await upload(tenant, png(8, 8, [4, 5, 6]), 'mine.png');
    const other = await upload(tenant, png(8, 8, [6, 5, 4]), 'other.png');
    for (const id of ['c0ffee-random-client-id', other.id]) {
      const [created] = await createOk(
        t,
        tenant,
        postBody(tenant.channelId, { type: 'draft' }, [{ content: 'x', image: [{ id, path: mine.path }] }]),
      );
      const post = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}`, key: tenant.key })).json();
      expect(post.value[0].image).toEqual([{ id: mine.id, path: mine.path }]);
    }
  });

  it('a file deleted after scheduling makes the post not ready, and publishing reports it', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const image = await upload(tenant, png(9, 9, [7, 8, 9]), 'gone.png');
    const [created] = await createOk(
      t,
      tenant,
      postBody(tenant.channelId, { type: 'draft' }, [{ content: 'x', image: [{ path: image.path }] }]),
    );
    await t.runtime.db.deleteFrom('post_media').where('post_id', '=', created!.postId).execute();
    expect((await t.request({ method: 'DELETE', url: `/public/v1/media/${image.id}`, key: tenant.key })).statusCode).toBe(200);
    const missing = (await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key })).json();
    expect(missing.missing).toEqual([{ field: 'value[0].image[0]', reason: 'This file is no longer in the media library.' }]);
  });
});
