import { sql, type Compilable, type Expression, type ExpressionBuilder, type Kysely } from 'kysely';
import { readsInProcess } from '../db/connection.ts';
import { inJsonList, inSubquery, jsonObject, jsonRecords, skippingLockedRows } from '../db/sql.ts';
import { precompiled, precompiledRead, precompiledWrite } from '../db/precompiled.ts';
import type { ChannelsTable } from '../channels/channels.table.ts';
import type { Database, Db, Executor } from '../db/database.ts';
import type { PostPartsTable, PostsTable, PostState } from './posts.table.ts';

// The publishing engine's statements: claims, records of successes, settlements, and the sweep's reads.

/**
 * True where each statement is a round trip to a database server (PostgreSQL), false where it
 * runs in this process (SQLite): batches are then claimed and recorded by one statement each,
 * whatever their size. The same answer for the database's whole life: callers ask once.
 */
export function statementsAreRoundTrips(db: Db): boolean {
  return !readsInProcess(db);
}

/**
 * The index of the first PENDING part of the post `postId` (null if none): read along the parts'
 * key in index order, stopping at the first, rather than by the index of states, where every
 * PENDING part of every post sits under one key (a planner with stale statistics picks it).
 */
function firstPendingIdx(db: Kysely<Database>, postId: Expression<string>) {
  return db
    .selectFrom('post_parts as fp')
    .select('fp.idx')
    .where('fp.post_id', '=', postId)
    .where('fp.state', '=', 'PENDING')
    .orderBy('fp.idx')
    .limit(1);
}

/** The channel columns a claim reads along with its post (what a publish needs of the channel). */
const CLAIM_CHANNEL_COLUMNS = [
  'workspace_id',
  'provider',
  'name',
  'picture',
  'profile',
  'disabled',
  'disabled_reason',
  'client_group_id',
  'credentials',
  'internal_id',
  'preferred_settings',
] as const;

/**
 * Claims the post `id` if its next step is due at `now`: a post in QUEUE becomes PUBLISHING, a
 * published one with a comment due keeps its state; either way `next_run_at` is cleared, so no
 * other worker can claim it. One statement that also reads the post as claimed, its channel
 * (one subquery, the row as a JSON object) and how many parts it has. Times
 * outside years 0000–9999 (stored as `+01…`, `-…`) never count as due.
 */
export type ClaimedPostRow = PostsTable & {
  /** The channel's columns and its group's name, as built by `jsonObject` (read with `readJsonObject`); null without a channel. */
  channel: unknown;
  part_count: number | string;
  /** The workspace's enabled webhook endpoints: whether the publish's events are written (see `WebhookOutbox`). */
  webhook_endpoints: number | string;
};

/** The channel as a claim reads it. */
export type ClaimedChannelColumns = Pick<ChannelsTable, (typeof CLAIM_CHANNEL_COLUMNS)[number]> & { client_group_name: string | null };

/** What a claim changes on a post: QUEUE becomes PUBLISHING (a published post with a comment due stays PUBLISHED), and it is no longer due. */
function claimedPostChanges(param: (name: 'now') => string) {
  return (eb: ExpressionBuilder<Database, 'posts'>) => ({
    state: eb.case().when('posts.state', '=', 'QUEUE').then(eb.val<PostState>('PUBLISHING')).else(eb.ref('posts.state')).end(),
    next_run_at: null,
    updated_at: param('now'),
  });
}

