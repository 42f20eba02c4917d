// The Bluesky provider against the reference PDS (@atproto/pds, started from peers/bluesky-pds
// as a child process on loopback, with its PLC directory stand-in).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blueskyProvider } from '../../../src/providers/bluesky/bluesky.provider.ts';
import { clearBlueskySessions } from '../../../src/providers/bluesky/bluesky.client.ts';
import { recordKeyFor } from '../../../src/providers/bluesky/record-key.ts';
import { ProviderError, type PublishedRef } from '../../../src/providers/provider.ts';
import {
  closeOutboundClients,
  createAccount,
  mediaItem,
  png,
  providerContext,
  publishInput,
  startPdsPeer,
  xrpc,
  type PdsAccount,
  type PdsPeer,
} from './helpers.ts';
import { processBudget } from '../../helpers/process.ts';
import { NO_PLATFORM_APPS } from '../../helpers/providers.ts';

type Facet = {
  index: { byteStart: number; byteEnd: number };
  features: Array<{ $type: string; uri?: string; did?: string; tag?: string }>;
};
type PostRecord = {
  text: string;
  facets?: Facet[];
  reply?: { root: { uri: string; cid: string }; parent: { uri: string; cid: string } };
  embed?: {
    $type: string;
    images: Array<{
      alt: string;
      aspectRatio?: { width: number; height: number };
      image: { ref: { $link: string }; mimeType: string; size: number };
    }>;
  };
  langs?: string[];
  labels?: { values: Array<{ val: string }> };
};

const skip = process.env.HERALD_SKIP_BLUESKY_PEER === '1';

