import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { npubEncode, nsecEncode } from 'nostr-tools/nip19';
import { nostrProvider } from '../../../src/providers/nostr/nostr.provider.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { png } from '../../helpers/media-files.ts';
import { closeOutboundClients, mediaItem, providerContext, publishInput } from '../bluesky/helpers.ts';
import { publishDirect, query, startMiniRelay, startRefusingRelay } from './nostr-relays.ts';
import { publishThreadThroughApi } from './platform-e2e.ts';

let mini: Awaited<ReturnType<typeof startMiniRelay>>;
let refusing: Awaited<ReturnType<typeof startRefusingRelay>>;
let limited: Awaited<ReturnType<typeof startRefusingRelay>>;
let t: TestApp;
beforeAll(async () => {
  [mini, refusing, limited] = await Promise.all([startMiniRelay(), startRefusingRelay(), startRefusingRelay('rate-limited: slow down')]);
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await Promise.all([mini?.close(), refusing?.close(), limited?.close()]);
});

function account() {
  const key = generateSecretKey();
  return { key, pubkey: getPublicKey(key), nsec: nsecEncode(key), hex: Buffer.from(key).toString('hex') };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('nostr provider', () => {
  it('accepts nsec or hex keys and only wss relays (ws on loopback)', () => {
    const me = account();
    for (const secretKey of [me.nsec, me.hex])
      expect(nostrProvider.configSchema.safeParse({ secretKey, relays: ['wss://relay.example'] }).success).toBe(true);
    expect(nostrProvider.configSchema.safeParse({ secretKey: 'nsec1nope', relays: ['wss://relay.example'] }).success).toBe(false);
    expect(nostrProvider.configSchema.safeParse({ secretKey: me.hex, relays: ['ws://relay.example'] }).success).toBe(false);
    expect(nostrProvider.configSchema.safeParse({ secretKey: me.hex, relays: [] }).success).toBe(false);
  });

  it('publishes a signed kind-1 note with imeta media; succeeds with one relay accepting and names the one that refused', async () => {
    const me = account();
    const ctx = providerContext({ secretKey: me.nsec, relays: [mini.url, refusing.url] });
    const item = mediaItem(png(20, 10), { width: 20, height: 10, url: `https://media.herald.test/${randomUUID()}.png` });
    const input = publishInput({
      text: 'Hello #Nostr',
      media: [item],
      settings: { alt: { [item.id]: 'A banner' } },
      dueAt: '2026-11-23T10:00:00.000Z',
    });
    const ref = await nostrProvider.publish(ctx, input);
    expect(ref.meta).toMatchObject({
      pubkey: me.pubkey,
      accepted: [mini.url],
      refused: [{ relay: refusing.url, reason: 'blocked: this relay only takes notes from its members' }],
    });
    expect(ref.url).toMatch(/^https:\/\/njump\.me\/nevent1/);
    const [event] = await query(mini.url, { ids: [ref.id] });
    expect(verifyEvent(event!)).toBe(true);
    expect(event).toMatchObject({
      kind: 1,
      pubkey: me.pubkey,
      created_at: Date.parse('2026-11-23T10:00:00.000Z') / 1000,
      content: `Hello #Nostr\n\n${item.url}`,
    });
    expect(event!.tags).toEqual([
      ['imeta', `url ${item.url}`, 'm image/png', 'dim 20x10', 'alt A banner'],
      ['t', 'nostr'],
    ]);
    // A retry signs the same event: the same id, whatever the wall clock says.
    expect((await nostrProvider.publish(ctx, input)).id).toBe(ref.id);
    expect(refusing.received.filter((e) => e.id === ref.id)).toHaveLength(2);
  });

  it('tags replies per NIP-10: the root, and the parent when it is not the root', async () => {
    const me = account();
    const ctx = providerContext({ secretKey: me.hex, relays: [mini.url] });
    const postId = randomUUID();
    const root = await nostrProvider.publish(ctx, publishInput({ postId, text: 'Root' }));
    const first = await nostrProvider.comment(ctx, publishInput({ postId, part: 1, text: 'One', root, parent: root }));
    const second = await nostrProvider.comment(ctx, publishInput({ postId, part: 2, text: 'Two', root, parent: first }));
    const events = await query(mini.url, { ids: [first.id, second.id] });
    const byId = new Map(events.map((e) => [e.id, e]));
    expect(byId.get(first.id)!.tags).toEqual([
      ['e', root.id, mini.url, 'root', me.pubkey],
      ['p', me.pubkey],
    ]);
    expect(byId.get(second.id)!.tags).toEqual([
      ['e', root.id, mini.url, 'root', me.pubkey],
      ['e', first.id, mini.url, 'reply', me.pubkey],
      ['p', me.pubkey],
    ]);
  });

  it('fails by what the relays said: all refusing is rejected, rate-limited is retried, none reachable is transient', async () => {
    const me = account();
    await expect(
      nostrProvider.publish(providerContext({ secretKey: me.hex, relays: [refusing.url] }), publishInput()),
    ).rejects.toMatchObject({ kind: 'rejected', message: expect.stringContaining('blocked:') });
    await expect(
      nostrProvider.publish(providerContext({ secretKey: me.hex, relays: [limited.url] }), publishInput()),
    ).rejects.toMatchObject({ kind: 'rate_limited' });
    await expect(
      nostrProvider.publish(providerContext({ secretKey: me.hex, relays: [`ws://127.0.0.1:${await closedPort()}`] }), publishInput()),
    ).rejects.toMatchObject({ kind: 'transient' });
  });

  it('relay connections go through the outbound policy: loopback literals and names resolving to loopback are refused unless allowed', async () => {
    const me = account();
    const port = new URL(mini.url).port;
    await expect(
      nostrProvider.publish(
        providerContext({ secretKey: me.hex, relays: [mini.url] }, { outbound: { allowLoopback: false } }),
        publishInput(),
      ),
    ).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/outbound policy.*loopback/),
    });
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const named = { secretKey: me.hex, relays: [`wss://relay.example:${port}`] };
    await expect(
      nostrProvider.publish(providerContext(named, { outbound: { allowLoopback: false, lookup } }), publishInput()),
    ).rejects.toMatchObject({
      kind: 'rejected',
      message: expect.stringMatching(/relay\.example resolves to 127\.0\.0\.1, a loopback address/),
    });
    // The same resolver is what the connection uses: with loopback allowed, the name reaches the relay.
    const resolved: string[] = [];
    const recording = async (host: string) => (resolved.push(host), [{ address: '127.0.0.1', family: 4 }]);
    const local = { secretKey: me.hex, relays: [`ws://localhost:${port}`] };
    await expect(
      nostrProvider.publish(providerContext(local, { outbound: { allowLoopback: true, lookup: recording } }), publishInput()),
    ).resolves.toMatchObject({ meta: { accepted: [`ws://localhost:${port}`] } });
    expect(resolved).toEqual(['localhost']);
  });

  it('connectAccount derives the public key and reads the kind-0 profile, or names the account by its npub', async () => {
    const me = account();
    await expect(nostrProvider.connectAccount!(providerContext({ secretKey: me.nsec, relays: [mini.url, refusing.url] }))).resolves.toEqual(
      {
        internalId: me.pubkey,
        name: npubEncode(me.pubkey),
        handle: npubEncode(me.pubkey),
        picture: null,
      },
    );
    const profile = finalizeEvent(
      {
        kind: 0,
        created_at: Math.floor(Date.now() / 1000),
        tags: [],
        content: JSON.stringify({
          name: 'herald',
          display_name: 'Herald News',
          picture: 'https://img.example/h.png',
          nip05: 'news@herald.example',
        }),
      },
      me.key,
    );
    expect((await publishDirect(mini.url, profile))[2]).toBe(true);
    await expect(nostrProvider.connectAccount!(providerContext({ secretKey: me.nsec, relays: [mini.url] }))).resolves.toEqual({
      internalId: me.pubkey,
      name: 'Herald News',
      handle: 'news@herald.example',
      picture: 'https://img.example/h.png',
    });
  });

  it('end to end: a note with an image and two replies, published by the engine to the relays', async () => {
    const me = account();
    const { post, image, settingsSchema } = await publishThreadThroughApi(t, 'nostr', {
      secretKey: me.nsec,
      relays: [mini.url, refusing.url],
    });
    expect(settingsSchema).toMatchObject({ identifier: 'nostr', idempotentWrites: true });
    const events = await query(mini.url, { authors: [me.pubkey], kinds: [1] });
    const byContent = new Map(events.map((e) => [e.content, e]));
    const root = byContent.get(`Launch day: the notes (https://example.com/launch)\n\n${image.path}`)!;
    expect(root.id).toBe(post.releaseId);
    expect(root.tags).toContainEqual(['imeta', `url ${image.path}`, 'm image/png', 'dim 24x12']);
    expect(root.created_at).toBe(Math.floor(Date.parse(post.publishDate) / 1000));
    const first = byContent.get('First comment')!;
    const second = byContent.get('Second comment')!;
    expect(first.tags.filter((tag) => tag[0] === 'e')).toEqual([['e', root.id, mini.url, 'root', me.pubkey]]);
    expect(second.tags.filter((tag) => tag[0] === 'e')).toEqual([
      ['e', root.id, mini.url, 'root', me.pubkey],
      ['e', first.id, mini.url, 'reply', me.pubkey],
    ]);
    expect(refusing.received.map((e) => e.id)).toEqual(expect.arrayContaining([root.id, first.id, second.id]));
  });
});
