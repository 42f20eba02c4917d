import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { PostTransitions, type Claim } from '../../src/posts/post-transitions.ts';
import * as repo from '../../src/posts/post-claims.repository.ts';
import { BACKEND } from '../helpers/backend.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { createOk, createPosts, getPost, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

// Group commit of the engine's claims and records: steps asked for together share one
// transaction, each post still claimed and recorded by its own conditional statements; a batch
// in which one item does not fit is rolled back and its items run one by one, as a lone item does.
type Statement = { sql: string; parameters: readonly unknown[] };
const clock = new ManualClock('2026-11-01T08:00:00.000Z');
let recording: Statement[] | null = null;
let t: TestApp;
/** The same application without its engine: the transitions are driven by the test. */
let u: TestApp;
const uClock = new ManualClock('2026-11-01T08:00:00.000Z');
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

/**
 * Holds the jobs of `expected` posts just before their claims until all of them are there, runs
 * `meanwhile`, then lets them all go at once: their claims are asked for together.
 */
type Gate = { expected: number; arrived: string[]; meanwhile: () => Promise<void>; open: Promise<void>; release: () => void };
let gate: Gate | null = null;
/** Whether the engine runs on the scale-out queue, whose wakes claim a lane's posts by the batch. */
const lanes = BACKEND === 'postgres';
/** Whether a batch of records is written by one statement for all its posts, outside any transaction (where each statement is a round trip: PostgreSQL). */
const batchRecords = BACKEND === 'postgres';

function holdClaims(expected: number, meanwhile: () => Promise<void> = async () => {}) {
  let release!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  gate = { expected, arrived: [], meanwhile, open, release };
}

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({
    clock,
    engine: true,
    engineConcurrency: 8,
    env: { OUTBOUND_ALLOW_LOOPBACK: 'true' },
    onQuery: (query) => recording?.push(query),
    publisherHooks: {
      beforeClaim: async (postId) => {
        const g = gate;
        if (!g) return;
        g.arrived.push(postId ?? 'a lane');
        if (g.arrived.length === g.expected) {
          gate = null;
          await g.meanwhile();
          g.release();
        }
        await g.open;
      },
    },
  });
  u = await createTestApp({ clock: uClock, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' }, onQuery: (query) => recording?.push(query) });
});

const BEGIN = /^\s*(begin|start transaction)\b/i;
const COMMIT = /^\s*commit\b/i;
const ROLLBACK = /^\s*rollback\b/i;
/** A batch's bound on lock waits (PostgreSQL): a setting, not work on a post. */
const SETTING = /^\s*set local\b/i;
/** Whether a statement names the post, as a parameter of its own or in a batch's JSON list. */
const mentions = (statement: Statement, id: string) =>
  statement.parameters.some((p) => p === id || (typeof p === 'string' && p.startsWith('[') && p.includes(`"${id}"`)));
const deliveriesFor = (postId: string) => receiver.deliveries.filter((d) => d.body.data.postId === postId);

type Transaction = { end: 'commit' | 'rollback'; work: Statement[] };

/**
 * The statements recorded, in order: those outside any transaction (each its own), and each
 * transaction's (transaction control and settings left out) with how it ended.
 */
function split(statements: Statement[]): { alone: Statement[]; transactions: Transaction[] } {
  const alone: Statement[] = [];
  const transactions: Transaction[] = [];
  let open: Statement[] | null = null;
  for (const statement of statements) {
    if (BEGIN.test(statement.sql)) open = [];
    else if (COMMIT.test(statement.sql) || ROLLBACK.test(statement.sql)) {
      transactions.push({ end: COMMIT.test(statement.sql) ? 'commit' : 'rollback', work: open ?? [] });
      open = null;
    } else if (!open) alone.push(statement);
    else if (!SETTING.test(statement.sql)) open.push(statement);
  }
  return { alone, transactions };
}
const alone = (statements: Statement[]) => split(statements).alone;
const transactions = (statements: Statement[]) => split(statements).transactions;

/** A lane's claim on PostgreSQL: one statement, its own transaction. */
const CLAIM_ALL = /^with "due" as /;
/** A batch's record of successes on PostgreSQL: one statement, its own transaction. */
const RECORD_ALL = /^with "r" as /;