describe.skipIf(skip)('bluesky provider against the reference PDS', () => {
  let peer: PdsPeer;
  let alice: PdsAccount;
  let bob: PdsAccount;

  beforeAll(
    async () => {
      peer = await startPdsPeer();
      [alice, bob] = await Promise.all([createAccount(peer.pds, 'alice'), createAccount(peer.pds, 'bob')]);
    },
    processBudget(1, 30_000),
  );
  afterAll(async () => {
    await closeOutboundClients();
    await peer?.stop();
  });
  afterEach(() => clearBlueskySessions());

  const configOf = (account: PdsAccount, service = peer.pds) => ({ service, identifier: account.handle, appPassword: account.appPassword });

  async function getPost(ref: PublishedRef): Promise<{ uri: string; cid: string; value: PostRecord }> {
    const meta = ref.meta as { did: string; rkey: string };
    const answer = await xrpc<{ uri: string; cid: string; value: PostRecord }>(peer.pds, 'com.atproto.repo.getRecord', {
      query: { repo: meta.did, collection: 'app.bsky.feed.post', rkey: meta.rkey },
    });
    expect(answer.status).toBe(200);
    return answer.data;
  }

  async function listPosts(did: string): Promise<Array<{ uri: string; cid: string; value: PostRecord }>> {
    const answer = await xrpc<{ records: Array<{ uri: string; cid: string; value: PostRecord }> }>(
      peer.pds,
      'com.atproto.repo.listRecords',
      {
        query: { repo: did, collection: 'app.bsky.feed.post', limit: '100' },
      },
    );
    expect(answer.status).toBe(200);
    return answer.data.records;
  }

  /** The UTF-8 bytes of `text` a facet covers. */
  const covered = (text: string, facet: Facet) =>
    Buffer.from(text, 'utf8').subarray(facet.index.byteStart, facet.index.byteEnd).toString('utf8');

  describe('happy path', () => {
    it("publishes a post with a link, a mention and two images, as a record under the part's own key", async () => {
      const ctx = providerContext(configOf(alice));
      const first = png(40, 20, [10, 120, 200]);
      const second = png(16, 32, [250, 200, 0]);
      const media = [mediaItem(first, { width: 40, height: 20 }), mediaItem(second, { width: 16, height: 32 })];
      const input = publishInput({
        text: `Release notes: https://herald.example/notes?v=2 — thanks @${bob.handle}! #herald`,
        media,
        settings: { langs: ['en'], alt: { [media[0]!.id]: 'A blue banner', [media[1]!.url]: 'A yellow bar' } },
      });

      const ref = await blueskyProvider.publish(ctx, input);

      const rkey = recordKeyFor(input);
      expect(ref.id).toBe(`at://${alice.did}/app.bsky.feed.post/${rkey}`);
      expect(ref.url).toBe(`https://bsky.app/profile/${alice.did}/post/${rkey}`);
      expect(ref.meta).toMatchObject({ uri: ref.id, did: alice.did, rkey });
      expect(String(ref.meta!.cid)).toMatch(/^bafy/);

      const post = await getPost(ref);
      expect(post.cid).toBe(ref.meta!.cid);
      expect(post.value.text).toBe(input.text);
      expect(post.value.langs).toEqual(['en']);
      expect(post.value.reply).toBeUndefined();
      const features = (post.value.facets ?? []).map((f) => ({ text: covered(post.value.text, f), feature: f.features[0] }));
      expect(features).toEqual(
        expect.arrayContaining([
          {
            text: 'https://herald.example/notes?v=2',
            feature: { $type: 'app.bsky.richtext.facet#link', uri: 'https://herald.example/notes?v=2' },
          },
          { text: `@${bob.handle}`, feature: { $type: 'app.bsky.richtext.facet#mention', did: bob.did } },
          { text: '#herald', feature: { $type: 'app.bsky.richtext.facet#tag', tag: 'herald' } },
        ]),
      );
      expect(features).toHaveLength(3);

      const images = post.value.embed!.images;
      expect(post.value.embed!.$type).toBe('app.bsky.embed.images');
      expect(images.map((i) => i.alt)).toEqual(['A blue banner', 'A yellow bar']);
      expect(images.map((i) => i.aspectRatio)).toEqual([
        { width: 40, height: 20 },
        { width: 16, height: 32 },
      ]);
      expect(images.map((i) => [i.image.mimeType, i.image.size])).toEqual([
        ['image/png', first.byteLength],
        ['image/png', second.byteLength],
      ]);
      // The blobs on the PDS are exactly the bytes read from the media library.
      for (const [i, bytes] of [first, second].entries()) {
        const blob = await fetch(`${peer.pds}/xrpc/com.atproto.sync.getBlob?did=${alice.did}&cid=${images[i]!.image.ref.$link}`);
        expect(blob.status).toBe(200);
        expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);
      }
    });

    it('publishes comments as a thread: reply.root is the post, reply.parent the part before', async () => {
      const ctx = providerContext(configOf(alice));
      const postId = randomUUID();
      const root = await blueskyProvider.publish(ctx, publishInput({ postId, text: 'A thread 🧵' }));
      const one = await blueskyProvider.comment(ctx, publishInput({ postId, part: 1, text: 'Part one', root, parent: root }));
      const two = await blueskyProvider.comment(ctx, publishInput({ postId, part: 2, text: 'Part two', root, parent: one }));

      const rootRef = { uri: root.meta!.uri, cid: root.meta!.cid };
      expect((await getPost(one)).value.reply).toEqual({ root: rootRef, parent: rootRef });
      expect((await getPost(two)).value.reply).toEqual({ root: rootRef, parent: { uri: one.meta!.uri, cid: one.meta!.cid } });
      expect((await getPost(root)).value.reply).toBeUndefined();

      const thread = (await listPosts(alice.did)).filter((r) => [root.id, one.id, two.id].includes(r.uri));
      expect(thread.map((r) => r.value.text).sort()).toEqual(['A thread 🧵', 'Part one', 'Part two']);
      expect(one.meta!.rkey).toBe(recordKeyFor({ postId, part: 1, text: 'Part one', media: [] }));
      expect(two.meta!.rkey).toBe(recordKeyFor({ postId, part: 2, text: 'Part two', media: [] }));
    });

    it('an edited post publishes its new text under a key of its own; a retry of the same text stays idempotent', async () => {
      const ctx = providerContext(configOf(alice));
      const postId = randomUUID();
      const first = await blueskyProvider.publish(ctx, publishInput({ postId, text: 'Before the edit' }));
      const edited = await blueskyProvider.publish(ctx, publishInput({ postId, text: 'After the edit' }));
      expect(edited.id).not.toBe(first.id);
      expect((await getPost(edited)).value.text).toBe('After the edit');
      const again = await blueskyProvider.publish(ctx, publishInput({ postId, text: 'After the edit' }));
      expect(again).toEqual(edited);
    });

    it('replies correctly when the stored refs lost their cid (read back from the PDS)', async () => {
      const ctx = providerContext(configOf(alice));
      const postId = randomUUID();
      const root = await blueskyProvider.publish(ctx, publishInput({ postId, text: 'Root' }));
      const one = await blueskyProvider.comment(
        ctx,
        publishInput({ postId, part: 1, text: 'One', root: { id: root.id }, parent: { id: root.id } }),
      );
      // No root at all: taken from the parent's own reply.root.
      const two = await blueskyProvider.comment(ctx, publishInput({ postId, part: 2, text: 'Two', parent: { id: one.id } }));
      const rootRef = { uri: root.id, cid: root.meta!.cid };
      expect((await getPost(one)).value.reply).toEqual({ root: rootRef, parent: rootRef });
      expect((await getPost(two)).value.reply).toEqual({ root: rootRef, parent: { uri: one.id, cid: one.meta!.cid } });
    });

    it('puts facets on UTF-8 byte ranges in non-ASCII text', async () => {
      const ctx = providerContext(configOf(alice));
      const text = `Café ☕ — 日本語 👩🏽‍💻 voir https://exemple.fr/été?q=ü et @${bob.handle} ensuite 🇫🇷 #ça`;
      const ref = await blueskyProvider.publish(ctx, publishInput({ text }));
      const post = await getPost(ref);
      const facets = post.value.facets!;
      const link = facets.find((f) => f.features[0]!.$type.endsWith('#link'))!;
      const mention = facets.find((f) => f.features[0]!.$type.endsWith('#mention'))!;
      const tag = facets.find((f) => f.features[0]!.$type.endsWith('#tag'))!;
      expect(covered(post.value.text, link)).toBe('https://exemple.fr/été?q=ü');
      expect(covered(post.value.text, mention)).toBe(`@${bob.handle}`);
      expect(covered(post.value.text, tag)).toBe('#ça');
      // Byte offsets, not UTF-16 or code point offsets.
      expect(link.index.byteStart).toBe(Buffer.byteLength(text.slice(0, text.indexOf('https://'))));
      expect(link.index.byteStart).not.toBe(text.indexOf('https://'));
      expect(mention.features[0]!.did).toBe(bob.did);
    });

    it('leaves a mention of an unknown handle as plain text', async () => {
      const ctx = providerContext(configOf(alice));
      const ref = await blueskyProvider.publish(ctx, publishInput({ text: 'Hi @nobody-here.test and https://a.example' }));
      const post = await getPost(ref);
      expect(post.value.facets!.map((f) => f.features[0]!.$type)).toEqual(['app.bsky.richtext.facet#link']);
    });

    it('counts graphemes as the PDS does: 300 decomposed "é" pass, and the PDS itself refuses 301', async () => {
      const ctx = providerContext(configOf(alice));
      const exactly = 'e\u0301'.repeat(300); // 600 code points, 900 bytes, 300 graphemes
      expect(blueskyProvider.countText(exactly)).toBe(300);
      expect(
        blueskyProvider.validate({ text: exactly, media: [], settings: {}, part: 0, config: {}, platformApps: NO_PLATFORM_APPS }),
      ).toEqual([]);
      const ref = await blueskyProvider.publish(ctx, publishInput({ text: exactly }));
      expect((await getPost(ref)).value.text).toBe(exactly);

      const tooLong = exactly + 'e\u0301';
      await expect(blueskyProvider.publish(ctx, publishInput({ text: tooLong }))).rejects.toMatchObject({ kind: 'rejected' });
      const direct = await xrpc<{ error: string }>(peer.pds, 'com.atproto.repo.createRecord', {
        token: alice.accessJwt,
        body: {
          repo: alice.did,
          collection: 'app.bsky.feed.post',
          record: { $type: 'app.bsky.feed.post', text: tooLong, createdAt: new Date().toISOString() },
        },
      });
      expect(direct.status).toBe(400);
      expect(direct.data.error).toBe('InvalidRequest');
    });

    it('runs its tools: resolveHandle and whoami', async () => {
      const ctx = providerContext(configOf(alice));
      await expect(blueskyProvider.tools.resolveHandle!.run(ctx, { handle: `@${bob.handle}` })).resolves.toEqual({
        handle: bob.handle,
        did: bob.did,
      });
      await expect(blueskyProvider.tools.resolveHandle!.run(ctx, { handle: 'nobody-here.test' })).rejects.toMatchObject({
        kind: 'rejected',
      });
      await expect(blueskyProvider.tools.whoami!.run(ctx, {})).resolves.toEqual({ did: alice.did, handle: alice.handle, active: true });
    });

    it('signs in with the DID as identifier', async () => {
      const ctx = providerContext({ ...configOf(alice), identifier: alice.did });
      const ref = await blueskyProvider.publish(ctx, publishInput({ text: 'By DID' }));
      expect(ref.meta!.did).toBe(alice.did);
    });
  });

  describe('idempotent writes', () => {
    it('publishing the same post, part and content twice gives one record and the same ref', async () => {
      const ctx = providerContext(configOf(alice));
      const input = publishInput({ text: 'Only once' });
      const first = await blueskyProvider.publish(ctx, input);
      const again = await blueskyProvider.publish(ctx, input);
      expect(again).toEqual(first);
      const records = (await listPosts(alice.did)).filter((r) => r.uri === first.id);
      expect(records).toHaveLength(1);
      expect(records[0]!.value.text).toBe('Only once');
      expect(records[0]!.cid).toBe(first.meta!.cid);
      expect(blueskyProvider.idempotentWrites).toBe(true);
    });

    it('a write whose answer is lost is found under its key, and a later retry answers the same ref', async () => {
      // A loopback proxy in front of the PDS that lets createRecord through but cuts the
      // connection before the answer reaches Herald (as a dropped response would).
      let dropped = 0;
      const proxy = http.createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)),
        ) as Record<string, string>;
        const upstream = await fetch(new URL(req.url!, peer.pds), {
          method: req.method,
          headers,
          ...(chunks.length && { body: Buffer.concat(chunks) }),
        });
        let body = Buffer.from(await upstream.arrayBuffer());
        if (req.url!.includes('com.atproto.repo.createRecord') && dropped === 0) {
          dropped++;
          req.socket.destroy();
          return;
        }
        if (/createSession|refreshSession|getSession/.test(req.url!)) {
          // Keep the client on the proxy: no DID document pointing it at the PDS directly.
          const json = JSON.parse(body.toString());
          delete json.didDoc;
          body = Buffer.from(JSON.stringify(json));
        }
        res.writeHead(upstream.status, {
          'content-type': upstream.headers.get('content-type') ?? 'application/json',
          'content-length': body.byteLength,
        });
        res.end(body);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      try {
        const service = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
        const input = publishInput({ text: 'Answer lost' });
        const ref = await blueskyProvider.publish(providerContext(configOf(alice, service)), input);
        expect(dropped).toBe(1);
        expect(ref.id).toBe(`at://${alice.did}/app.bsky.feed.post/${recordKeyFor(input)}`);
        const retried = await blueskyProvider.publish(providerContext(configOf(alice)), input);
        expect(retried).toEqual(ref);
        expect((await listPosts(alice.did)).filter((r) => r.uri === ref.id)).toHaveLength(1);
      } finally {
        await new Promise((resolve) => proxy.close(resolve));
      }
    });
  });

  describe('errors', () => {
    it('a wrong app password is an auth failure', async () => {
      const ctx = providerContext({ ...configOf(alice), appPassword: 'aaaa-bbbb-cccc-dddd' });
      const error = await blueskyProvider.publish(ctx, publishInput()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ kind: 'auth', options: { status: 401 } });
      expect((error as Error).message).toMatch(/Invalid identifier or password/);
    });

    it('an unknown account is an auth failure', async () => {
      const ctx = providerContext({ ...configOf(alice), identifier: 'nobody-here.test' });
      await expect(blueskyProvider.publish(ctx, publishInput())).rejects.toMatchObject({ kind: 'auth' });
    });

    it("an image whose bytes are over Bluesky's limit is rejected before it is uploaded", async () => {
      const ctx = providerContext(configOf(alice));
      // Declared small (so validate passes) but the bytes read are over Bluesky's limit.
      const big = mediaItem(Buffer.concat([png(8, 8), Buffer.alloc(1_000_100)]), { size: 1000 });
      await expect(blueskyProvider.publish(ctx, publishInput({ media: [big] }))).rejects.toMatchObject({
        kind: 'rejected',
        message: expect.stringMatching(/1,?000,?000 bytes/),
      });
    });
  });
});
