import type { ChannelsTable } from '../channels/channels.table.ts';
import type { Transaction } from 'kysely';
import type { Database, Db, Executor } from '../db/database.ts';
import { readJsonObject } from '../db/sql.ts';
import { GroupCommit } from '../db/group-commit.ts';
import { lockWorkspace } from '../db/sql.ts';
import { slotInstants, type WeeklySchedule } from '../schedules/slots.ts';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { EventRecord, WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import * as engine from './post-claims.repository.ts';
import * as repo from './posts.repository.ts';
import type { ErrorKind, PostPartsTable, PostsTable, PostState } from './posts.table.ts';
import * as approvals from '../approvals/approvals.repository.ts';
import { APPROVAL_ROLES, type ApprovalDecision, type ApprovalRole } from '../approvals/approvals.table.ts';
import type { Role } from '../auth/scopes.ts';
import { findUserById } from '../users/users.repository.ts';

type PostRow = PostsTable;
type PartRow = PostPartsTable;

/** States from which a person may edit a post (PATCH or PUT /posts/:id, or POST /posts with its group). */
const EDITABLE: readonly PostState[] = ['DRAFT', 'QUEUE', 'ERROR', 'AWAITING_APPROVAL'];

/** Who writes or schedules a post: the user and their role in its workspace, which decide whether it waits for approval. */
export type Author = { userId: string; role: Role };

/** What a scheduled post becomes: the queue, or a wait for an approver. */
export type ScheduledState = 'QUEUE' | 'AWAITING_APPROVAL';

/** The roles that may approve in a workspace whose setting asks approval of `roles`: owners, admins, and editors unless editors' own posts need approval. */
export function approverRoles(roles: readonly ApprovalRole[]): Role[] {
  return (['owner', 'admin', 'editor'] as const).filter((role) => !(roles as readonly string[]).includes(role));
}

/** A stored setting's roles, in their canonical order; anything unknown is left out. */
export function readApprovalRoles(json: string | undefined): ApprovalRole[] {
  const stored = readJsonArray(json);
  return APPROVAL_ROLES.filter((role) => stored.includes(role));
}

function readJsonArray(json: string | undefined): unknown[] {
  if (json === undefined) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** A part a worker holds: what it read and claimed, and the token its settlement must match. */
export type Claim = {
  postId: string;
  workspaceId: string;
  channelId: string;
  idx: number;
  /** The post's version the claim was made on (and read at): a person's move since then changes it. */
  version: number;
  /** The claim's token (the part's `claimed_at`). */
  claimedAt: string;
  attempts: number;
  /**
   * Whether the post's workspace had an enabled webhook endpoint when it was claimed: read by the
   * claim itself, so a publish in a workspace without webhooks writes no event and reads nothing
   * more. An endpoint created while the publish is in flight receives the post's later events.
   */
  webhooks: boolean;
};

/** The channel of a claimed post, as stored (its credentials still sealed). */
export type ClaimedChannel = Omit<ChannelsTable, 'created_at' | 'updated_at' | 'deleted_at' | 'renewing_until' | 'renewing_by'> & {
  client_group_name: string | null;
};

/** A claimed step with what publishing it needs: the post and part as claimed, the channel (null if it is gone), how many parts the post has. */
export type DueClaim = { claim: Claim; post: PostRow; part: PartRow; channel: ClaimedChannel | null; partCount: number };

/** Whether a claimed post's first PENDING part is its next step: part 0 of a post claimed for publishing, a comment of a published one. */
function claimable(claimed: engine.ClaimedPostRow, part: PartRow): boolean {
  return (claimed.state === 'PUBLISHING') === (Number(part.idx) === 0);
}

/** A claimed post and part as the worker holds them, under the claim made at `stamp`. */
function dueClaim(claimed: engine.ClaimedPostRow, part: PartRow, stamp: string): DueClaim {
  const { channel: channelColumns, part_count: partCount, webhook_endpoints: endpoints, ...row } = claimed;
  // As claimed: PUBLISHING for the post itself, still PUBLISHED for a comment.
  const post: PostRow = row;
  const columns = readJsonObject<engine.ClaimedChannelColumns>(channelColumns);
  const channel: ClaimedChannel | null = columns ? { id: post.channel_id, ...columns, disabled: Number(columns.disabled) } : null;
  const claim: Claim = {
    postId: post.id,
    workspaceId: post.workspace_id,
    channelId: post.channel_id,
    idx: Number(part.idx),
    version: Number(post.version),
    claimedAt: stamp,
    attempts: Number(part.attempts),
    webhooks: Number(endpoints) > 0,
  };
  return { claim, post, part, channel, partCount: Number(partCount) };
}

/** What recording a success writes: the claim it must still hold, and the platform's answer, at the request's `now`. */
function publishedRecord({ claim, release, following, now }: RecordRequest): engine.PublishedRecord {
  return {
    post_id: claim.postId,
    idx: claim.idx,
    claimed_at: claim.claimedAt,
    version: claim.version,
    stamp: now.toISOString(),
    // The next comment is due `delay` minutes after this one.
    next_run_at: following ? new Date(now.getTime() + following.delayMinutes * 60_000).toISOString() : null,
    release_id: release.id,
    release_url: release.url ?? null,
    release_meta: release.meta ? JSON.stringify(release.meta) : null,
  };
}

/** Rolls back a claim or record transaction that found something other than what the engine may move. */
class NothingToClaim extends Error {}

/** What a transaction rolled back by `NothingToClaim` answers: null. */
function nullIfNothing(error: unknown): null {
  if (error instanceof NothingToClaim) return null;
  throw error;
}

/** Claims and records asked for together run in one transaction, at most this many (see `GroupCommit`). */
const MAX_BATCH = 64;
/** Claim (and record) transactions at a time where each statement is a round trip (PostgreSQL; SQLite runs one). */
const PARALLEL_BATCHES_REMOTE = 4;

/** A claim to make: of post `postId`, at `stamp`, its lease until `leaseUntil`. */
type ClaimRequest = { postId: string; stamp: string; leaseUntil: string };

/** What a platform answered for a published part. */
export type Release = { id: string; url?: string | undefined; meta?: Record<string, unknown> | undefined };

/** A platform's success to record under `claim`, at `now`. */
type RecordRequest = { claim: Claim; release: Release; following: { delayMinutes: number } | undefined; now: Date };

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The event of a post's change. */
function postEvent(post: Pick<PostRow, 'id' | 'workspace_id'>, type: EventRecord['type'], details?: Record<string, unknown>): EventRecord {
  return { workspaceId: post.workspace_id, type, subjectId: post.id, ...(details && { details }) };
}

/** The event of a part the platform published: the post itself, or a comment under it. */
function publishedEvent(claim: Claim, release: Release): EventRecord {
  return {
    workspaceId: claim.workspaceId,
    type: claim.idx === 0 ? 'post.published' : 'post.comment.published',
    subjectId: claim.postId,
    details: { part: claim.idx, releaseId: release.id, releaseUrl: release.url ?? null },
  };
}

/** The outcome of recording a platform's success. */
export type Published =
  /** Recorded; `nextRunAt` is when the next comment is due (null: the thread is complete). */
  | { recorded: true; nextRunAt: string | null; confirmedLate: boolean }
  /** Nothing to record: already recorded, or the post was edited after the claim (`edited`). */
  | { recorded: false; edited: boolean };

/** The answer to a person changing a post that is being published (or already is). */
export function refusal(state: PostState, postId: string, action: string): AppError {
  if (state === 'PUBLISHING') {
    return new ConflictError(
      `Post ${postId} is being published right now; it cannot be ${action}. Read it again once it is PUBLISHED or ERROR.`,
      {
        code: 'post_publishing',
      },
    );
  }
  const names: Partial<Record<PostState, string>> = {
    PUBLISHED: 'already published',
    AWAITING_APPROVAL: 'awaiting approval (an approver approves or rejects it: POST /posts/:id/approve or /reject)',
    ERROR: 'in error (edit it with PATCH /posts/:id, then schedule it)',
  };
  return new BadRequestError(`Post ${postId} cannot be ${action}: it is ${names[state] ?? state}.`, { code: 'invalid_transition' });
}

/** How far ahead the queue looks for a free slot. */
export const QUEUE_HORIZON_DAYS = 366;
/** Slots whose holders are read per statement while looking for a free one. */
const SLOTS_PER_READ = 200;

/** Scheduled posts a channel deletion reads at a time to move them to draft. */
const UNSCHEDULE_PAGE = 200;
/**
 * Posts a purge deletes per statement, each statement its own transaction: on SQLite the write
 * lock is held for a few milliseconds at a time (see docs/performance.md), so the server's writes
 * go on between pages whatever the channel's size.
 */
const PURGE_PAGE = 500;

/** The answer when a schedule has no free slot within the horizon (none at all, or every one taken). */
export function noFreeSlot(channelIds: readonly string[]): ConflictError {
  return new ConflictError(
    `No free slot within ${QUEUE_HORIZON_DAYS} days for channel${channelIds.length > 1 ? 's' : ''} ${channelIds.join(', ')}: add slots to the schedule (PUT /public/v1/integrations/{id}/schedule) or give the post a date.`,
    { code: 'no_free_slot' },
  );
}

/** What a person writes of a post for one channel (POST /posts); the rest of the row is this module's to set. */
export type Composition = {
  post: Pick<PostRow, 'workspace_id' | 'group_id' | 'channel_id' | 'publish_at' | 'settings' | 'tags' | 'short_link'> & {
    /** `QUEUE` asks for scheduling: the post enters the state `scheduledState` decides for its author. */
    state: 'DRAFT' | 'QUEUE';
  };
  parts: Array<Pick<PartRow, 'content' | 'images' | 'delay_minutes'>>;
  /** The media files the parts attach. */
  mediaIds: string[];
  /** Who writes it: decides, with the workspace's approval setting, whether a scheduled post waits for approval. */
  author: Author;
  /** A new post written for an occurrence of a recurring series: the series and the rule's instant. */
  series?: { id: string; occurrenceAt: string };
};

/** One element of a thread as it will be stored: its content already sanitised HTML; the first part's delay is 0 whatever it says. */
export type ThreadPart = { content: string; image: Array<{ path: string }>; delay?: number | undefined };

/** What a post for one channel is written from: a request (POST /posts), an edit, or a series' template. */
export type ChannelPost = {
  workspaceId: string;
  groupId: string;
  channelId: string;
  /** The channel's platform, recorded in the settings as `__type`. */
  provider: string;
  state: 'DRAFT' | 'QUEUE';
  publishAt: string;
  settings: Record<string, unknown> | undefined;
  tags: readonly string[];
  shortLink: boolean;
  thread: readonly ThreadPart[];
  /** The library's files by path; an image whose file has left the library since (a series' template) keeps its path with an empty id. */
  media: ReadonlyMap<string, { id: string }>;
  author: Author;
  series?: Composition['series'];
};

/** Where a new post asked to be scheduled goes, by its author's role and the workspace's approval setting (see `scheduledState`). */
function stateFor(roles: readonly ApprovalRole[], author: Author): ScheduledState {
  return (roles as readonly string[]).includes(author.role) ? 'AWAITING_APPROVAL' : 'QUEUE';
}

/** The row of a new post for a composition, in `state`, written at `stamp`. */
function newPostRow(id: string, { post, series }: Pick<Composition, 'post' | 'series'>, state: PostState, stamp: string): PostRow {
  return {
    id,
    ...post,
    state,
    series_id: series?.id ?? null,
    occurrence_at: series?.occurrenceAt ?? null,
    series_exception: null,
    release_id: null,
    release_url: null,
    error: null,
    error_kind: null,
    next_run_at: state === 'QUEUE' ? post.publish_at : null,
    published_at: null,
    created_at: stamp,
    updated_at: stamp,
    deleted_at: null,
    version: 0,
  };
}

/** A post's parts as written: each PENDING, never tried. */
function newParts(postId: string, parts: Composition['parts']): PartRow[] {
  return parts.map((part, idx) => ({
    post_id: postId,
    idx,
    ...part,
    state: 'PENDING',
    attempts: 0,
    claimed_at: null,
    lease_until: null,
    release_id: null,
    release_url: null,
    release_meta: null,
    error: null,
    published_at: null,
  }));
}

/** The one way a post's columns, parts and media links are built for `PostTransitions.write`. */
export function composition(p: ChannelPost): Composition {
  const mediaId = (path: string) => p.media.get(path)?.id;
  return {
    post: {
      workspace_id: p.workspaceId,
      group_id: p.groupId,
      channel_id: p.channelId,
      state: p.state,
      publish_at: p.publishAt,
      settings: JSON.stringify({ ...p.settings, __type: p.provider }),
      tags: JSON.stringify([...new Set(p.tags)]),
      short_link: p.shortLink ? 1 : 0,
    },
    parts: p.thread.map((part, idx) => ({
      content: part.content,
      images: JSON.stringify(part.image.map((image) => ({ id: mediaId(image.path) ?? '', path: image.path }))),
      delay_minutes: idx === 0 ? 0 : (part.delay ?? 0),
    })),
    mediaIds: p.thread.flatMap((part) => part.image.flatMap((image) => mediaId(image.path) ?? [])),
    author: p.author,
    ...(p.series && { series: p.series }),
  };
}

/**
 * Every write to posts and their parts, built once per process and shared by the posts service,
 * the channels service and the publishing engine (the database's foreign keys aside: deleting a
 * channel's row for good, after `purgeChannel`, takes any post left over with it). People's moves
 * (create, edit, draft ↔ queue, release id, delete; a channel's deletion and purge) and the
 * engine's (claim, renew, settle as published, release for a retry, fail, recover) are
 * conditional updates here, each checking the state it starts from, so the two never overwrite
 * each other:
 *
 * - a person's move counts in `version`; the engine's claim is its read (one conditional update
 *   that returns the post as claimed), so no edit can land between what it read and what it
 *   claimed, and a settlement applies only at the claimed version;
 * - once claimed (PUBLISHING), a post refuses edits, status changes, a release id and deletion with 409 `post_publishing`;
 * - a settlement applies only under the claim it belongs to, except a platform's success, which
 *   is the truth whatever happened meanwhile (a lease that ran out, a failure recorded as unconfirmed).
 */
export class PostTransitions {
  /** The engine's claims, run together when asked for together. */
  readonly #claims: GroupCommit<ClaimRequest, DueClaim | null>;
  /** The engine's records of successes (the usual case of `published`), run together when asked for together. */
  readonly #records: GroupCommit<RecordRequest, Published | null>;

  /** Whether a batch is claimed and recorded by one statement (see `engine.statementsAreRoundTrips`). */
  readonly #roundTrips: boolean;

  constructor(private readonly deps: { db: Db; clock: Clock; notifications: NotificationsService; webhookOutbox: WebhookOutbox }) {
    this.#roundTrips = engine.statementsAreRoundTrips(deps.db);
    const batches = { maxBatch: MAX_BATCH, parallel: this.#roundTrips ? PARALLEL_BATCHES_REMOTE : 1 };
    this.#claims = new GroupCommit(
      deps.db,
      {
        inBatch: (trx, request) => this.#claimIn(trx, request),
        alone: (request) => this.#claimAlone(request),
        order: (a, b) => compare(a.postId, b.postId),
      },
      batches,
    );
    this.#records = new GroupCommit(
      deps.db,
      {
        inBatch: (trx, request) => this.#recordIn(trx, request),
        // Where each statement is a round trip, a batch (a lone record too) is recorded by one statement, whatever its size.
        ...(this.#roundTrips ? { allAtOnce: (db: Db, requests: RecordRequest[]) => this.#recordAll(db, requests) } : {}),
        alone: (request) => this.#recordAlone(request),
        order: (a, b) => compare(a.claim.postId, b.claim.postId) || a.claim.idx - b.claim.idx,
      },
      batches,
    );
  }

  // People's moves.

  /**
   * Writes a composition for one channel inside the request's transaction, at `stamp`: a new
   * post, or with `previous` an edit of that post (refused unless it is editable) whose parts are
   * replaced. Its parts start PENDING. With `expected`, the edit applies only at that version
   * (an edit merged with what was read of the post). A post asked to be scheduled enters the state
   * `scheduledState` decides (the queue, or a wait for approval, which is then asked for). The
   * post's id and the state it entered.
   */
  async write(
    trx: Executor,
    previous: PostRow | undefined,
    { post, parts, mediaIds, author, series }: Composition,
    stamp: string,
    expected?: { version: number },
  ): Promise<{ id: string; state: PostState }> {
    const id = previous?.id ?? newId();
    const state: PostState = post.state === 'QUEUE' ? await this.scheduledState(trx, post.workspace_id, author, previous) : post.state;
    const row: PostRow = {
      ...newPostRow(id, { post, series }, state, stamp),
      // An occurrence a person edits stays in its series, marked so that an edit of the series leaves it alone.
      series_id: previous ? previous.series_id : (series?.id ?? null),
      occurrence_at: previous ? previous.occurrence_at : (series?.occurrenceAt ?? null),
      series_exception: previous ? (previous.series_id ? 'edited' : null) : null,
      created_at: previous?.created_at ?? stamp,
    };
    if (previous) {
      const { id: _id, created_at: _created, version: _version, ...changes } = row;
      await this.#edit(trx, previous, changes, expected?.version);
      await repo.deleteParts(trx, id);
    } else {
      await repo.insertPost(trx, row);
    }
    await repo.insertParts(trx, newParts(id, parts));
    await repo.replaceMediaLinks(trx, id, mediaIds);
    const type = previous ? 'post.updated' : state === 'QUEUE' ? 'post.scheduled' : 'post.created';
    await this.deps.webhookOutbox.record(trx, [postEvent({ id, workspace_id: post.workspace_id }, type)]);
    if (state === 'AWAITING_APPROVAL' && previous?.state !== 'AWAITING_APPROVAL')
      await this.#requestApproval(trx, { id, workspace_id: post.workspace_id, publish_at: post.publish_at }, author, stamp);
    return { id, state };
  }

  /**
   * Writes new posts (a bulk import's batch) inside the request's transaction, at `stamp`, each as
   * `write` writes a new one (the same columns, parts, media links, events, and approval asked
   * for where `scheduledState` says so), with one statement per table for all of them rather than
   * a few per post. The posts' ids and the states they entered, in order.
   */
  async writeMany(trx: Executor, compositions: readonly Composition[], stamp: string): Promise<Array<{ id: string; state: PostState }>> {
    const roles = new Map<string, readonly ApprovalRole[]>();
    const rows: PostRow[] = [];
    const parts: PartRow[] = [];
    const links: Array<{ post_id: string; media_id: string }> = [];
    for (const { post, parts: thread, mediaIds, author, series } of compositions) {
      let state: PostState = post.state;
      if (state === 'QUEUE') {
        let asked = roles.get(post.workspace_id);
        if (!asked) roles.set(post.workspace_id, (asked = await this.approvalRoles(trx, post.workspace_id)));
        state = stateFor(asked, author);
      }
      const id = newId();
      rows.push(newPostRow(id, { post, series }, state, stamp));
      parts.push(...newParts(id, thread));
      for (const media_id of new Set(mediaIds)) links.push({ post_id: id, media_id });
    }
    await repo.insertPosts(trx, rows);
    await repo.insertParts(trx, parts);
    await repo.insertMediaLinks(trx, links);
    await this.deps.webhookOutbox.record(
      trx,
      rows.map((row) => postEvent(row, row.state === 'QUEUE' ? 'post.scheduled' : 'post.created')),
    );
    for (const [i, row] of rows.entries())
      if (row.state === 'AWAITING_APPROVAL') await this.#requestApproval(trx, row, compositions[i]!.author, stamp);
    return rows.map((row) => ({ id: row.id, state: row.state as PostState }));
  }

  // Approval before publishing.

  /** The roles whose scheduled posts wait for approval in a workspace (none unless its setting says so). */
  async approvalRoles(db: Executor, workspaceId: string): Promise<ApprovalRole[]> {
    return readApprovalRoles((await approvals.findSettings(db, workspaceId))?.roles);
  }

  /**
   * The one decision of where a post asked to be scheduled goes: `AWAITING_APPROVAL` when the
   * workspace's setting asks approval of its author's role, or when it already awaits approval
   * (`previous`: an edit, whoever makes it, approves nothing); `QUEUE` otherwise. An edit of an
   * approved (queued) post by such a role therefore sends it back for approval. Every path that
   * schedules a post calls it through `write` and `schedule`: POST /posts (a date or the queue),
   * edits, PUT /posts/:id/status, and recurring occurrences and bulk imports, which pass the
   * author of the series or import.
   */
  async scheduledState(db: Executor, workspaceId: string, author: Author, previous?: Pick<PostRow, 'state'>): Promise<ScheduledState> {
    if (previous?.state === 'AWAITING_APPROVAL') return 'AWAITING_APPROVAL';
    return stateFor(await this.approvalRoles(db, workspaceId), author);
  }

  /** Records that `author` asks for the approval of a post, inside the write's transaction: the step, the event, the approvers' notification. */
  async #requestApproval(
    trx: Executor,
    post: Pick<PostRow, 'id' | 'workspace_id' | 'publish_at'>,
    author: Author,
    stamp: string,
  ): Promise<void> {
    await this.#step(trx, post, 'requested', author.userId, null, stamp);
    await this.deps.webhookOutbox.record(trx, [
      postEvent(post, 'post.awaiting_approval', { requestedBy: author.userId, publishDate: post.publish_at }),
    ]);
    await this.deps.notifications.notify(
      post.workspace_id,
      {
        kind: 'approval_requested',
        message: `Post ${post.id} (for ${post.publish_at}) awaits approval: ${await userLabel(trx, author.userId)} scheduled it. An owner, admin or approving editor approves or rejects it.`,
        postId: post.id,
      },
      trx,
    );
  }

  async #step(
    trx: Executor,
    post: Pick<PostRow, 'id' | 'workspace_id'>,
    decision: ApprovalDecision,
    userId: string,
    comment: string | null,
    stamp: string,
  ) {
    await approvals.insertStep(trx, {
      id: newId(),
      workspace_id: post.workspace_id,
      post_id: post.id,
      decision,
      user_id: userId,
      comment,
      created_at: stamp,
    });
  }

  /**
   * AWAITING_APPROVAL → QUEUE, by `approver`, at the version read: due at its publish date, or at
   * once when that has passed (its publish date then becomes now). False when the post was no
   * longer awaiting approval at that version (approved, rejected or edited meanwhile). `within`
   * runs in the decision's transaction once it is made (the request's answer is kept there).
   */
  async approve(post: PostRow, approver: Author, comment: string | null, within?: (trx: Executor) => Promise<void>): Promise<boolean> {
    const now = this.deps.clock.now();
    const stamp = now.toISOString();
    const due = Date.parse(post.publish_at) < now.getTime() ? stamp : post.publish_at;
    return this.deps.db.transaction().execute(async (trx) => {
      const moved = await repo.updatePostIf(
        trx,
        post.id,
        { states: ['AWAITING_APPROVAL'], version: Number(post.version) },
        { state: 'QUEUE', publish_at: due, next_run_at: due, updated_at: stamp },
        { bump: true },
      );
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await this.#step(trx, post, 'approved', approver.userId, comment, stamp);
      await this.deps.webhookOutbox.record(trx, [
        postEvent(post, 'post.approved', { approvedBy: approver.userId, comment, publishDate: due }),
        postEvent(post, 'post.scheduled'),
      ]);
      const author = await approvals.lastRequester(trx, post.id);
      await this.deps.notifications.notify(
        post.workspace_id,
        {
          kind: 'post_approved',
          message: `Post ${post.id}${author ? ` by ${await userLabel(trx, author)}` : ''} was approved by ${await userLabel(trx, approver.userId)}; it is scheduled for ${due}.${comment ? ` Comment: ${comment}` : ''}`,
          postId: post.id,
          channelId: post.channel_id,
        },
        trx,
      );
      await within?.(trx);
      return true;
    });
  }

  /** AWAITING_APPROVAL → DRAFT, by `approver`, with the reason; the author is notified. False, and `within`, as for `approve`. */
  async reject(post: PostRow, approver: Author, comment: string, within?: (trx: Executor) => Promise<void>): Promise<boolean> {
    const stamp = this.deps.clock.now().toISOString();
    return this.deps.db.transaction().execute(async (trx) => {
      const moved = await repo.updatePostIf(
        trx,
        post.id,
        { states: ['AWAITING_APPROVAL'], version: Number(post.version) },
        { state: 'DRAFT', next_run_at: null, updated_at: stamp },
        { bump: true },
      );
      if (Number(moved.numUpdatedRows) !== 1) return false;
      await this.#step(trx, post, 'rejected', approver.userId, comment, stamp);
      const author = await approvals.lastRequester(trx, post.id);
      await this.deps.webhookOutbox.record(trx, [
        postEvent(post, 'post.rejected', { rejectedBy: approver.userId, authorId: author, comment }),
      ]);
      await this.deps.notifications.notify(
        post.workspace_id,
        {
          kind: 'post_rejected',
          message: `${author ? `${await userLabel(trx, author)}: your post` : 'Post'} ${post.id} was rejected by ${await userLabel(trx, approver.userId)} and is a draft again. Comment: ${comment}`,
          postId: post.id,
          channelId: post.channel_id,
        },
        trx,
      );
      await within?.(trx);
      return true;
    });
  }

  /** Removes a post from its group (an edit of the group that no longer lists its channel), inside the edit's transaction. */
  async removeFromGroup(trx: Executor, post: PostRow, stamp: string): Promise<void> {
    await this.#edit(trx, post, { deleted_at: stamp, next_run_at: null, updated_at: stamp });
    await this.deps.webhookOutbox.record(trx, [postEvent(post, 'post.deleted')]);
  }

  /** Applies an edit to an existing post (at `version`, when given), inside the edit's transaction; refused unless the post is editable. */
  async #edit(trx: Executor, post: PostRow, changes: Partial<PostRow>, version?: number): Promise<void> {
    const updated = await repo.updatePostIf(trx, post.id, { states: EDITABLE, version }, changes, { bump: true });
    if (Number(updated.numUpdatedRows) === 1) return;
    const now = await repo.findPostForEngine(trx, post.id);
    if (version !== undefined && now && now.deleted_at !== null) throw new NotFoundError(`No post ${post.id} in this workspace.`);
    if (version !== undefined && now && EDITABLE.includes(now.state)) {
      throw new ConflictError(
        `Post ${post.id} was changed by another request while this edit was made; read it again and send the edit again.`,
        {
          code: 'post_changed',
        },
      );
    }
    throw refusal(now?.state ?? post.state, post.id, 'edited');
  }

  /**
   * The first slot of `schedule` after `after` that no post of any of `channelIds` holds (every
   * live post but drafts holds its publish time), looked for over `QUEUE_HORIZON_DAYS`; null when
   * there is none. Read-only: a slot found here may be taken by another request the next moment.
   */
  async nextFreeSlot(db: Executor, channelIds: readonly string[], schedule: WeeklySchedule, after: Date): Promise<string | null> {
    const instants = slotInstants(schedule, after, QUEUE_HORIZON_DAYS);
    for (;;) {
      const window: string[] = [];
      for (const instant of instants) {
        window.push(instant.toISOString());
        if (window.length === SLOTS_PER_READ) break;
      }
      if (window.length === 0) return null;
      const taken = await repo.listTakenSlots(db, channelIds, after.toISOString(), window.at(-1)!);
      const free = window.find((slot) => !taken.has(slot));
      if (free) return free;
    }
  }

  /**
   * The queue's transition, inside the transaction that writes the queued posts (`write`, state
   * QUEUE, at the slot answered): each channel's next free slot of its own schedule (`channel`),
   * or one slot of the first channel's schedule free on all of them (`common`). The workspace's
   * row is locked first (PostgreSQL; SQLite has one writer), so two requests queueing at once,
   * from any process, are ordered by the database and never take the same slot: the second reads
   * the first's posts. 409 `no_free_slot` when a channel has none within the horizon.
   */
  async takeSlots(
    trx: Transaction<Database>,
    workspaceId: string,
    channels: ReadonlyArray<{ id: string; schedule: WeeklySchedule }>,
    mode: 'channel' | 'common',
    after: Date,
  ): Promise<Map<string, string>> {
    await lockWorkspace(trx, workspaceId);
    const slots = new Map<string, string>();
    const groups = mode === 'common' ? [channels] : channels.map((channel) => [channel]);
    for (const group of groups) {
      const slot = await this.nextFreeSlot(
        trx,
        group.map((channel) => channel.id),
        group[0]!.schedule,
        after,
      );
      if (slot === null) throw noFreeSlot(group.map((channel) => channel.id));
      for (const channel of group) slots.set(channel.id, slot);
    }
    return slots;
  }

  /** Refuses an edit of a group while one of its posts is published or being published. */
  checkEditable(posts: PostRow[]): void {
    const locked = posts.find((p) => !EDITABLE.includes(p.state));
    if (locked) throw refusal(locked.state, locked.id, 'edited');
  }

  /** DRAFT → QUEUE, due at `publishAt`, or DRAFT → AWAITING_APPROVAL (see `scheduledState`); the state it entered. */
  async schedule(post: PostRow, author: Author): Promise<ScheduledState> {
    const stamp = this.deps.clock.now().toISOString();
    const state = await this.deps.db.transaction().execute(async (trx) => {
      const to = await this.scheduledState(trx, post.workspace_id, author);
      const changes = to === 'QUEUE' ? { state: to, next_run_at: post.publish_at } : { state: to, next_run_at: null };
      const moved = await repo.updatePostIf(trx, post.id, { states: ['DRAFT'] }, { ...changes, updated_at: stamp }, { bump: true });
      if (Number(moved.numUpdatedRows) !== 1) return null;
      if (to === 'QUEUE') await this.deps.webhookOutbox.record(trx, [postEvent(post, 'post.scheduled')]);
      else await this.#requestApproval(trx, post, author, stamp);
      return to;
    });
    if (state === null) throw refusal(await this.currentState(post), post.id, 'scheduled');
    return state;
  }

  /** QUEUE (or AWAITING_APPROVAL) → DRAFT: its scheduling, or its wait for approval, stops. */
  async unschedule(post: PostRow): Promise<void> {
    if (!(await this.#toDraft(post, ['QUEUE', 'AWAITING_APPROVAL'])))
      throw refusal(await this.currentState(post), post.id, 'moved to draft');
  }

  /** QUEUE → DRAFT (or from `from`); false when the post was no longer in one of them. */
  #toDraft(post: PostRow, from: readonly PostState[] = ['QUEUE']): Promise<boolean> {
    return this.#move(post, from, { state: 'DRAFT', next_run_at: null }, 'post.updated');
  }

  /** A person's move of a live post from one of the states `from`, counted in `version`; false when it was in none of them. */
  async #move(post: PostRow, from: readonly PostState[], changes: Partial<PostRow>, event: EventRecord['type']): Promise<boolean> {
    const stamp = this.deps.clock.now().toISOString();
    return this.deps.webhookOutbox.recordWith(
      this.deps.db,
      async (trx) =>
        Number(
          (await repo.updatePostIf(trx, post.id, { states: from }, { ...changes, updated_at: stamp }, { bump: true })).numUpdatedRows,
        ) === 1,
      (moved) => (moved ? [postEvent(post, event)] : []),
    );
  }

  /**
   * Records the platform's id (and, when given, URL) of a post as an edit, counted in `version`.
   * Refused while the post or one of its comments is being sent: the engine records a send only
   * at the version it claimed. The parts are checked after the update, which holds the post's
   * row, so no claim can come between the two.
   */
  async setRelease(post: PostRow, releaseId: string, releaseUrl: string | undefined): Promise<void> {
    const stamp = this.deps.clock.now().toISOString();
    const changes = { release_id: releaseId, ...(releaseUrl !== undefined && { release_url: releaseUrl }), updated_at: stamp };
    await this.deps.db.transaction().execute(async (trx) => {
      const updated = await repo.updatePostIf(trx, post.id, { notStates: ['PUBLISHING'] }, changes, { bump: true });
      if (Number(updated.numUpdatedRows) === 1 && !(await repo.hasSendingPart(trx, post.id))) {
        await this.deps.webhookOutbox.record(trx, [postEvent(post, 'post.updated')]);
        return;
      }
      const now = await repo.findPostForEngine(trx, post.id);
      if (!now || now.deleted_at !== null) throw new NotFoundError(`No post ${post.id} in this workspace.`);
      throw refusal('PUBLISHING', post.id, 'given a release id');
    });
  }

  /** Removes posts from the calendar, all or none: refused while one of them is being published. */
  async remove(posts: PostRow[]): Promise<void> {
    const stamp = this.deps.clock.now().toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const removed: EventRecord[] = [];
      for (const post of posts) {
        const updated = await repo.updatePostIf(
          trx,
          post.id,
          { notStates: ['PUBLISHING'] },
          // A person's deletion of one occurrence of a series: an edit of the series does not write it again.
          { deleted_at: stamp, next_run_at: null, updated_at: stamp, ...(post.series_id && { series_exception: 'deleted' as const }) },
          { bump: true },
        );
        if (Number(updated.numUpdatedRows) === 1) {
          removed.push(postEvent(post, 'post.deleted'));
          continue;
        }
        const now = await repo.findPostForEngine(trx, post.id);
        if (now && now.deleted_at === null) throw refusal(now.state, post.id, 'deleted');
      }
      await this.deps.webhookOutbox.record(trx, removed);
    });
  }

  /**
   * Removes the occurrences of series `seriesId` due after `after` that are not published or
   * being published (an edit of the series, or its deletion), inside the caller's transaction, by
   * one conditional update: an occurrence the engine has claimed is PUBLISHING and stays; one
   * awaiting approval goes too. Those a
   * person edited or deleted on their own are left unless `withExceptions`. The ids removed.
   */
  async dropOccurrences(trx: Executor, seriesId: string, after: string, stamp: string, withExceptions: boolean): Promise<string[]> {
    const rows = await repo.removeSeriesOccurrences(trx, seriesId, after, stamp, withExceptions);
    await this.deps.webhookOutbox.record(
      trx,
      rows.map((row) => postEvent(row, 'post.deleted')),
    );
    return rows.map((row) => row.id);
  }

  /**
   * Moves every scheduled post of a channel to draft (its deletion), a page at a time in
   * (publish_at, id) order; one claimed, published or removed since its page was read is left as
   * it is. The channel is marked deleted first, so no post is scheduled on it behind the page;
   * one that is anyway (a race) is moved by the engine's sweep.
   */
  async unscheduleChannel(channelId: string): Promise<void> {
    let after: repo.PublishPosition | null = null;
    for (;;) {
      const queued = await repo.listChannelPostsInState(this.deps.db, channelId, 'QUEUE', after, UNSCHEDULE_PAGE);
      for (const post of queued) await this.#toDraft(post);
      const last = queued.at(-1);
      if (!last || queued.length < UNSCHEDULE_PAGE) return;
      after = { publishAt: last.publish_at, id: last.id };
    }
  }

  /**
   * Deletes every post of a channel, in any state, with its parts (an operator's purge of a
   * deleted channel), `PURGE_PAGE` at a time. After each page it waits as long as the page took
   * (real time), so that it holds the database's write lock at most half the time: on SQLite
   * another process's writer (the server, while an operator purges) retries on its own schedule
   * and would otherwise find the lock taken again at once, and this process's own requests and
   * timers run between pages.
   */
  async purgeChannel(channelId: string): Promise<void> {
    for (;;) {
      const started = performance.now();
      const deleted = await repo.deleteChannelPosts(this.deps.db, channelId, PURGE_PAGE);
      if (deleted < PURGE_PAGE) return;
      await new Promise((resolve) => setTimeout(resolve, performance.now() - started));
    }
  }

  private async currentState(post: PostRow): Promise<PostState> {
    return (await repo.findPostForEngine(this.deps.db, post.id))?.state ?? post.state;
  }

  // The engine's moves.

  /**
   * Claims the next due step of post `postId` without reading it first: one conditional update
   * claims the post (and reads it, with its channel, as claimed), a second the first PENDING
   * part, in one transaction. What is sent is what was claimed: once claimed, edits are refused,
   * and an edit committed before the claim is what the claim reads. Null when nothing is due
   * (not yet, already claimed, edited to a later time, deleted). Claims asked for together share
   * their transaction (see `GroupCommit`); each post is still claimed by its own statements.
   */
  async claimDue(postId: string, leaseMs: number): Promise<DueClaim | null> {
    const now = this.deps.clock.now();
    return this.#claims.run({ postId, stamp: now.toISOString(), leaseUntil: new Date(now.getTime() + leaseMs).toISOString() });
  }

  /** One claim, in a transaction of its own. */
  async #claimAlone(request: ClaimRequest): Promise<DueClaim | null> {
    return this.deps.db
      .transaction()
      .execute((trx) => this.#claimIn(trx, request))
      .catch(nullIfNothing);
  }

  /** Claims one post inside `trx`; throws `NothingToClaim` (to roll back) when it claimed a post with no part it may send. */
  async #claimIn(trx: Executor, { postId, stamp, leaseUntil }: ClaimRequest): Promise<DueClaim | null> {
    const claimed = await engine.claimDuePost(trx, postId, stamp);
    if (!claimed) return null;
    const part = await engine.claimNextPart(trx, postId, { claimedAt: stamp, leaseUntil });
    // A post due with no part to send (or claimed for a comment before its own part) is not the engine's to move: leave it.
    if (!part || !claimable(claimed, part)) throw new NothingToClaim();
    return dueClaim(claimed, part, stamp);
  }

  /**
   * Claims up to `limit` due posts of the lane's platforms, earliest first, with the next step of
   * each: what the queue's wake of a lane does instead of a claim per post. On PostgreSQL by one
   * statement whatever their number (see `engine.claimDueSteps`), elsewhere by a transaction of two
   * (see `engine.claimDuePosts`). Only posts whose next step can be claimed are taken; on
   * PostgreSQL, posts another worker is claiming at that moment are left to it. The same
   * guarantees as `claimDue`: each claim is the read of what it claimed.
   */
  async claimDueBatch(platforms: engine.PlatformFilter, limit: number, leaseMs: number): Promise<DueClaim[]> {
    const now = this.deps.clock.now();
    const stamp = now.toISOString();
    const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
    if (this.#roundTrips) {
      const steps = await engine.claimDueSteps(this.deps.db, platforms, { now: stamp, claimedAt: stamp, leaseUntil }, limit);
      return steps.map(({ part, ...claimed }) => dueClaim(claimed, readJsonObject<PartRow>(part)!, stamp));
    }
    return this.deps.db.transaction().execute(async (trx) => {
      const posts = await engine.claimDuePosts(trx, platforms, stamp, limit);
      if (posts.length === 0) return [];
      const parts = new Map(
        (
          await engine.claimFirstParts(
            trx,
            posts.map((post) => post.id),
            { claimedAt: stamp, leaseUntil },
          )
        ).map((part) => [part.post_id, part]),
      );
      return posts.map((claimed) => {
        const part = parts.get(claimed.id);
        // The first statement takes only posts with a step to claim, and a claimed post's parts cannot change meanwhile: throwing rolls back every claim of the batch.
        if (!part || !claimable(claimed, part))
          throw new Error(`Post ${claimed.id} was claimed without a part it may send; no claim of this batch is kept.`);
        return dueClaim(claimed, part, stamp);
      });
    });
  }

  /** Extends the claim's lease while its call is in flight; false once the claim is no longer held. */
  async renewLease(claim: Claim, leaseMs: number): Promise<boolean> {
    const until = new Date(this.deps.clock.now().getTime() + leaseMs).toISOString();
    const renewed = await repo.updatePartIf(
      this.deps.db,
      claim.postId,
      claim.idx,
      { states: ['SENDING'], claimedAt: claim.claimedAt },
      { lease_until: until },
    );
    return Number(renewed.numUpdatedRows) === 1;
  }

  /**
   * Records what the platform published. Its answer is the truth: it is recorded even when the
   * claim's lease ran out meanwhile and the part was released for a retry or failed as
   * unconfirmed (then the workspace is told it went out after all), unless the post was edited
   * after the claim, in which case the edit stands and the workspace is told what went out.
   */
  async published(claim: Claim, release: Release, following: { delayMinutes: number } | undefined): Promise<Published> {
    const now = this.deps.clock.now();
    const stamp = now.toISOString();
    const outcome =
      (await this.#records.run({ claim, release, following, now })) ??
      (await this.deps.db.transaction().execute(async (trx): Promise<Published> => {
        const post = await repo.findPostForEngine(trx, claim.postId);
        const part = await repo.findPart(trx, claim.postId, claim.idx);
        if (!post || !part || part.state === 'PUBLISHED') return { recorded: false, edited: false };
        if (Number(post.version) !== claim.version) return { recorded: false, edited: true };
        const confirmedLate = part.state === 'ERROR';
        const recorded = await repo.updatePartIf(
          trx,
          claim.postId,
          claim.idx,
          { states: [part.state], claimedAt: part.claimed_at },
          engine.publishedPartColumns({
            releaseId: release.id,
            releaseUrl: release.url ?? null,
            releaseMeta: release.meta ? JSON.stringify(release.meta) : null,
            stamp,
          }),
        );
        if (Number(recorded.numUpdatedRows) !== 1) throw new Error('the part changed while its success was being recorded');
        if (confirmedLate) await engine.restorePartsAfter(trx, claim.postId, claim.idx);
        const nextRunAt =
          following && post.deleted_at === null ? new Date(now.getTime() + following.delayMinutes * 60_000).toISOString() : null;
        const changes: Partial<PostRow> = { next_run_at: nextRunAt, updated_at: stamp };
        if (claim.idx === 0)
          Object.assign(changes, { state: 'PUBLISHED', release_id: release.id, release_url: release.url ?? null, published_at: stamp });
        if (claim.idx === 0 || confirmedLate) Object.assign(changes, { error: null, error_kind: null });
        await repo.updatePostIf(trx, claim.postId, { version: claim.version, includeDeleted: true }, changes);
        if (claim.webhooks) await this.deps.webhookOutbox.record(trx, [publishedEvent(claim, release)]);
        return { recorded: true, nextRunAt, confirmedLate };
      }));
    if (outcome.recorded && outcome.confirmedLate) {
      const what = claim.idx === 0 ? `Post ${claim.postId}` : `Comment ${claim.idx} of post ${claim.postId}`;
      await this.deps.notifications.notify(claim.workspaceId, {
        kind: 'publish_confirmed',
        message: `${what} was published after all (${release.url ?? release.id}): the platform confirmed it after Herald had reported the outcome as unknown.`,
        postId: claim.postId,
        channelId: claim.channelId,
      });
    }
    if (!outcome.recorded && outcome.edited) {
      await this.deps.notifications.notify(claim.workspaceId, {
        kind: 'publish_confirmed',
        message: `An earlier version of post ${claim.postId} was published (${release.url ?? release.id}) after its outcome was reported unknown; the post was edited since, and the edit is scheduled as it stands. Check the platform.`,
        postId: claim.postId,
        channelId: claim.channelId,
      });
    }
    return outcome;
  }

  /**
   * The usual case of `published`, without reading anything: the part is still SENDING under
   * this claim and the post still at the claimed version. Null (nothing written) otherwise.
   * Records asked for together share their transaction (see `GroupCommit`).
   */
  async #recordAlone(request: RecordRequest): Promise<Published | null> {
    return this.deps.db
      .transaction()
      .execute(async (trx) => {
        const recorded = await this.#recordIn(trx, request);
        if (!recorded) throw new NothingToClaim();
        return recorded;
      })
      .catch(nullIfNothing);
  }

  /**
   * Records one success inside `trx`: null, having written nothing, when the part is no longer
   * SENDING under the claim; throws `NothingToClaim` (to roll back) when the part was recorded but
   * the post is no longer at the claimed version.
   */
  async #recordIn(trx: Executor, request: RecordRequest): Promise<Published | null> {
    const record = publishedRecord(request);
    const { post_id: postId, idx, stamp, next_run_at: nextRunAt } = record;
    // Both statements are compiled once (see `precompiled`): every publish runs them.
    const columns = { releaseId: record.release_id, releaseUrl: record.release_url, releaseMeta: record.release_meta };
    const part = await engine.recordPartPublished(trx, { postId, idx, claimedAt: record.claimed_at, stamp, ...columns });
    if (part !== 1) return null;
    // A person's move (a delete of a published thread) counts in the version: then the careful path decides.
    const post = await engine.recordPostPublished(trx, { id: postId, idx, version: record.version, stamp, nextRunAt, ...columns });
    if (post !== 1) throw new NothingToClaim();
    if (request.claim.webhooks)
      await this.deps.webhookOutbox.record(trx, [publishedEvent(request.claim, request.release)], { listening: true });
    return { recorded: true, nextRunAt, confirmedLate: false };
  }

  /**
   * Records a whole batch by one statement (PostgreSQL, see `engine.recordAllPublished`): each
   * record whose part is still SENDING under its claim and whose post is still at the claimed
   * version; null, having written nothing, for the others, which go the careful way.
   */
  async #recordAll(db: Db, requests: RecordRequest[]): Promise<Array<Published | null>> {
    // Two steps of one post in a batch (a lapsed claim's late answer beside the next one's): each alone.
    if (new Set(requests.map(({ claim }) => claim.postId)).size < requests.length)
      return Promise.all(requests.map((request) => this.#recordAlone(request)));
    const records = requests.map(publishedRecord);
    // One statement, unless a workspace of the batch has webhooks: then its events are written in the same transaction.
    const recorded = !requests.some(({ claim }) => claim.webhooks)
      ? new Set(await engine.recordAllPublished(db, records))
      : await db.transaction().execute(async (trx) => {
          const ids = new Set(await engine.recordAllPublished(trx, records));
          await this.deps.webhookOutbox.record(
            trx,
            requests
              .filter(({ claim }) => claim.webhooks && ids.has(claim.postId))
              .map(({ claim, release }) => publishedEvent(claim, release)),
            { listening: true },
          );
          return ids;
        });
    return records.map((record) =>
      recorded.has(record.post_id) ? { recorded: true, nextRunAt: record.next_run_at, confirmedLate: false } : null,
    );
  }

  /** Gives the claimed part back for another attempt at `runAt`; false when the claim was no longer held. */
  async release(claim: Claim, runAt: string, message: string): Promise<boolean> {
    const stamp = this.deps.clock.now().toISOString();
    return this.deps.db.transaction().execute(async (trx) => {
      const released = await repo.updatePartIf(
        trx,
        claim.postId,
        claim.idx,
        { states: ['SENDING'], claimedAt: claim.claimedAt },
        {
          state: 'PENDING',
          claimed_at: null,
          lease_until: null,
          error: `Attempt ${claim.attempts} failed, retrying: ${message}`,
        },
      );
      if (Number(released.numUpdatedRows) !== 1) return false;
      await repo.updatePostIf(
        trx,
        claim.postId,
        { version: claim.version },
        { ...(claim.idx === 0 && { state: 'QUEUE' as const }), next_run_at: runAt, updated_at: stamp },
      );
      if (claim.webhooks)
        await this.deps.webhookOutbox.record(trx, [
          {
            workspaceId: claim.workspaceId,
            type: 'post.failed',
            subjectId: claim.postId,
            details: { part: claim.idx, reason: message, attempt: claim.attempts, willRetry: true, retryAt: runAt },
          },
        ]);
      return true;
    });
  }

  /**
   * Records a failure that will not be retried (the thread stops at the failed part) and tells
   * the workspace; false when the claim was no longer held.
   */
  async fail(claim: Claim, kind: ErrorKind, reason: string): Promise<boolean> {
    const stamp = this.deps.clock.now().toISOString();
    const idx = claim.idx;
    const settled = await this.deps.db.transaction().execute(async (trx) => {
      const result = await repo.updatePartIf(
        trx,
        claim.postId,
        idx,
        { states: ['SENDING'], claimedAt: claim.claimedAt },
        { state: 'ERROR', claimed_at: null, lease_until: null, error: reason },
      );
      if (Number(result.numUpdatedRows) !== 1) return false;
      await engine.failPendingPartsAfter(
        trx,
        claim.postId,
        idx,
        idx === 0 ? 'Not published: the post itself failed.' : `Not published: comment ${idx} before it failed.`,
      );
      const changes = idx === 0 ? { state: 'ERROR' as const, error: reason } : { error: `Comment ${idx} failed: ${reason}` };
      await repo.updatePostIf(
        trx,
        claim.postId,
        { version: claim.version, includeDeleted: true },
        { ...changes, error_kind: kind, next_run_at: null, updated_at: stamp },
      );
      if (claim.webhooks)
        await this.deps.webhookOutbox.record(trx, [
          {
            workspaceId: claim.workspaceId,
            type: 'post.failed',
            subjectId: claim.postId,
            details: { part: idx, reason, errorKind: kind, attempt: claim.attempts, willRetry: false, retryAt: null },
          },
        ]);
      return true;
    });
    if (!settled) return false;
    await this.deps.notifications.notify(claim.workspaceId, {
      kind: idx === 0 ? 'publish_failed' : 'comment_failed',
      message:
        idx === 0
          ? `Post ${claim.postId} was not published: ${reason}`
          : `Comment ${idx} of post ${claim.postId} was not published: ${reason}`,
      postId: claim.postId,
      channelId: claim.channelId,
    });
    return true;
  }

  /**
   * Parts left SENDING whose worker is gone: with `all` (a single process at boot) every one,
   * otherwise those whose lease ran out. Each comes back as the claim it was, for settling.
   */
  async stale(
    options: { all: boolean; leaseMs: number },
    page: { after: engine.StalePartPosition | null; limit: number },
  ): Promise<{ claims: Claim[]; next: engine.StalePartPosition | null }> {
    const now = this.deps.clock.now();
    const expired = options.all
      ? null
      : { leaseEndedBy: now.toISOString(), claimedBefore: new Date(now.getTime() - options.leaseMs).toISOString() };
    const claims: Claim[] = [];
    const rows = await engine.listStaleSendingParts(this.deps.db, expired, page);
    for (const { post_id, idx } of rows) {
      const post = await repo.findPostForEngine(this.deps.db, post_id);
      const part = await repo.findPart(this.deps.db, post_id, Number(idx));
      if (!post || !part || part.state !== 'SENDING' || part.claimed_at === null) continue;
      claims.push({
        postId: post.id,
        workspaceId: post.workspace_id,
        channelId: post.channel_id,
        idx: Number(idx),
        version: Number(post.version),
        claimedAt: part.claimed_at,
        attempts: Number(part.attempts),
        // Not read by this look-up: the outbox looks.
        webhooks: true,
      });
    }
    const last = rows.at(-1);
    return { claims, next: rows.length < page.limit || !last ? null : { postId: last.post_id, idx: Number(last.idx) } };
  }
}

/** How a notification names a user: name and address, or the id of one that is gone. */
async function userLabel(db: Executor, userId: string): Promise<string> {
  const user = await findUserById(db, userId);
  return user ? (user.name ? `${user.name} <${user.email}>` : user.email) : `user ${userId}`;
}
