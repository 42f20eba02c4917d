import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { PostTransitions } from '../../src/posts/post-transitions.ts';
import * as repo from '../../src/posts/post-claims.repository.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';

// A lane's claim (what the scale-out queue's wakes run): up to `limit` due posts at once, by one
// statement on PostgreSQL and two on SQLite, on whichever backend the suite runs against. Each test files its posts under a
// platform name of its own, so a lane of that name sees them and nothing else.

type Statement = { sql: string; parameters: readonly unknown[] };
const clock = new ManualClock('2026-12-01T08:00:00.000Z');
let recording: Statement[] | null = null;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' }, onQuery: (query) => recording?.push(query) });
});

const transitions = () =>
  new PostTransitions({ db: t.runtime.db, clock, notifications: t.services.notifications, webhookOutbox: t.services.webhookOutbox });
const LEASE = 60_000;
const TRANSACTION_CONTROL = /^\s*(begin|commit|rollback|start transaction)\b/i;

/** A workspace whose one channel is filed under a platform name of its own (the lane's), with posts scheduled at each of `times`. */
async function lanePosts(times: string[], parts = 1) {
  const tenant = await webhookTenant(t, 'http://127.0.0.1:9/unused');
  const platform = `lane-${randomUUID().slice(0, 8)}`;
  clock.set('2026-12-01T08:00:00.000Z');
  const ids: string[] = [];
  for (const at of times) {
    const value = Array.from({ length: parts }, (_, p) => ({ content: `<p>Part ${p}</p>`, delay: 0 }));
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: at }, value));
    ids.push(created!.postId);
  }
  // Renamed once the posts are scheduled (a platform this server does not know refuses new posts).
  await t.runtime.db.updateTable('channels').set({ provider: platform }).where('id', '=', tenant.channelId).execute();
  return { tenant, platform, ids };
}

const state = (id: string) =>
  t.runtime.db.selectFrom('posts').select(['state', 'next_run_at']).where('id', '=', id).executeTakeFirstOrThrow();
const parts = (id: string) =>
  t.runtime.db
    .selectFrom('post_parts')
    .select(['idx', 'state', 'claimed_at', 'attempts'])
    .where('post_id', '=', id)
    .orderBy('idx')
    .execute();

