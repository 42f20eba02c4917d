// What GET /posts/:id/missing says of a Mastodon status's length, with and without the instance's limit in the channel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk, postBody } from '../../helpers/posts.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function missingFor(config: Record<string, unknown>, characters: number) {
  const tenant = await createTenant(t);
  // The operator's path: a channel stored as given, without asking the instance.
  const channel = await t.services.channels.create(tenant.workspaceId, {
    provider: 'mastodon',
    name: 'Toots',
    config: { instance: 'https://mastodon.example', accessToken: 'token-for-the-operator-path', ...config },
  });
  const [created] = await createOk(t, tenant, postBody(channel.id, { type: 'draft' }, [{ content: `<p>${'x'.repeat(characters)}</p>` }]));
  const res = await t.request({ method: 'GET', url: `/public/v1/posts/${created!.postId}/missing`, key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { ready: boolean; missing: Array<{ field: string; reason: string }> };
}

describe('Mastodon status length in /missing', () => {
  it("a channel that does not know its instance's limit is checked against Mastodon's default of 500", async () => {
    const long = await missingFor({}, 600);
    expect(long.ready).toBe(false);
    expect(long.missing).toEqual([
      expect.objectContaining({
        field: 'value[0].content',
        reason: expect.stringMatching(/600 characters; Mastodon allows 500 .*reconnect/),
      }),
    ]);
    expect((await missingFor({}, 500)).missing).toEqual([]);
  });

  it("a channel that knows its instance's limit is checked against it", async () => {
    expect((await missingFor({ maxCharacters: 1000 }, 600)).missing).toEqual([]);
    const over = await missingFor({ maxCharacters: 100 }, 101);
    expect(over.missing).toEqual([expect.objectContaining({ reason: expect.stringContaining('the instance allows 100') })]);
  });
});