/** What a claim reads along with the post: its channel (one JSON object), how many parts it has, and whether its workspace has webhooks. */
function claimedPostExtras(db: Kysely<Database>) {
  return (eb: ExpressionBuilder<Database, 'posts'>) => [
    eb
      .selectFrom('channels')
      .leftJoin('client_groups', 'client_groups.id', 'channels.client_group_id')
      .select((cb) =>
        jsonObject(db, [
          ...CLAIM_CHANNEL_COLUMNS.map((column) => [column, cb.ref(`channels.${column}`)] as const),
          ['client_group_name', cb.ref('client_groups.name')],
        ]).as('c'),
      )
      .whereRef('channels.id', '=', 'posts.channel_id')
      .as('channel'),
    eb
      .selectFrom('post_parts')
      .select((pb) => pb.fn.countAll<number | string>().as('n'))
      .whereRef('post_parts.post_id', '=', 'posts.id')
      .as('part_count'),
    eb
      .selectFrom('webhook_endpoints')
      .select((wb) => wb.fn.countAll<number | string>().as('n'))
      .whereRef('webhook_endpoints.workspace_id', '=', 'posts.workspace_id')
      .where('webhook_endpoints.enabled', '=', 1)
      .as('webhook_endpoints'),
  ];
}

const claimDuePostStatement = precompiled<{ id: string; now: string }, ClaimedPostRow>(
  (db, param) =>
    db
      .updateTable('posts')
      .set(claimedPostChanges(param))
      .where('id', '=', param('id'))
      .where('deleted_at', 'is', null)
      .where('state', 'in', ['QUEUE', 'PUBLISHED'])
      .where('next_run_at', '>=', '0')
      .where('next_run_at', '<=', param('now'))
      // A deleted channel publishes nothing.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('channels')
              .select('channels.id')
              .whereRef('channels.id', '=', 'posts.channel_id')
              .where('channels.deleted_at', 'is not', null),
          ),
        ),
      )
      .returningAll()
      .returning(claimedPostExtras(db)) as unknown as Compilable<ClaimedPostRow>,
);

/** Compiled once: every publish runs it (see `precompiled`). */
export async function claimDuePost(db: Executor, id: string, now: string): Promise<ClaimedPostRow | undefined> {
  return (await claimDuePostStatement(db, { id, now }))[0];
}

const claimNextPartStatement = precompiled<{ postId: string; claimedAt: string; leaseUntil: string }, PostPartsTable>((db, param) =>
  db
    .updateTable('post_parts')
    .set((eb) => ({ state: 'SENDING', claimed_at: param('claimedAt'), lease_until: param('leaseUntil'), attempts: eb('attempts', '+', 1) }))
    .where('post_id', '=', param('postId'))
    .where('state', '=', 'PENDING')
    .where('idx', '=', (eb) => firstPendingIdx(db, eb.val(param('postId'))))
    .returningAll(),
);

/** Claims the first PENDING part of a post (the one just claimed with `claimDuePost`), reading it as claimed. */
export async function claimNextPart(
  db: Executor,
  postId: string,
  claim: { claimedAt: string; leaseUntil: string },
): Promise<PostPartsTable | undefined> {
  return (await claimNextPartStatement(db, { postId, ...claim }))[0];
}

/** The platforms whose posts a lane publishes: only these, or every one but these. */
export type PlatformFilter = { only: readonly string[] } | { except: readonly string[] };

/**
 * The lane's due posts whose next step can be claimed, earliest first, at most `limit`: a post
 * in QUEUE with its first part PENDING, or a published post with a comment PENDING. Their ids
 * (`p.id`); a claim selects more of them as it needs.
 */