/** `count` single posts on one webhook channel, scheduled for `at` (the clock an hour before), then a minute before `at` (within the engine's horizon). */
async function duePosts(count: number, at: string) {
  const tenant = await webhookTenant(t, receiver.url);
  clock.set(new Date(Date.parse(at) - 3600_000).toISOString());
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const [created] = await createOk(t, tenant, postBody(tenant.channelId, { date: at }, [{ content: `<p>Post ${i}</p>` }]));
    ids.push(created!.postId);
  }
  clock.set(new Date(Date.parse(at) - 60_000).toISOString());
  await t.settle();
  return { tenant, ids };
}

/** Moves the clock to `at` and records every statement until the engine is idle again. */
async function recordUntilIdle(at: string): Promise<Statement[]> {
  recording = [];
  clock.set(at);
  await t.settle();
  const statements = recording;
  recording = null;
  return statements;
}

/** Moves the clock to `at`, waits until every one of `ids` is published once, and returns the statements run meanwhile, by transaction (each committed). */
async function publishedOnceEach(tenant: Awaited<ReturnType<typeof duePosts>>['tenant'], ids: string[], at: string) {
  const statements = await recordUntilIdle(at);
  for (const id of ids) {
    expect(deliveriesFor(id)).toHaveLength(1);
    expect((await getPost(t, tenant, id)).state).toBe('PUBLISHED');
  }
  const all = transactions(statements);
  expect(all.every((tx) => tx.end === 'commit')).toBe(true);
  return { statements, all };
}

// The embedded queue's jobs are per post, claimed together by group commit; the scale-out queue claims a lane's due posts by the batch instead (below, and lane-claims.test.ts).
describe.skipIf(lanes)('posts due together (engine)', () => {
  it('N posts due at one instant are claimed together and published with fewer than 2N transactions, each once', async () => {
    const N = 6;
    const at = '2026-11-01T10:00:00.000Z';
    const { tenant, ids } = await duePosts(N, at);
    holdClaims(N);
    const { statements, all } = await publishedOnceEach(tenant, ids, at);
    expect(statements.filter((s) => BEGIN.test(s.sql)).length).toBeLessThan(2 * N);
    // One transaction claimed them all, each post by its own two conditional updates.
    const claims = all.find((tx) => tx.work.length === 2 * N);
    expect(claims, all.map((tx) => tx.work.length).join(',')).toBeDefined();
    for (const id of ids)
      expect(claims!.work.filter((s) => s.parameters.includes(id)).map((s) => s.sql.split(' ').slice(0, 2).join(' '))).toEqual([
        'update "posts"',
        'update "post_parts"',
      ]);
  });

  it('in a batch of claims, a post edited to a later time and a post deleted after they were due are left out; the others go out once', async () => {
    const at = '2026-11-02T10:00:00.000Z';
    const later = '2026-11-02T11:00:00.000Z';
    const { tenant, ids } = await duePosts(4, at);
    const [edited, deleted, ...others] = ids as [string, string, string, string];
    const { group } = await getPost(t, tenant, edited);
    holdClaims(4, async () => {
      const edit = await createPosts(t, tenant, postBody(tenant.channelId, { date: later, group }, [{ content: '<p>Edited</p>' }]));
      expect(edit.statusCode, edit.body).toBe(200);
      const removed = await t.request({ method: 'DELETE', url: `/public/v1/posts/${deleted}`, key: tenant.key });
      expect(removed.statusCode, removed.body).toBe(200);
    });
    const statements = await recordUntilIdle(at);
    // The claim transaction held all four, claimed two, and committed.
    const claimBatch = transactions(statements).find((tx) => ids.every((id) => tx.work.some((s) => s.parameters.includes(id))));
    expect(claimBatch?.end).toBe('commit');
    expect(statements.some((s) => ROLLBACK.test(s.sql))).toBe(false);
    for (const id of others) {
      expect(deliveriesFor(id)).toHaveLength(1);
      expect((await getPost(t, tenant, id)).state).toBe('PUBLISHED');
    }
    expect(deliveriesFor(deleted)).toHaveLength(0);
    expect(deliveriesFor(edited)).toHaveLength(0);
    expect(await getPost(t, tenant, edited)).toMatchObject({ state: 'QUEUE', publishDate: later });

    // The edit goes out at its own time, once, as edited.
    clock.set(later);
    await t.settle();
    expect(deliveriesFor(edited).map((d) => d.body.data.text)).toEqual(['Edited']);
    expect((await getPost(t, tenant, edited)).state).toBe('PUBLISHED');
  });

  it('a claim that does not fit (a due post with no part to send) rolls its batch back; the others are claimed one by one and go out once', async () => {
    const at = '2026-11-03T10:00:00.000Z';
    const { tenant, ids } = await duePosts(4, at);
    // Last in the batch's order, so the batch has claimed the others when it meets it.
    const misfit = [...ids].sort().at(-1)!;
    const others = ids.filter((id) => id !== misfit);
    holdClaims(4, async () => {
      await t.runtime.db
        .updateTable('post_parts')
        .set({ state: 'ERROR', error: 'set aside by the test' })
        .where('post_id', '=', misfit)
        .execute();
    });
    const statements = await recordUntilIdle(at);
    const all = transactions(statements);
    const rolledBack = all.filter((tx) => tx.end === 'rollback');
    // The batch, then the misfit alone.
    expect(rolledBack.length).toBe(2);
    expect(ids.every((id) => rolledBack[0]!.work.some((s) => s.parameters.includes(id)))).toBe(true);
    for (const id of others) {
      expect(deliveriesFor(id)).toHaveLength(1);
      expect((await getPost(t, tenant, id)).state).toBe('PUBLISHED');
    }
    // Left as it was: due, in QUEUE, its part untouched.
    expect(deliveriesFor(misfit)).toHaveLength(0);
    const post = await t.runtime.db.selectFrom('posts').select(['state', 'next_run_at']).where('id', '=', misfit).executeTakeFirstOrThrow();
    expect(post).toEqual({ state: 'QUEUE', next_run_at: at });
    const part = await t.runtime.db
      .selectFrom('post_parts')
      .select(['state', 'attempts', 'claimed_at'])
      .where('post_id', '=', misfit)
      .executeTakeFirstOrThrow();
    expect({ ...part, attempts: Number(part.attempts) }).toEqual({ state: 'ERROR', attempts: 0, claimed_at: null });
  });
});