describe("a lane's claim", () => {
  it('claims the earliest due posts up to its limit, each with its first part, by one statement (PostgreSQL) or a transaction of two', async () => {
    const { platform, ids } = await lanePosts([
      '2026-12-01T10:00:03.000Z',
      '2026-12-01T10:00:01.000Z',
      '2026-12-01T10:00:02.000Z',
      '2026-12-01T10:30:00.000Z',
    ]);
    const [third, first, second, later] = ids as [string, string, string, string];
    clock.set('2026-12-01T10:00:05.000Z');
    recording = [];
    const claims = await transitions().claimDueBatch({ only: [platform] }, 2, LEASE);
    const statements = recording;
    recording = null;
    expect(claims.map((c) => c.claim.postId)).toEqual([first, second]);
    const work = statements.filter((s) => !TRANSACTION_CONTROL.test(s.sql));
    if (BACKEND === 'postgres') {
      expect(statements.map((s) => s.sql.split(' ').slice(0, 2).join(' '))).toEqual(['with "due"']);
    } else {
      expect(work.map((s) => s.sql.split(' ').slice(0, 2).join(' '))).toEqual(['update "posts"', 'update "post_parts"']);
      expect(statements.length - work.length).toBe(2);
    }
    const stamp = clock.now().toISOString();
    for (const claim of claims) {
      expect(claim.claim).toMatchObject({ idx: 0, claimedAt: stamp, attempts: 1 });
      expect(claim.post.state).toBe('PUBLISHING');
      expect(claim.part.state).toBe('SENDING');
      expect(claim.channel?.provider).toBe(platform);
      expect(await state(claim.claim.postId)).toEqual({ state: 'PUBLISHING', next_run_at: null });
      expect((await parts(claim.claim.postId)).map((p) => ({ ...p, idx: Number(p.idx), attempts: Number(p.attempts) }))).toEqual([
        { idx: 0, state: 'SENDING', claimed_at: stamp, attempts: 1 },
      ]);
    }
    // The next claim takes what is left that is due; the post due later stays.
    const rest = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
    expect(rest.map((c) => c.claim.postId)).toEqual([third]);
    expect(await transitions().claimDueBatch({ only: [platform] }, 10, LEASE)).toEqual([]);
    expect(await state(later)).toEqual({ state: 'QUEUE', next_run_at: '2026-12-01T10:30:00.000Z' });
  });

  it('leaves drafts, deleted posts, posts on a deleted channel, posts with nothing to send, and other lanes', async () => {
    const at = '2026-12-02T10:00:00.000Z';
    const { tenant, platform, ids } = await lanePosts([at, at, at, at]);
    const [kept, drafted, deleted, misfit] = ids as [string, string, string, string];
    const other = await lanePosts([at]);
    const gone = await lanePosts([at]);
    expect(
      (await t.request({ method: 'PUT', url: `/public/v1/posts/${drafted}/status`, key: tenant.key, payload: { status: 'draft' } }))
        .statusCode,
    ).toBeLessThan(300);
    expect((await t.request({ method: 'DELETE', url: `/public/v1/posts/${deleted}`, key: tenant.key })).statusCode).toBe(200);
    await t.runtime.db
      .updateTable('post_parts')
      .set({ state: 'ERROR', error: 'set aside by the test' })
      .where('post_id', '=', misfit)
      .execute();
    // Marked deleted as the service does first; its post is still in QUEUE (it would have been moved to draft next).
    await t.runtime.db
      .updateTable('channels')
      .set({ deleted_at: at, provider: platform })
      .where('id', '=', gone.tenant.channelId)
      .execute();
    clock.set(at);
    const claims = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
    expect(claims.map((c) => c.claim.postId)).toEqual([kept]);
    expect(await state(misfit)).toEqual({ state: 'QUEUE', next_run_at: at });
    expect((await parts(misfit)).map((p) => p.state)).toEqual(['ERROR']);
    expect(await state(gone.ids[0]!)).toEqual({ state: 'QUEUE', next_run_at: at });
    // The other platform's lane takes its own.
    expect((await transitions().claimDueBatch({ only: [other.platform] }, 10, LEASE)).map((c) => c.claim.postId)).toEqual(other.ids);
  });

  it("claims a published thread's next comment, and a post's first part only while it is in QUEUE", async () => {
    const at = '2026-12-03T10:00:00.000Z';
    const { platform, ids } = await lanePosts([at], 3);
    const [thread] = ids as [string];
    clock.set(at);
    const [root] = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
    expect(root?.claim.idx).toBe(0);
    const recorded = await transitions().published(root!.claim, { id: 'root' }, { delayMinutes: 5 });
    expect(recorded).toMatchObject({ recorded: true });
    // Not yet due: the comment comes 5 minutes later.
    expect(await transitions().claimDueBatch({ only: [platform] }, 10, LEASE)).toEqual([]);
    clock.advance(5 * 60_000);
    const [comment] = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
    expect(comment?.claim).toMatchObject({ postId: thread, idx: 1 });
    expect(comment?.post.state).toBe('PUBLISHED');
    expect(comment?.partCount).toBe(3);
    expect((await parts(thread)).map((p) => p.state)).toEqual(['PUBLISHED', 'SENDING', 'PENDING']);
  });

  it('the default lane takes every platform but those it is told to leave', async () => {
    const at = '2026-12-04T10:00:00.000Z';
    const mine = await lanePosts([at]);
    const theirs = await lanePosts([at]);
    clock.set(at);
    // Everything due on this clock in the whole test database but `theirs`: this test's post and whatever earlier tests left due.
    const claims = await transitions().claimDueBatch({ except: [theirs.platform] }, 1000, LEASE);
    const claimed = claims.map((c) => c.claim.postId);
    expect(claimed).toContain(mine.ids[0]);
    expect(claimed).not.toContain(theirs.ids[0]);
    expect(await state(theirs.ids[0]!)).toEqual({ state: 'QUEUE', next_run_at: at });
  });

  it.skipIf(BACKEND !== 'postgres')(
    'two claims at once take different posts: the second skips the rows the first holds instead of waiting for them',
    async () => {
      const at = '2026-12-05T10:00:00.000Z';
      const { platform, ids } = await lanePosts([at, at, at, at]);
      clock.set(at);
      const outcome = await t.runtime.db.transaction().execute(async (trx) => {
        // The first claim's rows stay locked until this transaction ends.
        const first = await trx.selectFrom('posts').select('id').where('id', 'in', ids.slice(0, 2)).forUpdate().execute();
        const second = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
        return { held: first.map((r) => r.id), second: second.map((c) => c.claim.postId) };
      });
      expect(outcome.held.sort()).toEqual(ids.slice(0, 2).sort());
      expect(outcome.second.sort()).toEqual(ids.slice(2).sort());
      // Once released, the held ones are claimed, once.
      const rest = await transitions().claimDueBatch({ only: [platform] }, 10, LEASE);
      expect(rest.map((c) => c.claim.postId).sort()).toEqual(ids.slice(0, 2).sort());
    },
  );
});