function duePosts(db: Kysely<Database>, platforms: PlatformFilter, param: (name: 'now' | 'limit') => string) {
  type Due = ExpressionBuilder<Database & { p: PostsTable }, 'p'>;
  // Each check on a candidate is a probe by key (a subquery of one value), which PostgreSQL runs
  // per candidate: the scan below reads posts in (next_run_at, id) order from the index of posts
  // that can come due and stops at `limit`, whatever the number of PENDING parts or channels.
  const provider = (eb: Due) =>
    eb.selectFrom('channels as c').select('c.provider').whereRef('c.id', '=', 'p.channel_id').where('c.deleted_at', 'is', null);
  const lane = (eb: Due) => {
    // A deleted channel publishes nothing: its provider reads as null, in no lane.
    if ('only' in platforms) return eb(provider(eb), 'in', platforms.only);
    if (platforms.except.length > 0) return eb(provider(eb), 'not in', platforms.except);
    return eb(provider(eb), 'is not', null);
  };
  const firstPartState = (eb: Due) =>
    eb.selectFrom('post_parts as pp').select('pp.state').whereRef('pp.post_id', '=', 'p.id').where('pp.idx', '=', 0);
  return (
    db
      .selectFrom('posts as p')
      .select('p.id')
      .where('p.deleted_at', 'is', null)
      .where('p.next_run_at', '>=', '0')
      .where('p.next_run_at', '<=', param('now'))
      // Its next step: the post itself (part 0, PENDING) while in QUEUE, a comment (a PENDING part after the first) once PUBLISHED.
      // A CASE, not an OR of states: SQLite would otherwise read the posts by state and sort them.
      .where((eb) =>
        eb
          .case()
          .when('p.state', '=', 'QUEUE')
          .then(eb(firstPartState(eb), '=', 'PENDING'))
          .when('p.state', '=', 'PUBLISHED')
          .then(eb(firstPendingIdx(db, eb.ref('p.id')), '>', 0))
          .else(eb.lit(false))
          .end(),
      )
      .where(lane)
      .orderBy('p.next_run_at')
      .orderBy('p.id')
      .limit(param('limit') as unknown as number)
  );
}

const anyStepDueStatement = precompiledRead<{ now: string; limit: number }, { id: string }>((db, param) =>
  duePosts(db, { except: [] }, param),
);

/**
 * Whether a claim of any lane would take a post at `now` (see `duePosts`): one read of the index
 * of posts that can come due, stopping at the first. Work that must not delay publishing (the
 * collection of numbers) waits while it is true.
 */
export async function anyStepDue(db: Executor, now: string): Promise<boolean> {
  return (await anyStepDueStatement(db, { now, limit: 1 })).length > 0;
}

/**
 * Claims up to `limit` due posts of the lane's platforms, earliest first (see `duePosts`), in one
 * statement that reads them as claimed, like `claimDuePost` does one post; their parts are
 * claimed next, by `claimFirstParts`, in the same transaction. On PostgreSQL the rows another
 * worker is claiming at that moment are skipped, not waited for (there `claimDueSteps` does
 * both in one statement instead).
 */
function claimDuePostsStatement(platforms: PlatformFilter) {
  return precompiled<{ now: string; limit: number }, ClaimedPostRow>(
    (db, param) =>
      db
        .updateTable('posts')
        .set(claimedPostChanges(param))
        .where((eb) => inSubquery(db, eb.ref('id'), skippingLockedRows(db, duePosts(db, platforms, param), 'p')))
        .returningAll()
        .returning(claimedPostExtras(db)) as unknown as Compilable<ClaimedPostRow>,
  );
}

/** A statement compiled once per lane: each lane's filter is compiled into its own, the first time the lane asks. */
function perLane<Statement>(build: (platforms: PlatformFilter) => Statement): (platforms: PlatformFilter) => Statement {
  const byLane = new Map<string, Statement>();
  return (platforms) => {
    const key = JSON.stringify(platforms);
    let statement = byLane.get(key);
    if (!statement) byLane.set(key, (statement = build(platforms)));
    return statement;
  };
}

const claimDuePostsFor = perLane(claimDuePostsStatement);

/** Claims up to `limit` due posts of a lane (see `claimDuePostsStatement`); one statement, compiled once per lane. */
export async function claimDuePosts(db: Executor, platforms: PlatformFilter, now: string, limit: number): Promise<ClaimedPostRow[]> {
  return claimDuePostsFor(platforms)(db, { now, limit });
}

const claimFirstPartsStatement = precompiled<{ postIds: string; claimedAt: string; leaseUntil: string }, PostPartsTable>((db, param) =>
  db
    .updateTable('post_parts')
    .set((eb) => ({ state: 'SENDING', claimed_at: param('claimedAt'), lease_until: param('leaseUntil'), attempts: eb('attempts', '+', 1) }))
    .where((eb) => inJsonList(db, eb.ref('post_id'), param('postIds')))
    // The first PENDING part (no separate test of the state, so that SQLite looks the parts up by post, not by state).
    .where('idx', '=', (eb) => firstPendingIdx(db, eb.ref('post_parts.post_id')))
    .returningAll(),
);