describe.skipIf(!lanes)("posts due together (engine, the scale-out queue's lanes)", () => {
  it('N posts due at one instant are claimed by one statement and published, each once, with no transaction', async () => {
    const N = 6;
    const at = '2026-11-05T10:00:00.000Z';
    const { tenant, ids } = await duePosts(N, at);
    const { statements, all } = await publishedOnceEach(tenant, ids, at);
    expect(all).toEqual([]);
    const work = alone(statements);
    // Room for 8: one claim takes all 6 and, coming back short, is the last; then the records, one statement for those recorded together.
    expect(work[0]!.sql).toMatch(CLAIM_ALL);
    expect(work.filter((s) => CLAIM_ALL.test(s.sql))).toHaveLength(1);
    const records = work.slice(1);
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((s) => RECORD_ALL.test(s.sql))).toBe(true);
    expect(ids.every((id) => records.some((s) => mentions(s, id)))).toBe(true);
    // At most 4 statements a publish (here at most 2).
    expect(work.length).toBeLessThanOrEqual(1 + N);
  });
});

describe('records asked for together (transitions)', () => {
  // The engine's transitions driven directly, so that the records are asked for in one turn.
  const transitions = () =>
    new PostTransitions({
      db: u.runtime.db,
      clock: uClock,
      notifications: u.services.notifications,
      webhookOutbox: u.services.webhookOutbox,
    });
  const release = (n: number) => ({ id: `remote-batch-${n}`, url: `https://receiver.example/batch/${n}` });

  async function claimAll(tr: PostTransitions, ids: string[]): Promise<Claim[]> {
    const due = await Promise.all(ids.map((id) => tr.claimDue(id, 60_000)));
    return due.map((d) => d!.claim);
  }

  /** Threads (or single posts) of `parts` parts scheduled for `at` in a new workspace of `u`. */
  async function scheduled(count: number, parts: number, at: string) {
    const tenant = await webhookTenant(u, receiver.url);
    uClock.set(new Date(Date.parse(at) - 3600_000).toISOString());
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const value = Array.from({ length: parts }, (_, p) => ({ content: `<p>Post ${i} part ${p}</p>`, delay: 0 }));
      const [created] = await createOk(u, tenant, postBody(tenant.channelId, { date: at }, value));
      ids.push(created!.postId);
    }
    uClock.set(at);
    return { tenant, ids };
  }

  async function recorded<T>(run: () => Promise<T>): Promise<{ result: T; statements: Statement[] }> {
    recording = [];
    const result = await run();
    const statements = recording;
    recording = null;
    return { result, statements };
  }

  it('a part released by lease recovery meanwhile leaves the batch with nothing written; the careful path records it; the others in one transaction', async () => {
    const { tenant, ids } = await scheduled(4, 1, '2026-11-04T10:00:00.000Z');
    const tr = transitions();
    const claims = await claimAll(tr, ids);
    const lapsed = ids[1]!;
    // What lease recovery does for a platform whose writes are idempotent: the part goes back to PENDING for a retry.
    await u.runtime.db
      .updateTable('post_parts')
      .set({ state: 'PENDING', claimed_at: null, lease_until: null })
      .where('post_id', '=', lapsed)
      .execute();
    await u.runtime.db
      .updateTable('posts')
      .set({ state: 'QUEUE', next_run_at: '2026-11-04T10:10:00.000Z' })
      .where('id', '=', lapsed)
      .execute();

    const { result: outcomes, statements } = await recorded(() =>
      Promise.all(claims.map((claim, i) => tr.published(claim, release(i), undefined))),
    );

    expect(outcomes.map((o) => o.recorded)).toEqual([true, true, true, true]);
    for (const id of ids) expect(await getPost(u, tenant, id)).toMatchObject({ state: 'PUBLISHED', error: null });
    const all = transactions(statements);
    expect(all.every((tx) => tx.end === 'commit')).toBe(true);
    if (batchRecords) {
      // One statement for the whole batch (three parts and posts recorded, the lapsed one left out), then the careful path for the lapsed one.
      expect(alone(statements).map((s) => [RECORD_ALL.test(s.sql), ids.every((id) => mentions(s, id))])).toEqual([[true, true]]);
      expect(all).toHaveLength(1);
    } else {
      // One batch (three parts and posts recorded; the lapsed part's statement changed nothing), then the careful path for the lapsed one.
      expect(all).toHaveLength(2);
      expect(all[0]!.work).toHaveLength(3 * 2 + 1);
    }
    expect(all.at(-1)!.work.every((s) => mentions(s, lapsed))).toBe(true);
    const row = await u.runtime.db.selectFrom('posts').select('next_run_at').where('id', '=', lapsed).executeTakeFirstOrThrow();
    expect(row.next_run_at).toBeNull();
  });

  it('posts and comments recorded together: each post and part as its own record would leave it, in one transaction (one statement on PostgreSQL)', async () => {
    const at = '2026-11-06T10:00:00.000Z';
    const tenant = await webhookTenant(u, receiver.url);
    uClock.set('2026-11-06T09:00:00.000Z');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      // Two threads (a comment 5 minutes after the post), two single posts.
      const value =
        i < 2 ? [{ content: `<p>Thread ${i}</p>` }, { content: `<p>Comment ${i}</p>`, delay: 5 }] : [{ content: `<p>Single ${i}</p>` }];
      const [created] = await createOk(u, tenant, postBody(tenant.channelId, { date: at }, value));
      ids.push(created!.postId);
    }
    uClock.set(at);
    const tr = transitions();
    const roots = await claimAll(tr, ids);
    const first = await recorded(() =>
      Promise.all(roots.map((claim, i) => tr.published(claim, release(20 + i), i < 2 ? { delayMinutes: 5 } : undefined))),
    );
    const commentAt = '2026-11-06T10:05:00.000Z';
    expect(first.result).toEqual(ids.map((_, i) => ({ recorded: true, nextRunAt: i < 2 ? commentAt : null, confirmedLate: false })));
    expect(transactions(first.statements).map((tx) => tx.end)).toEqual(batchRecords ? [] : ['commit']);
    expect(alone(first.statements)).toHaveLength(batchRecords ? 1 : 0);
    for (const [i, id] of ids.entries()) {
      const post = await u.runtime.db
        .selectFrom('posts')
        .select(['state', 'release_id', 'release_url', 'published_at', 'next_run_at', 'updated_at', 'error'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(post).toEqual({
        state: 'PUBLISHED',
        release_id: `remote-batch-${20 + i}`,
        release_url: `https://receiver.example/batch/${20 + i}`,
        published_at: at,
        next_run_at: i < 2 ? commentAt : null,
        updated_at: at,
        error: null,
      });
    }

    uClock.set(commentAt);
    const comments = await claimAll(tr, ids.slice(0, 2));
    expect(comments.map((c) => c.idx)).toEqual([1, 1]);
    const second = await recorded(() =>
      Promise.all(comments.map((claim, i) => tr.published(claim, { ...release(30 + i), meta: { n: i } }, undefined))),
    );
    expect(second.result.map((o) => o.recorded)).toEqual([true, true]);
    expect(transactions(second.statements).map((tx) => [tx.end, tx.work.length])).toEqual(batchRecords ? [] : [['commit', 4]]);
    expect(alone(second.statements)).toHaveLength(batchRecords ? 1 : 0);
    for (const [i, id] of ids.slice(0, 2).entries()) {
      // A comment leaves the post's own release and publication time as they were.
      const post = await u.runtime.db
        .selectFrom('posts')
        .select(['state', 'release_id', 'published_at', 'next_run_at', 'updated_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(post).toEqual({
        state: 'PUBLISHED',
        release_id: `remote-batch-${20 + i}`,
        published_at: at,
        next_run_at: null,
        updated_at: commentAt,
      });
      const parts = await u.runtime.db
        .selectFrom('post_parts')
        .select(['idx', 'state', 'release_id', 'release_meta', 'published_at', 'claimed_at', 'lease_until'])
        .where('post_id', '=', id)
        .orderBy('idx')
        .execute();
      expect(parts.map((p) => ({ ...p, idx: Number(p.idx) }))).toEqual([
        {
          idx: 0,
          state: 'PUBLISHED',
          release_id: `remote-batch-${20 + i}`,
          release_meta: null,
          published_at: at,
          claimed_at: null,
          lease_until: null,
        },
        {
          idx: 1,
          state: 'PUBLISHED',
          release_id: `remote-batch-${30 + i}`,
          release_meta: JSON.stringify({ n: i }),
          published_at: commentAt,
          claimed_at: null,
          lease_until: null,
        },
      ]);
    }
  });

  it("a thread deleted while its comment was in flight: the others are recorded, the deleted one by today's rules (a batch in a transaction is rolled back first)", async () => {
    const { tenant, ids } = await scheduled(3, 2, '2026-11-05T10:00:00.000Z');
    const tr = transitions();
    const roots = await claimAll(tr, ids);
    const rootOutcomes = await Promise.all(roots.map((claim, i) => tr.published(claim, release(i), { delayMinutes: 0 })));
    expect(rootOutcomes.map((o) => o.recorded)).toEqual([true, true, true]);
    const comments = await claimAll(tr, ids);
    expect(comments.map((c) => c.idx)).toEqual([1, 1, 1]);
    // A published thread may be deleted while its comment is being sent. Last in the batch's order, so the batch has recorded the others when it meets it.
    const deleted = [...ids].sort().at(-1)!;
    const removed = await u.request({ method: 'DELETE', url: `/public/v1/posts/${deleted}`, key: tenant.key });
    expect(removed.statusCode, removed.body).toBe(200);

    const { result: outcomes, statements } = await recorded(() =>
      Promise.all(comments.map((claim, i) => tr.published(claim, release(10 + i), undefined))),
    );

    expect(outcomes).toEqual(
      ids.map((id) => (id === deleted ? { recorded: false, edited: true } : { recorded: true, nextRunAt: null, confirmedLate: false })),
    );
    const all = transactions(statements);
    if (batchRecords) {
      // One statement records the two others and leaves the deleted one out; the careful path then reads it and writes nothing (then the workspace is told).
      expect(
        alone(statements)
          .filter((s) => RECORD_ALL.test(s.sql))
          .map((s) => ids.every((id) => mentions(s, id))),
      ).toEqual([true]);
      // The careful path's, then the notification's (written with its webhook event in one transaction).
      expect(all.map((tx) => tx.end)).toEqual(['commit', 'commit']);
    } else {
      // The batch and the deleted thread's own try are rolled back: nothing of them is kept.
      expect(all.map((tx) => tx.end).filter((end) => end === 'rollback')).toHaveLength(2);
      expect(all[0]!.end).toBe('rollback');
      expect(ids.every((id) => all[0]!.work.some((s) => mentions(s, id)))).toBe(true);
    }
    for (const id of ids.filter((id) => id !== deleted)) {
      const post = await getPost(u, tenant, id);
      expect(post.value.map((v) => v.state)).toEqual(['PUBLISHED', 'PUBLISHED']);
    }
    // Today's rule: the person's move stands, and the workspace is told what went out.
    const part = await u.runtime.db
      .selectFrom('post_parts')
      .select(['state', 'release_id'])
      .where('post_id', '=', deleted)
      .where('idx', '=', 1)
      .executeTakeFirstOrThrow();
    expect(part).toEqual({ state: 'SENDING', release_id: null });
    const notes = (await u.request({ method: 'GET', url: '/public/v1/notifications', key: tenant.key })).json().notifications as Array<{
      type: string;
      postId: string | null;
    }>;
    expect(notes.filter((n) => n.postId === deleted).map((n) => n.type)).toEqual(['publish_confirmed']);
  });

  it.skipIf(!batchRecords)(
    'a batch statement whose parts recorded would outnumber its posts fails whole: nothing of it is written',
    async () => {
      // The engine sends two steps of one post each alone; the statement's own check is reached here by asking it directly.
      const { ids } = await scheduled(2, 2, '2026-11-07T10:00:00.000Z');
      const [thread, other] = ids as [string, string];
      const claimedAt = '2026-11-07T10:00:00.000Z';
      await u.runtime.db
        .updateTable('post_parts')
        .set({ state: 'SENDING', claimed_at: claimedAt, lease_until: '2026-11-07T10:01:00.000Z' })
        .where('post_id', 'in', ids)
        .execute();
      const before = async () => ({
        posts: await u.runtime.db.selectFrom('posts').selectAll().where('id', 'in', ids).orderBy('id').execute(),
        parts: await u.runtime.db
          .selectFrom('post_parts')
          .selectAll()
          .where('post_id', 'in', ids)
          .orderBy('post_id')
          .orderBy('idx')
          .execute(),
      });
      const rows = await before();
      const version = (id: string) => Number(rows.posts.find((p) => p.id === id)!.version);
      const record = (postId: string, idx: number): repo.PublishedRecord => ({
        post_id: postId,
        idx,
        claimed_at: claimedAt,
        version: version(postId),
        stamp: claimedAt,
        next_run_at: null,
        release_id: `remote-guard-${postId}-${idx}`,
        release_url: null,
        release_meta: null,
      });

      // Three parts (two of one post) and two posts.
      await expect(repo.recordAllPublished(u.runtime.db, [record(other, 0), record(thread, 0), record(thread, 1)])).rejects.toThrow(
        /recorded 3 parts but 2 posts/,
      );
      expect(await before()).toEqual(rows);

      // The same statement with one record a post is written, and says which.
      expect((await repo.recordAllPublished(u.runtime.db, [record(other, 0), record(thread, 0)])).sort()).toEqual([...ids].sort());
      // And with none that fits (claims no longer held), nothing, and no error.
      expect(await repo.recordAllPublished(u.runtime.db, [record(other, 0)])).toEqual([]);
    },
  );
});
