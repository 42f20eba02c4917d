import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTenant, type TestApp } from '../helpers/app.ts';
import { createOk, getPost } from '../helpers/posts.ts';
import { processBudget } from '../helpers/process.ts';
import { createAccount, startPdsPeer, xrpc, type PdsAccount, type PdsPeer } from '../providers/bluesky/helpers.ts';

const skip = process.env.HERALD_SKIP_BLUESKY_PEER === '1';

describe.skipIf(skip)('a thread published to the reference Bluesky PDS through the API and the engine', () => {
  let peer: PdsPeer;
  let account: PdsAccount;
  let t: TestApp;

  beforeAll(
    async () => {
      peer = await startPdsPeer();
      account = await createAccount(peer.pds, 'herald');
      t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    },
    processBudget(1, 30_000),
  );

  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  it('posts, then replies to its own post in order, with links as facets', async () => {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'bluesky',
      name: 'Bluesky',
      profile: account.handle,
      config: { service: peer.pds, identifier: account.handle, appPassword: account.appPassword },
    });
    const missing = await createOk(t, tenant, {
      type: 'draft',
      date: '2026-05-01T00:00:00Z',
      posts: [{ integration: { id: channel.id }, value: [{ content: `<p>${'é'.repeat(301)}</p>` }] }],
    });
    const report = (await t.request({ method: 'GET', url: `/public/v1/posts/${missing[0]!.postId}/missing`, key: tenant.key })).json();
    expect(report.missing).toEqual([
      expect.objectContaining({ field: 'value[0].content', reason: expect.stringMatching(/301 graphemes/) }),
    ]);

    const [created] = await createOk(t, tenant, {
      type: 'now',
      date: new Date().toISOString(),
      posts: [
        {
          integration: { id: channel.id },
          value: [
            { content: '<p>Launch day: <a href="https://example.com/launch">the notes</a></p>' },
            { content: '<p>First reply</p>' },
            { content: '<p>Second reply</p>' },
          ],
          settings: { __type: 'bluesky' },
        },
      ],
    });
    const deadline = Date.now() + 30_000;
    let post = await getPost(t, tenant, created!.postId);
    while (post.value.some((v) => v.state !== 'PUBLISHED' && v.state !== 'ERROR') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      post = await getPost(t, tenant, created!.postId);
    }
    expect(
      post.value.map((v) => v.state),
      JSON.stringify(post),
    ).toEqual(['PUBLISHED', 'PUBLISHED', 'PUBLISHED']);
    expect(post.releaseURL).toMatch(/^https:\/\/bsky\.app\/profile\/did:plc:[a-z0-9]+\/post\//);

    const { data } = await xrpc<{
      records: Array<{
        uri: string;
        cid: string;
        value: { text: string; reply?: { root: { uri: string }; parent: { uri: string } }; facets?: unknown[] };
      }>;
    }>(peer.pds, 'com.atproto.repo.listRecords', { query: { repo: account.did, collection: 'app.bsky.feed.post', limit: '10' } });
    const byText = new Map(data.records.map((r) => [r.value.text, r]));
    const root = byText.get('Launch day: the notes https://example.com/launch')!;
    const first = byText.get('First reply')!;
    const second = byText.get('Second reply')!;
    expect(root.uri).toBe(post.releaseId);
    expect(root.value.facets).toHaveLength(1);
    expect(first.value.reply).toMatchObject({ root: { uri: root.uri }, parent: { uri: root.uri } });
    expect(second.value.reply).toMatchObject({ root: { uri: root.uri }, parent: { uri: first.uri } });
  }, 60_000);
});