/** Claims the first PENDING part of each of the posts (just claimed with `claimDuePosts`), reading them as claimed; one statement. */
export function claimFirstParts(
  db: Executor,
  postIds: readonly string[],
  claim: { claimedAt: string; leaseUntil: string },
): Promise<PostPartsTable[]> {
  return claimFirstPartsStatement(db, { postIds: JSON.stringify(postIds), ...claim });
}

/** A step claimed by `claimDueSteps`: the post as claimed, with its part as claimed (a JSON object, read with `readJsonObject`). */
export type ClaimedStepRow = ClaimedPostRow & { part: unknown };

/**
 * `claimDuePosts` and `claimFirstParts` in **one statement** (PostgreSQL only: its
 * data-modifying CTEs run as one atomic statement, one round trip, no transaction to open and
 * commit around it). It locks the lane's due posts, earliest first, skipping rows another
 * transaction holds; claims the first PENDING part of each, only where it is the post's next
 * step (part 0 of a post in QUEUE, a comment of a published one); then claims exactly the posts
 * whose part it claimed. A post whose parts changed meanwhile (an edit committed after the
 * statement began) has no part claimed and is left as it was, due, for the next claim. Nothing
 * in it waits for a lock.
 */
function claimDueStepsStatement(platforms: PlatformFilter) {
  return precompiled<{ now: string; limit: number; claimedAt: string; leaseUntil: string }, ClaimedStepRow>(
    (db, param) =>
      db
        .with('due', () => duePosts(db, platforms, param).select(['p.state', 'p.next_run_at']).forUpdate('p').skipLocked())
        .with('parts', (qc) =>
          qc
            .updateTable('post_parts')
            .from('due')
            .set((eb) => ({
              state: 'SENDING',
              claimed_at: param('claimedAt'),
              lease_until: param('leaseUntil'),
              attempts: eb('post_parts.attempts', '+', 1),
            }))
            .whereRef('post_parts.post_id', '=', 'due.id')
            // Looked up by key, whatever the planner guesses of the batch's size.
            .where((eb) => inSubquery(db, eb.ref('post_parts.post_id'), eb.selectFrom('due').select('due.id')))
            .where('post_parts.idx', '=', (eb) => firstPendingIdx(db, eb.ref('post_parts.post_id')))
            // The post's next step: part 0 while the post is in QUEUE, a comment once it is published.
            .where(sql<boolean>`("due"."state" = 'QUEUE') = ("post_parts"."idx" = 0)`)
            .returningAll('post_parts'),
        )
        .with('claimed', (qc) =>
          qc
            .updateTable('posts')
            .from('parts')
            .set(claimedPostChanges(param))
            .whereRef('posts.id', '=', 'parts.post_id')
            .where((eb) => inSubquery(db, eb.ref('posts.id'), eb.selectFrom('parts').select('parts.post_id')))
            .returningAll('posts')
            .returning(claimedPostExtras(db)),
        )
        .selectFrom('claimed')
        .innerJoin('parts', 'parts.post_id', 'claimed.id')
        .innerJoin('due', 'due.id', 'claimed.id')
        .selectAll('claimed')
        .select(sql<unknown>`to_json("parts")`.as('part'))
        .orderBy('due.next_run_at')
        .orderBy('due.id') as unknown as Compilable<ClaimedStepRow>,
  );
}

const claimDueStepsFor = perLane(claimDueStepsStatement);

/**
 * Claims the next step of up to `limit` due posts of a lane, earliest first, by one statement
 * (PostgreSQL; see `claimDueStepsStatement`): each post and its part as claimed at `claimedAt`.
 */
export function claimDueSteps(
  db: Executor,
  platforms: PlatformFilter,
  claim: { now: string; claimedAt: string; leaseUntil: string },
  limit: number,
): Promise<ClaimedStepRow[]> {
  return claimDueStepsFor(platforms)(db, { ...claim, limit });
}

