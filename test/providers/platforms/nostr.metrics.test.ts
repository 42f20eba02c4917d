// Nostr's numbers, counted from the events the channel's relays hold (reactions, reposts,
// replies, quotes, zap receipts), through the provider's metrics capability against local relays,
// and end to end through the collector and the analytics API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalizeEvent, generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure';
import { nostrProvider } from '../../../src/providers/nostr/nostr.provider.ts';
import { ManualClock } from '../../../src/lib/clock.ts';
import { createTenant, createTestApp, type TestApp } from '../../helpers/app.ts';
import { createOk, postBody } from '../../helpers/posts.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { closeOutboundClients, providerContext, publishInput } from '../bluesky/helpers.ts';
import { publishDirect, query, startMiniRelay, startRefusingRelay } from './nostr-relays.ts';

const clock = new ManualClock('2026-06-01T10:00:00.000Z');
let mini: Awaited<ReturnType<typeof startMiniRelay>>;
let twin: Awaited<ReturnType<typeof startMiniRelay>>;
let empty: Awaited<ReturnType<typeof startRefusingRelay>>;
let t: TestApp;
beforeAll(async () => {
  // The refusing relay holds nothing and answers every REQ with EOSE: a relay that knows none of it.
  // nostrmini keeps one store per process, so a second one holds the same events: a relay that knows all of it too.
  [mini, twin, empty] = await Promise.all([startMiniRelay(), startMiniRelay(), startRefusingRelay()]);
  t = await createTestApp({ clock, engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});
afterAll(async () => {
  await closeOutboundClients();
  await t?.close();
  await Promise.all([mini?.close(), twin?.close(), empty?.close()]);
});

const metrics = nostrProvider.metrics!;
const someone = () => generateSecretKey();
let second = 1_780_000_000;
/** A signed event by `key`, sent to the local relay. */
async function send(key: Uint8Array, kind: number, tags: string[][], content = ''): Promise<Event> {
  const event = finalizeEvent({ kind, created_at: second++, tags, content }, key);
  expect((await publishDirect(mini.url, event))[2]).toBe(true);
  return event;
}

async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('Nostr metrics', () => {
  it('counts reactions, reposts, direct replies, comments, quotes and zaps tagging each note, once each across relays', async () => {
    const me = generateSecretKey();
    const ctx = providerContext({ secretKey: Buffer.from(me).toString('hex'), relays: [mini.url, twin.url, empty.url] });
    const note = await nostrProvider.publish(ctx, publishInput({ text: 'Counted', dueAt: '2026-06-01T09:00:00.000Z' }));
    const other = await nostrProvider.publish(ctx, publishInput({ text: 'Other', dueAt: '2026-06-01T09:01:00.000Z' }));
    const author = getPublicKey(me);
    const e = (id: string, marker?: string) => ['e', id, mini.url, ...(marker ? [marker] : [])];
    await send(someone(), 7, [e(note.id), ['p', author]], '+');
    await send(someone(), 7, [e(note.id), ['p', author]], '🔥');
    await send(someone(), 7, [e(note.id), ['p', author]], '-');
    // A reaction to the other note that also names this one first: NIP-25 counts the last `e` tag only.
    await send(someone(), 7, [e(note.id), e(other.id)], '+');
    await send(someone(), 6, [e(note.id), ['p', author]], '');
    await send(someone(), 16, [e(note.id), ['k', '1']], '');
    const reply = await send(someone(), 1, [e(note.id, 'root'), ['p', author]], 'a reply');
    // A reply to the reply is not a direct reply to the note; a mention is no reply at all.
    await send(someone(), 1, [e(note.id, 'root'), e(reply.id, 'reply')], 'nested');
    await send(someone(), 1, [e(note.id, 'mention')], 'look at this');
    // Positional (unmarked) tags: the last one is the note answered.
    await send(someone(), 1, [e(note.id)], 'old-style reply');
    await send(someone(), 1111, [['E', note.id], ['K', '1'], e(note.id), ['k', '1']], 'a comment');
    await send(someone(), 1, [['q', note.id, mini.url, author]], 'quoting');
    await send(someone(), 9735, [e(note.id), ['p', author], ['bolt11', 'lnbc10n1…']], '');
    // Forged: a signature that does not match is not counted.
    const forged = finalizeEvent({ kind: 7, created_at: second++, tags: [e(note.id)], content: '+' }, someone());
    await publishDirect(mini.url, { ...forged, sig: forged.sig.replace(/^./, (c) => (c === '0' ? '1' : '0')) });

    const readings = await metrics.posts(ctx, [note, other, { id: 'f'.repeat(64) }]);
    expect(readings.get(note.id)).toEqual({
      metrics: { likes: 2, reposts: 2, replies: 3, quotes: 1, zaps: 1 },
      raw: { kind7: 2, kind7_dislike: 1, kind6: 1, kind16: 1, kind1_reply: 2, kind1111: 1, quotes: 1, kind9735: 1 },
    });
    expect(readings.get(other.id)?.metrics).toEqual({ likes: 1, reposts: 0, replies: 0, quotes: 0, zaps: 0 });
    // A note no relay holds (deleted, or never there) is absent.
    expect(readings.has('f'.repeat(64))).toBe(false);

    // A new reaction changes the count.
    await send(someone(), 7, [e(note.id)], '+');
    expect((await metrics.posts(ctx, [note])).get(note.id)?.metrics.likes).toBe(3);
  });

  it('a relay that cannot be read is left out while another answers; none answering is a transient failure', async () => {
    const me = generateSecretKey();
    const dead = `ws://127.0.0.1:${await closedPort()}`;
    const ctx = providerContext({ secretKey: Buffer.from(me).toString('hex'), relays: [mini.url] });
    const note = await nostrProvider.publish(ctx, publishInput({ text: 'Partly readable', dueAt: '2026-06-01T09:02:00.000Z' }));
    await send(someone(), 7, [['e', note.id]], '+');
    const partly = providerContext({ secretKey: Buffer.from(me).toString('hex'), relays: [dead, mini.url] });
    expect((await metrics.posts(partly, [note])).get(note.id)?.metrics.likes).toBe(1);
    const none = providerContext({ secretKey: Buffer.from(me).toString('hex'), relays: [dead] });
    const failure = await providerFailure(metrics.posts(none, [note]));
    expect(failure.kind).toBe('transient');
    expect(failure.message).toContain(dead);
  });
});

describe('Nostr numbers through the collector and the API', () => {
  it("collects a published note's counts, and a new reaction changes the answer", async () => {
    const w = await createTenant(t);
    const key = generateSecretKey();
    const channel = await t.services.channels.create(w.workspaceId, {
      provider: 'nostr',
      name: 'Notes',
      config: { secretKey: Buffer.from(key).toString('hex'), relays: [mini.url] },
    });
    const [created] = await createOk(
      t,
      w,
      postBody(channel.id, { type: 'now', date: clock.now().toISOString() }, [{ content: '<p>Hello relays</p>' }]),
    );
    await t.settle();
    const read = async () => {
      const res = await t.request({ method: 'GET', url: `/public/v1/analytics/posts/${created!.postId}`, key: w.key });
      expect(res.statusCode, res.body).toBe(200);
      return res.json();
    };
    const [published] = await query(mini.url, { kinds: [1], authors: [getPublicKey(key)] });
    const releaseId = published!.id;
    await send(someone(), 7, [['e', releaseId]], '+');
    await send(someone(), 6, [['e', releaseId]], '');
    await t.services.analytics.collector.collectDue();
    expect((await read()).metrics).toEqual({ likes: 1, reposts: 1, replies: 0, quotes: 0, zaps: 0 });
    await send(someone(), 7, [['e', releaseId]], '🤙');
    clock.advance(3_600_000);
    await t.services.analytics.collector.collectDue();
    const second = await read();
    expect(second.parts[0].releaseId).toBe(releaseId);
    expect(second.metrics.likes).toBe(2);
    expect(second.parts[0].history.map((h: { metrics: { likes: number } }) => h.metrics.likes)).toEqual([1, 2]);
  });
});