describe.skipIf(BACKEND !== 'postgres')('records of a batch by one statement (PostgreSQL)', () => {
  /** A record of each claim as the engine would write it, at `stamp`. */
  const recordsOf = (
    claims: Awaited<ReturnType<PostTransitions['claimDueBatch']>>,
    stamp: string,
    change: (claim: (typeof claims)[number]['claim']) => Partial<repo.PublishedRecord> = () => ({}),
  ) =>
    claims.map(({ claim }): repo.PublishedRecord => ({
      post_id: claim.postId,
      idx: claim.idx,
      claimed_at: claim.claimedAt,
      version: claim.version,
      stamp,
      next_run_at: null,
      release_id: `rel-${claim.postId}`,
      release_url: `https://example.test/${claim.postId}`,
      release_meta: JSON.stringify({ n: 1, text: 'it\'s "quoted"' }),
      ...change(claim),
    }));

  it('records the parts still SENDING under their claims and their posts at their versions; the rest are left as they are', async () => {
    const { platform, ids } = await lanePosts(['2026-12-01T11:00:00.000Z', '2026-12-01T11:00:01.000Z', '2026-12-01T11:00:02.000Z']);
    const [kept, stale, edited] = ids as [string, string, string];
    clock.set('2026-12-01T11:00:05.000Z');
    const claims = await transitions().claimDueBatch({ only: [platform] }, 3, LEASE);
    expect(claims.map((c) => c.claim.postId)).toEqual(ids);
    const stamp = '2026-12-01T11:00:06.000Z';
    // Another claim's token: this part is not recorded; another version: neither this post nor its part is.
    const records = recordsOf(claims, stamp, (claim) => ({
      ...(claim.postId === stale && { claimed_at: '2026-12-01T10:59:00.000Z' }),
      ...(claim.postId === edited && { version: claim.version + 1 }),
    }));
    recording = [];
    expect(await repo.recordAllPublished(t.runtime.db, records)).toEqual([kept]);
    const statements = recording;
    recording = null;
    // One statement, no transaction around it.
    expect(statements).toHaveLength(1);
    const post = await t.runtime.db
      .selectFrom('posts')
      .select(['state', 'release_id', 'release_url', 'published_at', 'next_run_at', 'updated_at', 'error'])
      .where('id', '=', kept)
      .executeTakeFirstOrThrow();
    expect(post).toEqual({
      state: 'PUBLISHED',
      release_id: `rel-${kept}`,
      release_url: `https://example.test/${kept}`,
      published_at: stamp,
      next_run_at: null,
      updated_at: stamp,
      error: null,
    });
    const part = await t.runtime.db
      .selectFrom('post_parts')
      .select(['state', 'release_id', 'release_meta', 'published_at', 'claimed_at', 'lease_until'])
      .where('post_id', '=', kept)
      .executeTakeFirstOrThrow();
    expect(part).toEqual({
      state: 'PUBLISHED',
      release_id: `rel-${kept}`,
      release_meta: JSON.stringify({ n: 1, text: 'it\'s "quoted"' }),
      published_at: stamp,
      claimed_at: null,
      lease_until: null,
    });
    for (const id of [stale, edited]) {
      expect((await parts(id))[0]).toMatchObject({ state: 'SENDING' });
      expect(await state(id)).toEqual({ state: 'PUBLISHING', next_run_at: null });
    }
  });

  it('leaves out, without waiting, a post or a part another transaction holds', async () => {
    const { platform, ids } = await lanePosts(['2026-12-01T12:00:00.000Z', '2026-12-01T12:00:01.000Z', '2026-12-01T12:00:02.000Z']);
    const [free, postHeld, partHeld] = ids as [string, string, string];
    clock.set('2026-12-01T12:00:05.000Z');
    const claims = await transitions().claimDueBatch({ only: [platform] }, 3, LEASE);
    const records = recordsOf(claims, '2026-12-01T12:00:06.000Z');
    const recorded = await t.runtime.db.transaction().execute(async (trx) => {
      // A person's edit holding one post's row, lease recovery holding another's part (until this transaction ends).
      await trx.selectFrom('posts').select('id').where('id', '=', postHeld).forUpdate().execute();
      await trx.selectFrom('post_parts').select('idx').where('post_id', '=', partHeld).forUpdate().execute();
      return repo.recordAllPublished(t.runtime.db, records);
    });
    expect(recorded).toEqual([free]);
    expect(await state(free)).toMatchObject({ state: 'PUBLISHED' });
    for (const id of [postHeld, partHeld]) {
      expect((await parts(id))[0]).toMatchObject({ state: 'SENDING' });
      expect(await state(id)).toMatchObject({ state: 'PUBLISHING' });
    }
    // Once let go, the same records go through.
    expect(
      (
        await repo.recordAllPublished(
          t.runtime.db,
          records.filter((r) => r.post_id !== free),
        )
      ).sort(),
    ).toEqual([postHeld, partHeld].sort());
  });
});