/** What a platform answered, as stored on the part and the post. */
export type ReleaseColumns = { releaseId: string; releaseUrl: string | null; releaseMeta: string | null };

/**
 * A part's columns once published with the platform's answer at `stamp`, whether the values are
 * the values themselves, a statement's parameters, or another table's columns.
 */
export function publishedPartColumns<Id, Text>(answer: { releaseId: Id; releaseUrl: Text; releaseMeta: Text; stamp: Id }) {
  return {
    state: 'PUBLISHED' as const,
    claimed_at: null,
    lease_until: null,
    release_id: answer.releaseId,
    release_url: answer.releaseUrl,
    release_meta: answer.releaseMeta,
    published_at: answer.stamp,
    error: null,
  };
}

const recordPartPublishedStatement = precompiledWrite<{ postId: string; idx: number; claimedAt: string; stamp: string } & ReleaseColumns>(
  (db, param) =>
    db
      .updateTable('post_parts')
      .set(
        publishedPartColumns({
          releaseId: param('releaseId'),
          releaseUrl: param('releaseUrl'),
          releaseMeta: param('releaseMeta'),
          stamp: param('stamp'),
        }),
      )
      .where('post_id', '=', param('postId'))
      .where('idx', '=', param('idx') as unknown as number)
      .where('state', '=', 'SENDING')
      .where('claimed_at', '=', param('claimedAt')),
);

/** Records part `idx` as published if it is still SENDING under the claim made at `claimedAt`; the number of rows changed (0 or 1). */
export function recordPartPublished(
  db: Executor,
  part: { postId: string; idx: number; claimedAt: string; stamp: string } & ReleaseColumns,
): Promise<number> {
  return recordPartPublishedStatement(db, part);
}

/** A post's columns once one of its comments (a part after the first) is published: when its next step is due. */
function commentPublishedColumns<Stamp, Next>(answer: { stamp: Stamp; nextRunAt: Next }) {
  return { next_run_at: answer.nextRunAt, updated_at: answer.stamp };
}

/** A post's columns once its first part (the post itself) is published, with the platform's answer. */
function postPublishedColumns<Id, Text, Stamp, Next>(answer: { releaseId: Id; releaseUrl: Text; stamp: Stamp; nextRunAt: Next }) {
  return {
    state: 'PUBLISHED' as const,
    release_id: answer.releaseId,
    release_url: answer.releaseUrl,
    published_at: answer.stamp,
    error: null,
    error_kind: null,
    ...commentPublishedColumns(answer),
  };
}

const recordPostPublishedStatement = precompiledWrite<
  { id: string; version: number; stamp: string; nextRunAt: string | null } & ReleaseColumns
>((db, param) =>
  db
    .updateTable('posts')
    .set(
      postPublishedColumns({
        releaseId: param('releaseId'),
        releaseUrl: param('releaseUrl'),
        stamp: param('stamp'),
        nextRunAt: param('nextRunAt'),
      }),
    )
    .where('id', '=', param('id'))
    .where('deleted_at', 'is', null)
    .where('version', '=', param('version') as unknown as number),
);

const recordCommentPublishedStatement = precompiledWrite<{ id: string; version: number; stamp: string; nextRunAt: string | null }>(
  (db, param) =>
    db
      .updateTable('posts')
      .set(commentPublishedColumns({ stamp: param('stamp'), nextRunAt: param('nextRunAt') }))
      .where('id', '=', param('id'))
      .where('deleted_at', 'is', null)
      .where('version', '=', param('version') as unknown as number),
);

/**
 * Records on a live post at `version` that its part `idx` was published (the post itself for
 * part 0, a comment otherwise) and when its next step is due; the number of rows changed (0 or 1).
 */
