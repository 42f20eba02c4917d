import { expect } from 'vitest';
import { createTenant, type TestApp, type Tenant } from '../../helpers/app.ts';
import { fileBody, png } from '../../helpers/media-files.ts';
import { createOk, getPost } from '../../helpers/posts.ts';

/**
 * Through the API and the engine: a channel made as the operator does, an image uploaded to the
 * library, and a post with that image and two comments published now. Waits on the engine
 * (settle), never on the clock.
 */
export async function publishThreadThroughApi(
  t: TestApp,
  provider: string,
  config: Record<string, unknown>,
  settings: Record<string, unknown> = {},
) {
  const tenant: Tenant = await createTenant(t);
  const channel = await t.services.channels.create(tenant.workspaceId, { provider, name: provider, config });
  return { channel, ...(await publishThreadToChannel(t, tenant, channel.id, provider, settings)) };
}

/** The same post (an image and two comments), to a channel the tenant already has (e.g. connected by a sign-in). */
export async function publishThreadToChannel(
  t: TestApp,
  tenant: Tenant,
  channelId: string,
  provider: string,
  settings: Record<string, unknown> = {},
) {
  const channel = { id: channelId };
  const uploaded = await t.request({
    method: 'POST',
    url: '/public/v1/upload',
    key: tenant.key,
    ...fileBody(png(24, 12, [30, 140, 90]), 'banner.png', 'image/png'),
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  const image = uploaded.json() as { id: string; path: string };
  const schema = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${channel.id}`, key: tenant.key });
  expect(schema.statusCode, schema.body).toBe(200);
  const [created] = await createOk(t, tenant, {
    type: 'now',
    date: new Date().toISOString(),
    posts: [
      {
        integration: { id: channel.id },
        value: [
          {
            content: '<p>Launch <strong>day</strong>: <a href="https://example.com/launch">the notes</a></p>',
            image: [{ id: image.id, path: image.path }],
          },
          { content: '<p>First comment</p>' },
          { content: '<p>Second comment</p>' },
        ],
        settings: { __type: provider, ...settings },
      },
    ],
  });
  await t.settle();
  const post = await getPost(t, tenant, created!.postId);
  expect(
    post.value.map((v) => v.state),
    JSON.stringify(post),
  ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
  return { tenant, image, post, settingsSchema: schema.json() as Record<string, unknown> };
}
