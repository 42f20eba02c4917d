// Bluesky's counts through the provider's metrics capability, against the local fake XRPC server
// answering as the AppView does through the PDS.
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearBlueskySessions } from '../../../src/providers/bluesky/bluesky.client.ts';
import { blueskyProvider } from '../../../src/providers/bluesky/bluesky.provider.ts';
import type { PublishedRef } from '../../../src/providers/provider.ts';
import { providerFailure } from '../../helpers/providers.ts';
import { FakeXrpc } from './fake-xrpc.ts';
import { closeOutboundClients, providerContext, publishInput } from './helpers.ts';

let fake: FakeXrpc;
beforeEach(async () => {
  fake = await new FakeXrpc().start();
});
afterEach(async () => {
  clearBlueskySessions();
  await fake.stop();
});
afterAll(() => closeOutboundClients());

const metrics = blueskyProvider.metrics!;
const ctx = () => providerContext({ service: fake.url, identifier: fake.account.handle, appPassword: fake.account.appPassword });

async function published(n: number): Promise<PublishedRef[]> {
  const refs: PublishedRef[] = [];
  for (let i = 0; i < n; i++) refs.push(await blueskyProvider.publish(ctx(), publishInput({ postId: `p${i}`, text: `post ${i}` })));
  return refs;
}

describe('Bluesky metrics', () => {
  it("reads posts' counts in one getPosts call and normalises them; a post the AppView lacks is absent", async () => {
    const [a, b] = await published(2);
    fake.counts.set(a!.id, { likeCount: 12, repostCount: 3, replyCount: 2, quoteCount: 1, bookmarkCount: 5 });
    const gone: PublishedRef = { id: `at://${fake.account.did}/app.bsky.feed.post/3zzzzzzzzzzzz` };
    const readings = await metrics.posts(ctx(), [a!, b!, gone]);
    expect(fake.calls('app.bsky.feed.getPosts')).toHaveLength(1);
    expect(fake.calls('app.bsky.feed.getPosts')[0]!.query.getAll('uris')).toEqual([a!.id, b!.id, gone.id]);
    expect(readings.get(a!.id)).toEqual({
      metrics: { likes: 12, reposts: 3, replies: 2, quotes: 1, bookmarks: 5 },
      raw: { likeCount: 12, repostCount: 3, replyCount: 2, quoteCount: 1, bookmarkCount: 5 },
    });
    expect(readings.get(b!.id)?.metrics).toEqual({ likes: 0, reposts: 0, replies: 0, quotes: 0, bookmarks: 0 });
    expect(readings.has(gone.id)).toBe(false);
    expect(metrics.batchSize).toBe(25);
  });

  it("reads the account's followers from its profile", async () => {
    fake.profile.followersCount = 321;
    fake.profile.followsCount = 12;
    await published(1);
    expect((await metrics.account(ctx())).metrics).toEqual({ followers: 321, following: 12, posts: 1 });
    expect(fake.calls('app.bsky.actor.getProfile')[0]!.query.get('actor')).toBe(fake.account.did);
  });

  it('a 429 is rate_limited with the wait the AppView asks for; an expired session signs in again', async () => {
    const [a] = await published(1);
    fake.on('app.bsky.feed.getPosts', () => ({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
    }));
    expect(await providerFailure(metrics.posts(ctx(), [a!]))).toMatchObject({ kind: 'rate_limited', options: { retryAfterMs: 30_000 } });
    fake.on('app.bsky.feed.getPosts', (_req, next) => next());
    fake.expireAccessTokens();
    fake.refresh.clear();
    fake.counts.set(a!.id, { likeCount: 4 });
    expect((await metrics.posts(ctx(), [a!])).get(a!.id)?.metrics.likes).toBe(4);
  });
});