export function recordPostPublished(
  db: Executor,
  post: { id: string; idx: number; version: number; stamp: string; nextRunAt: string | null } & ReleaseColumns,
): Promise<number> {
  const { id, version, stamp, nextRunAt } = post;
  return post.idx === 0
    ? recordPostPublishedStatement(db, {
        id,
        version,
        stamp,
        nextRunAt,
        releaseId: post.releaseId,
        releaseUrl: post.releaseUrl,
        releaseMeta: post.releaseMeta,
      })
    : recordCommentPublishedStatement(db, { id, version, stamp, nextRunAt });
}

/** One success of a batch to record (see `recordAllPublished`). */
export type PublishedRecord = {
  post_id: string;
  idx: number;
  claimed_at: string;
  version: number;
  stamp: string;
  next_run_at: string | null;
  release_id: string;
  release_url: string | null;
  release_meta: string | null;
};

const PUBLISHED_RECORD_COLUMNS = {
  post_id: 'text',
  idx: 'integer',
  claimed_at: 'text',
  version: 'integer',
  stamp: 'text',
  next_run_at: 'text',
  release_id: 'text',
  release_url: 'text',
  release_meta: 'text',
} as const;

/**
 * `recordPartPublished` and `recordPostPublished` for a batch, by **one statement** (PostgreSQL
 * only: its data-modifying CTEs run as one atomic statement, one round trip, no transaction to
 * open and commit around it). It first locks the live posts at their records' versions and
 * their parts still SENDING under their claims, skipping rows another transaction holds, then
 * records exactly those parts and posts: a record whose post or part changed, or is locked by
 * someone else at that moment, is left out, written nowhere, and goes the careful way. Nothing
 * in it waits for a lock, so it cannot deadlock with a person's edit. The posts recorded (one
 * row each; a single row with a null id when none was), failing whole, with nothing written,
 * should the parts recorded ever outnumber the posts. At most one record per post.
 */
const recordAllPublishedStatement = precompiled<{ records: string }, { ok: number; id: string | null }>((db, param) =>
  db
    .with('r', (qc) => qc.selectFrom(jsonRecords<PublishedRecord, 'j'>(db, param('records'), PUBLISHED_RECORD_COLUMNS, 'j')).selectAll())
    .with('held_posts', (qc) =>
      qc
        .selectFrom('posts')
        .innerJoin('r', 'r.post_id', 'posts.id')
        .select('posts.id')
        // Looked up by key, whatever the planner guesses of the list's length or the tables' sizes.
        .where((eb) => inSubquery(db, eb.ref('posts.id'), eb.selectFrom('r').select('r.post_id')))
        .where('posts.deleted_at', 'is', null)
        .whereRef('posts.version', '=', 'r.version')
        .forUpdate('posts')
        .skipLocked(),
    )
    .with('held_parts', (qc) =>
      qc
        .selectFrom('post_parts')
        .innerJoin('r', (join) => join.onRef('r.post_id', '=', 'post_parts.post_id').onRef('r.idx', '=', 'post_parts.idx'))
        .innerJoin('held_posts', 'held_posts.id', 'post_parts.post_id')
        .select(['post_parts.post_id', 'post_parts.idx'])
        .where((eb) => inSubquery(db, eb.ref('post_parts.post_id'), eb.selectFrom('held_posts').select('held_posts.id')))
        .where('post_parts.state', '=', 'SENDING')
        .whereRef('post_parts.claimed_at', '=', 'r.claimed_at')
        .forUpdate('post_parts')
        .skipLocked(),
    )
    .with('parts', (qc) =>
      qc
        .updateTable('post_parts')
        .from(['r', 'held_parts'])
        .set((eb) =>
          publishedPartColumns({
            releaseId: eb.ref('r.release_id'),
            releaseUrl: eb.ref('r.release_url'),
            releaseMeta: eb.ref('r.release_meta'),
            stamp: eb.ref('r.stamp'),
          }),
        )
        .whereRef('post_parts.post_id', '=', 'r.post_id')
        .whereRef('post_parts.idx', '=', 'r.idx')
        .whereRef('held_parts.post_id', '=', 'r.post_id')
        .whereRef('held_parts.idx', '=', 'r.idx')
        .returning('post_parts.post_id'),
    )
    .with('done', (qc) =>
      qc
        .updateTable('posts')
        .from(['r', 'parts'])
        .set((eb) => {
          // Part 0 is the post itself (every column of the lone record); a comment sets only its own and keeps the others.
          const first = <T>(then: Expression<T>, otherwise: Expression<T>) =>
            eb.case().when('r.idx', '=', 0).then(then).else(otherwise).end();
          const post = postPublishedColumns({
            releaseId: eb.ref('r.release_id'),
            releaseUrl: eb.ref('r.release_url'),
            stamp: eb.ref('r.stamp'),
            nextRunAt: eb.ref('r.next_run_at'),
          });
          return {
            state: first(eb.val(post.state as PostState), eb.ref('posts.state')),
            release_id: first(post.release_id, eb.ref('posts.release_id')),
            release_url: first(post.release_url, eb.ref('posts.release_url')),
            published_at: first(post.published_at, eb.ref('posts.published_at')),
            error: first(eb.lit(post.error), eb.ref('posts.error')),
            error_kind: first(eb.lit(post.error_kind), eb.ref('posts.error_kind')),
            ...commentPublishedColumns({ stamp: post.updated_at, nextRunAt: post.next_run_at }),
          } satisfies Record<keyof typeof post, unknown>;
        })
        .whereRef('posts.id', '=', 'r.post_id')
        .whereRef('parts.post_id', '=', 'r.post_id')
        .returning('posts.id'),
    )
    // The locks taken first make a recorded part's post recorded too. Should the counts still
    // differ, the cast fails and the whole statement with it: nothing of the batch is written.
    // (The failing value depends on the rows, so that PostgreSQL cannot fold it while planning.)
    .with('checked', (qc) =>
      qc
        .selectFrom([sql`(select count(*) as "n" from "parts")`.as('p'), sql`(select count(*) as "n" from "done")`.as('d')])
        .select(
          sql<number>`case when "p"."n" = "d"."n" then 0 else cast('recorded ' || "p"."n" || ' parts but ' || "d"."n" || ' posts' as integer) end`.as(
            'ok',
          ),
        ),
    )
    // From the check, and its value read, so that it is evaluated even when no post was recorded
    // (a column nobody reads is never computed).
    .selectFrom('checked')
    .leftJoin('done', (join) => join.on(sql<boolean>`true`))
    .select(['checked.ok', 'done.id']),
);

/**
 * Records a batch of successes by one statement, on PostgreSQL (see `recordAllPublishedStatement`):
 * the ids of the posts recorded, each with its part; the others are left as they were.
 */
export async function recordAllPublished(db: Executor, records: readonly PublishedRecord[]): Promise<string[]> {
  const rows = await recordAllPublishedStatement(db, { records: JSON.stringify(records) });
  // One row with no id when no post was recorded (the check's own row).
  return rows.flatMap((row) => (row.id === null ? [] : [row.id]));
}

export type DueCursor = { nextRunAt: string; id: string };

/**
 * A page of posts whose next step is due by `until`, after `cursor`, in (next_run_at, id) order:
 * the engine's sweep re-enqueues them (harmless when already queued). Instants are compared as
 * text, which orders ISO 8601 UTC strings of years 0000–9999; a stored extended-year instant
 * (`+010000-…`, `-000001-…`) starts with a sign, sorts before them all, and is left out.
 */
export function listDuePosts(db: Executor, until: string, cursor: DueCursor | null, limit: number) {
  let query = pendingPosts(db).select(['posts.id', 'posts.next_run_at', 'channels.provider']).where('posts.next_run_at', '<=', until);
  if (cursor) {
    query = query.where((eb) =>
      eb.or([
        eb('posts.next_run_at', '>', cursor.nextRunAt),
        eb.and([eb('posts.next_run_at', '=', cursor.nextRunAt), eb('posts.id', '>', cursor.id)]),
      ]),
    );
  }
  return query.orderBy('posts.next_run_at').orderBy('posts.id').limit(limit).execute();
}

/** When the first post with a next step due after `after` is due (null when none is); as `listDuePosts`, extended-year instants are left out. */
export async function firstDueAfter(db: Executor, after: string): Promise<string | null> {
  const row = await pendingPosts(db)
    .select('posts.next_run_at')
    .where('posts.next_run_at', '>', after)
    .orderBy('posts.next_run_at')
    .limit(1)
    .executeTakeFirst();
  return row?.next_run_at ?? null;
}

/** Posts with a next step to take, on a channel that is not deleted (a deleted channel publishes nothing). */
function pendingPosts(db: Executor) {
  return db
    .selectFrom('posts')
    .innerJoin('channels', 'channels.id', 'posts.channel_id')
    .where('posts.state', 'in', ['QUEUE', 'PUBLISHED', 'PUBLISHING'])
    .where('posts.next_run_at', 'not like', '+%')
    .where('posts.next_run_at', 'not like', '-%')
    .where('posts.deleted_at', 'is', null)
    .where('channels.deleted_at', 'is', null);
}

/**
 * Posts in QUEUE, due by `now`, whose channel was deleted (a deletion that raced their
 * scheduling): no claim takes them, and the sweep moves them to draft. At most `limit`, earliest first.
 */
export function listDueOnDeletedChannels(db: Executor, now: string, limit: number) {
  return db
    .selectFrom('posts')
    .innerJoin('channels', 'channels.id', 'posts.channel_id')
    .selectAll('posts')
    .where('posts.state', '=', 'QUEUE')
    .where('posts.deleted_at', 'is', null)
    .where('posts.next_run_at', '>=', '0')
    .where('posts.next_run_at', '<=', now)
    .where('channels.deleted_at', 'is not', null)
    .orderBy('posts.next_run_at')
    .orderBy('posts.id')
    .limit(limit)
    .execute();
}

/** Where a batch of stale parts starts: after this part, in (post_id, idx) order. */
export type StalePartPosition = { postId: string; idx: number };

/**
 * Parts a worker claimed and never settled: with `expired`, those whose lease ended before
 * `leaseEndedBy` (claims made before leases were recorded count from `claimedBefore`); without,
 * all of them. At most `page.limit`, after `page.after`.
 */
export function listStaleSendingParts(
  db: Executor,
  expired: { leaseEndedBy: string; claimedBefore: string } | null,
  page: { after: StalePartPosition | null; limit: number },
) {
  let query = db.selectFrom('post_parts').select(['post_id', 'idx', 'claimed_at']).where('state', '=', 'SENDING');
  if (expired) {
    query = query.where((eb) =>
      eb.or([
        eb('lease_until', '<', expired.leaseEndedBy),
        eb.and([eb('lease_until', 'is', null), eb('claimed_at', '<', expired.claimedBefore)]),
      ]),
    );
  }
  const after = page.after;
  if (after)
    query = query.where((eb) =>
      eb.or([eb('post_id', '>', after.postId), eb.and([eb('post_id', '=', after.postId), eb('idx', '>', after.idx)])]),
    );
  return query.orderBy('post_id').orderBy('idx').limit(page.limit).execute();
}

/** Marks the parts after `idx` that never went out as failed, with `error`. */
export function failPendingPartsAfter(db: Executor, postId: string, idx: number, error: string) {
  return db
    .updateTable('post_parts')
    .set({ state: 'ERROR', error })
    .where('post_id', '=', postId)
    .where('idx', '>', idx)
    .where('state', '=', 'PENDING')
    .execute();
}

/** Puts back the parts after `idx` that were failed only because `idx` failed (never attempted). */
export function restorePartsAfter(db: Executor, postId: string, idx: number) {
  return db
    .updateTable('post_parts')
    .set({ state: 'PENDING', error: null })
    .where('post_id', '=', postId)
    .where('idx', '>', idx)
    .where('state', '=', 'ERROR')
    .where('attempts', '=', 0)
    .execute();
}
