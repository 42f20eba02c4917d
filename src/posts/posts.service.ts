import { dateWindow } from '../lib/date-window.ts';
import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import { setImmediate } from 'node:timers/promises';
import type { z } from 'zod';
import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { ChannelsService, Channel } from '../channels/channels.service.ts';
import type { Database, Db, Executor } from '../db/database.ts';
import { isUniqueViolation, lockWorkspace } from '../db/sql.ts';
import { AppError, BadRequestError, ConflictError, ForbiddenError, NotFoundError, PaymentRequiredError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { parseJsonOr } from '../lib/json.ts';
import { newId } from '../lib/ids.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { JobQueue } from '../publishing/job-queue.ts';
import { findGroup } from '../groups/groups.repository.ts';
import { getProvider, isProviderIdentifier } from '../providers/registry.ts';
import { postContentToHtml } from '../content/html.ts';
import { describeMedia, type MediaLookup } from './media-lookup.ts';
import { checkReadiness, checkSettingsTypes, measureText, textLimitOf } from './readiness.ts';
import * as keys from './idempotency-keys.repository.ts';
import { composition, refusal, type Author, type Composition, type PostTransitions, type ThreadPart } from './post-transitions.ts';
import * as approvals from '../approvals/approvals.repository.ts';
import * as repo from './posts.repository.ts';
import {
  parsePostFields,
  POST_FIELDS,
  type createPostsBody,
  type measureBody,
  type measureSchema,
  type PostField,
  type postSchema,
  type replacePostBody,
  type updatePostBody,
} from './posts.schema.ts';
import type { PostPartsTable, PostsTable, PostState } from './posts.table.ts';
import type { SchedulesService } from '../schedules/schedules.service.ts';

export type CreatePostsInput = z.infer<typeof createPostsBody>;
export type PostRecord = z.infer<typeof postSchema>;
export type CreatedPost = { postId: string; integration: string; group: string };
export type UpdatePostInput = z.infer<typeof updatePostBody>;
export type ReplacePostInput = z.infer<typeof replacePostBody>;
/** What an edit of one post in place asks for (PATCH, or PUT with every field); left out, a field stays. */
export type PostChange = Omit<UpdatePostInput, 'settings'> & {
  settings?: Record<string, unknown> | undefined;
  /** `merge` (PATCH): the keys given replace theirs, null removes one. `replace` (PUT): the settings given are all there is. */
  settingsMode: 'merge' | 'replace';
};
/** Stores a request's answer inside the transaction that writes its effects (see `idempotent`). */
export type WithinWrite<R> = (trx: Executor, result: R) => Promise<void>;
export type MeasureInput = z.infer<typeof measureBody>;
export type TextMeasure = z.infer<typeof measureSchema>;
export type MissingReport = { postId: string; ready: boolean; missing: Array<{ field: string; reason: string }> };

/** How far in the past a `schedule` date may be (clock skew, slow clients); it then goes out at once. */
export const SCHEDULE_GRACE_MS = 5 * 60_000;
/** How far ahead a post may be scheduled. */
export const SCHEDULE_HORIZON_YEARS = 10;
/** The most posts one GET /posts answer holds; more are read a page at a time with `cursor`. */
export const POSTS_PAGE_MAX = 1000;
/** About how much post content (characters) one GET /posts answer holds before it ends the page early. */
export const POSTS_PAGE_BYTES = 4 * 1024 * 1024;
/** Posts read per database statement while building a page. */
export const POSTS_READ_BATCH = 200;
/** Share of a plan quota at which a limit warning is sent. */
const WARN_AT = 0.8;
/** Posts of a batch (`createBatch`) checked between two turns of the event loop. */
const BATCH_CHECKS_PER_TURN = 20;
/** How long a second request with the same Idempotency-Key waits for the first to finish. */
const IDEMPOTENCY_WAIT_MS = 5_000;
/** A key whose first request has not answered after this long was left by a server that stopped: a retry redoes the request. */
export const IDEMPOTENCY_LEASE_MS = 2 * 60_000;
/** How long an answered key is kept (the engine's sweep purges older ones). */
export const IDEMPOTENCY_RETENTION_MS = 48 * 3600_000;

/** What identifies a request body for an Idempotency-Key: the parsed body, defaults included. */
export function idempotencyHash(input: CreatePostsInput): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex');
}

type PartRow = PostPartsTable;
type PostRow = PostsTable;

export type PostsDeps = {
  db: Db;
  clock: Clock;
  queue: JobQueue;
  channels: ChannelsService;
  media: MediaLookup;
  notifications: NotificationsService;
  /** Every write to posts and parts goes through it. */
  transitions: PostTransitions;
  /** The channels' posting schedules, for `type: "queue"`. */
  schedules: SchedulesService;
};

/** A field of the request at `where` (an item of POST /posts), or the field itself when `where` is empty (an edit of one post). */
const at = (where: string, field: string) => (where ? `${where}.${field}` : field);

function monthStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
}

/** A step of a post's approval as the API shows it. */
export type ApprovalStep = NonNullable<PostRecord['approvals']>[number];

/** The steps of the approvals of `postIds`, oldest first, by post. */
export async function approvalSteps(db: Executor, postIds: readonly string[]): Promise<Map<string, ApprovalStep[]>> {
  const steps = new Map<string, ApprovalStep[]>();
  for (const row of await approvals.listSteps(db, postIds)) {
    const step: ApprovalStep = {
      decision: row.decision,
      by: row.user_id === null ? null : { id: row.user_id, email: row.email ?? null, name: row.name ?? null },
      at: row.created_at,
      comment: row.comment,
    };
    const list = steps.get(row.post_id);
    if (list) list.push(step);
    else steps.set(row.post_id, [step]);
  }
  return steps;
}

/** The caller as the author of what it writes: its user and its role in the workspace. */
export function authorOf(access: WorkspaceAccess): Author {
  return { userId: access.principal.userId, role: access.role };
}

export function toPostRecord(post: PostRow, parts: PartRow[], providerIdentifier: string, steps?: ApprovalStep[]): PostRecord {
  const ordered = parts.filter((p) => p.post_id === post.id).sort((a, b) => a.idx - b.idx);
  return {
    id: post.id,
    group: post.group_id,
    state: post.state as PostState,
    series: post.series_id
      ? {
          id: post.series_id,
          occurrence: new Date(post.occurrence_at ?? post.publish_at).toISOString(),
          edited: post.series_exception === 'edited',
        }
      : null,
    publishDate: post.publish_at,
    integration: { id: post.channel_id, providerIdentifier },
    content: ordered[0]?.content ?? '',
    value: ordered.map((p) => ({
      content: p.content,
      image: parseJsonOr<Array<{ id?: string; path: string }>>(p.images, []),
      delay: Number(p.delay_minutes),
      state: p.state as PostRecord['value'][number]['state'],
      releaseId: p.release_id,
      releaseURL: p.release_url,
      publishedAt: p.published_at,
      error: p.error,
    })),
    settings: parseJsonOr<Record<string, unknown>>(post.settings, {}),
    tags: parseJsonOr<string[]>(post.tags, []),
    shortLink: Number(post.short_link) === 1,
    releaseId: post.release_id,
    releaseURL: post.release_url,
    error: post.error,
    errorKind: post.error_kind,
    publishedAt: post.published_at,
    createdAt: post.created_at,
    updatedAt: post.updated_at,
    ...(steps && { approvals: steps }),
  };
}

/** A thread as a request sends it: its content made HTML, the post's delay 0. */
export function sentThread(value: Array<{ content: string; image: Array<{ path: string }>; delay?: number | undefined }>): ThreadPart[] {
  return value.map((part, idx) => ({
    content: postContentToHtml(part.content),
    image: part.image,
    delay: idx === 0 ? 0 : (part.delay ?? 0),
  }));
}

/** The thread an edit leaves: `value` replaces it whole; otherwise `content`, `image` and `comments` each replace their piece. */
function editedThread(stored: PartRow[], change: PostChange): ThreadPart[] {
  if (change.value) return sentThread(change.value);
  const [first, ...comments] = [...stored]
    .sort((a, b) => Number(a.idx) - Number(b.idx))
    .map((part) => ({
      content: part.content,
      image: parseJsonOr<Array<{ path: string }>>(part.images, []).map(({ path }) => ({ path })),
      delay: Number(part.delay_minutes),
    }));
  return [
    {
      content: change.content !== undefined ? postContentToHtml(change.content) : (first?.content ?? ''),
      image: change.image ?? first?.image ?? [],
      delay: 0,
    },
    ...(change.comments ? sentThread([{ content: '', image: [] }, ...change.comments]).slice(1) : comments),
  ];
}

/** The settings an edit leaves: merged key by key (PATCH; null removes a key) or replaced (PUT). */
function editedSettings(current: Record<string, unknown>, change: PostChange): Record<string, unknown> {
  const merged = { ...(change.settingsMode === 'merge' ? current : {}), ...change.settings };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== null));
}

/** Only `fields` of a post, in the schema's order. */
function pickFields(record: PostRecord, fields: readonly PostField[]): Partial<PostRecord> {
  const picked: Record<string, unknown> = {};
  for (const name of POST_FIELDS) if (fields.includes(name)) picked[name] = record[name];
  return picked as Partial<PostRecord>;
}

/** A post is scheduled at most `SCHEDULE_HORIZON_YEARS` ahead. */
export function checkScheduleHorizon(date: Date, now: Date): void {
  const horizon = new Date(now);
  horizon.setUTCFullYear(horizon.getUTCFullYear() + SCHEDULE_HORIZON_YEARS);
  if (date.getTime() > horizon.getTime()) {
    throw new BadRequestError(
      `The date ${date.toISOString()} is more than ${SCHEDULE_HORIZON_YEARS} years ahead (after ${horizon.toISOString()}); posts are scheduled within ${SCHEDULE_HORIZON_YEARS} years.`,
      {
        code: 'date_too_far',
      },
    );
  }
}

/** A page's end, for the client to send back as `cursor`; opaque to it. */
function encodeCalendarCursor(position: repo.PublishPosition): string {
  return Buffer.from(JSON.stringify([position.publishAt, position.id])).toString('base64url');
}

function decodeCalendarCursor(cursor: string): repo.PublishPosition {
  try {
    const [publishAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof publishAt === 'string' && typeof id === 'string' && !Number.isNaN(Date.parse(publishAt))) return { publishAt, id };
  } catch {
    // Falls through to the refusal.
  }
  throw new BadRequestError(
    'cursor: not a cursor this API gave; send the `nextCursor` of the previous page unchanged, or leave it out for the first page.',
    { code: 'invalid_cursor' },
  );
}

/** Posts: the calendar, compositions across channels, and the transitions a person can make. */
export class PostsService {
  private readonly transitions: PostTransitions;

  constructor(private readonly deps: PostsDeps) {
    this.transitions = deps.transitions;
  }

  /**
   * Creates (or, with `group`, updates in place) one post per channel. With an idempotency
   * key, a retry of the same request answers the first result and creates nothing. Every
   * permission check runs first, so a stored answer is replayed only to a caller that may see it.
   */
  async create(access: WorkspaceAccess, input: CreatePostsInput, idempotencyKey?: string): Promise<CreatedPost[]> {
    await this.authorizeCreate(access, input);
    const created = await this.idempotent<CreatedPost[]>(
      access,
      idempotencyKey,
      () => idempotencyHash(input),
      (withinWrite) => this.createOnce(access, input, withinWrite),
    );
    // An answer stored before the group was part of it is replayed with it.
    return Promise.all(
      created.map(async (item) =>
        item.group ? item : { ...item, group: (await repo.findPost(this.deps.db, access.workspace.id, item.postId))?.group_id ?? '' },
      ),
    );
  }

  /**
   * Runs `run` once per idempotency key: without a key, simply; with one, a retry of the same
   * request (same `hash`) answers the first result and does nothing again. The answer is stored by
   * `run` through `withinWrite`, in the transaction that writes its effects: after a crash either
   * both are there or neither; an answer `run` gives without writing is stored after it. The
   * caller has checked every permission before. Keys are the workspace's, shared by every request
   * that takes one (POST /posts, PATCH and PUT /posts/:id, POST /series, an approver's decision on
   * POST /posts/:id/approve and /reject): `hash` names the request (with its kind), so a key reused
   * for another request is refused.
   */
  async idempotent<R>(
    access: WorkspaceAccess,
    idempotencyKey: string | undefined,
    hash: () => string,
    run: (withinWrite?: WithinWrite<R>) => Promise<R>,
  ): Promise<R> {
    if (!idempotencyKey) return run();
    const { db } = this.deps;
    const workspaceId = access.workspace.id;
    const requestHash = hash();
    const claim = await this.claimIdempotencyKey(workspaceId, idempotencyKey, requestHash);
    if (claim === null) return this.replay<R>(workspaceId, idempotencyKey, requestHash);
    const answer = { kept: false };
    const keep: WithinWrite<R> = async (trx, result) => {
      const stored = await keys.completeIdempotencyKey(trx, workspaceId, idempotencyKey, claim, 200, JSON.stringify(result));
      if (Number(stored.numUpdatedRows) !== 1) {
        throw new ConflictError(
          'This request took longer than the Idempotency-Key lease and a retry took the key over; read the calendar before sending it again.',
          {
            code: 'idempotency_in_progress',
          },
        );
      }
      answer.kept = true;
    };
    try {
      const result = await run(keep);
      // An answer that wrote nothing (a decision already made, answered unchanged) is kept for the retries all the same.
      if (!answer.kept) await keep(db, result);
      return result;
    } catch (error) {
      // A failed request leaves nothing behind, so it can be retried with the same key.
      await keys.deleteIdempotencyKey(db, workspaceId, idempotencyKey, claim).catch(() => {});
      throw error;
    }
  }

  /**
   * Takes the key for this request: a new key, one whose first request stopped without an
   * answer more than `IDEMPOTENCY_LEASE_MS` ago (the server died mid-way: nothing was written),
   * or one kept longer than `IDEMPOTENCY_RETENTION_MS`. Returns the claim's stamp, or null when
   * the key belongs to another request (the caller replays or waits for it).
   */
  private async claimIdempotencyKey(workspaceId: string, key: string, hash: string): Promise<string | null> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const stamp = now.toISOString();
    try {
      await keys.insertIdempotencyKey(db, {
        workspace_id: workspaceId,
        key,
        request_hash: hash,
        status_code: null,
        response: null,
        created_at: stamp,
      });
      return stamp;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const row = await keys.findIdempotencyKey(db, workspaceId, key);
    if (!row) return null;
    const age = now.getTime() - Date.parse(row.created_at);
    const abandoned = row.status_code === null && age >= IDEMPOTENCY_LEASE_MS && row.request_hash === hash;
    const expired = row.status_code !== null && age >= IDEMPOTENCY_RETENTION_MS;
    if (!abandoned && !expired) return null;
    const taken = await keys.takeOverIdempotencyKey(db, workspaceId, key, row.created_at, { request_hash: hash, created_at: stamp });
    return Number(taken.numUpdatedRows) === 1 ? stamp : null;
  }

  /**
   * The checks that decide whether this caller may make this request at all: scopes (and so the
   * role), the channels named, and the group edited. They run before anything is replayed.
   */
  private async authorizeCreate(access: WorkspaceAccess, input: CreatePostsInput): Promise<void> {
    if (input.type !== 'draft') await this.requireScheduling(access);
    for (const [i, item] of input.posts.entries()) await this.channelFor(access, item.integration.id, `posts[${i}]`);
    if (input.group !== undefined) {
      const visible = await this.visibleGroup(access, input.group);
      // Taking a scheduled post out of the queue is what PUT /posts/:id/status with `draft` does: it needs the same scope.
      if (input.type === 'draft' && visible.some((p) => p.state === 'QUEUE' || p.state === 'AWAITING_APPROVAL'))
        await this.requireScheduling(access);
    }
  }

  /**
   * What scheduling (and taking out of the queue) takes: `posts:publish`; or, for a role whose
   * scheduled posts wait for approval in this workspace, `posts:draft` (such a post publishes
   * nothing until an approver says yes).
   */
  async requireScheduling(access: WorkspaceAccess): Promise<void> {
    if (access.scopes.has('posts:publish')) return;
    const roles: readonly string[] = await this.transitions.approvalRoles(this.deps.db, access.workspace.id);
    requireScope(access, roles.includes(access.role) ? 'posts:draft' : 'posts:publish');
  }

  /** A channel of this workspace that the key may post to: another workspace's is a 404, one outside a limited key a 403. */
  private async channelFor(access: WorkspaceAccess, id: string, where: string): Promise<Channel> {
    let channel: Channel;
    try {
      channel = await this.deps.channels.forPosts(access.workspace.id, id);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError(`${at(where, 'integration.id')}: no channel ${id} in this workspace.`);
      if (error instanceof AppError)
        throw new AppError(error.statusCode, error.code, `${at(where, 'integration.id')}: ${error.message}`, { details: error.details });
      throw error;
    }
    if (!mayUseChannel(access, id)) {
      throw new ForbiddenError(`${at(where, 'integration.id')}: this key is limited to other channels and may not post to ${id}.`, {
        code: 'channel_forbidden',
      });
    }
    return channel;
  }

  /** The posts of a group the key can see; a group with none is "not found", exactly like DELETE /posts/group/:group. */
  private async visibleGroup(access: WorkspaceAccess, groupId: string): Promise<PostRow[]> {
    const posts = (await repo.listGroupPosts(this.deps.db, access.workspace.id, groupId)).filter((p) =>
      mayUseChannel(access, p.channel_id),
    );
    if (posts.length === 0) throw new NotFoundError(`No group ${groupId} in this workspace.`);
    return posts;
  }

  private async replay<R>(workspaceId: string, key: string, hash: string): Promise<R> {
    const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
    for (;;) {
      const row = await keys.findIdempotencyKey(this.deps.db, workspaceId, key);
      if (!row)
        throw new ConflictError('The first request with this Idempotency-Key failed while this one waited; send it again.', {
          code: 'idempotency_retry',
        });
      if (row.request_hash !== hash) {
        throw new BadRequestError(
          'This Idempotency-Key was already used with a different request (another body, or another post); use a new key for a new request.',
          {
            code: 'idempotency_key_reused',
          },
        );
      }
      if (row.status_code !== null && row.response !== null) return JSON.parse(row.response) as R;
      if (Date.now() > deadline) {
        throw new ConflictError(
          'A request with this Idempotency-Key is still being processed; retry shortly. A request the server never finished releases its key after 2 minutes.',
          {
            code: 'idempotency_in_progress',
          },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async createOnce(
    access: WorkspaceAccess,
    input: CreatePostsInput,
    withinWrite?: WithinWrite<CreatedPost[]>,
  ): Promise<CreatedPost[]> {
    const { db, clock } = this.deps;
    const workspaceId = access.workspace.id;
    const now = clock.now();

    const publishAt = this.publishDate(input, now);
    const channels = await this.resolveChannels(access, input);
    const media = await this.resolveMedia(
      workspaceId,
      input.posts.map((item, i) => ({ where: `posts[${i}]`, value: item.value })),
    );

    const existing = input.group ? await this.editableGroup(workspaceId, input.group) : [];
    const groupId = input.group ?? newId();
    const byChannel = new Map(existing.map((p) => [p.channel_id, p]));
    const newCount = input.posts.filter((item) => !byChannel.has(item.integration.id)).length;

    const state = input.type === 'draft' ? 'DRAFT' : 'QUEUE';
    const entered = new Map<string, PostState>();
    const stamp = now.toISOString();
    const queued =
      input.type === 'queue'
        ? await Promise.all(
            channels.map(async (channel) => ({ id: channel.id, schedule: await this.deps.schedules.effective(workspaceId, channel.id) })),
          )
        : null;
    const publishAtOf = new Map<string, string>();
    const result: CreatedPost[] = [];
    // Posts of the group for channels no longer listed are removed, except those a channel-limited key cannot see.
    const removed = existing.filter(
      (p) => !input.posts.some((item) => item.integration.id === p.channel_id) && mayUseChannel(access, p.channel_id),
    );

    await db.transaction().execute(async (trx) => {
      await this.checkPostQuota(trx, access, newCount, now);
      // The queue's slots are taken in this transaction, which then writes the posts that hold them.
      const slots = queued ? await this.transitions.takeSlots(trx, workspaceId, queued, input.queueSlot ?? 'channel', now) : null;
      for (const [i, item] of input.posts.entries()) {
        const channel = channels[i]!;
        const previous = byChannel.get(channel.id);
        const at = slots?.get(channel.id) ?? publishAt;
        publishAtOf.set(channel.id, at);
        const written = await this.transitions.write(
          trx,
          previous,
          composition({
            workspaceId,
            groupId,
            channelId: channel.id,
            provider: channel.provider,
            state,
            publishAt: at,
            settings: item.settings,
            tags: input.tags,
            shortLink: input.shortLink,
            thread: sentThread(item.value),
            media,
            author: authorOf(access),
          }),
          stamp,
        );
        const postId = written.id;
        entered.set(postId, written.state);
        result.push({ postId, integration: channel.id, group: groupId });
      }
      for (const gone of removed) await this.transitions.removeFromGroup(trx, gone, stamp);
      await withinWrite?.(trx, result);
    });

    for (const gone of removed) await this.deps.queue.remove(gone.id);
    for (const [i, { postId }] of result.entries()) {
      if (entered.get(postId) === 'QUEUE')
        await this.deps.queue.enqueue({ postId, runAt: new Date(publishAtOf.get(channels[i]!.id)!), provider: channels[i]!.provider });
      else await this.deps.queue.remove(postId);
    }
    if (newCount > 0) await this.warnNearPostQuota(access, now);
    return result;
  }

  /**
   * Creates many requests' posts at once (a bulk import's batch), each as POST /posts creates
   * it, in one transaction whose statements write every post of the batch together
   * (`PostTransitions.writeMany`): the same checks, quota, states, events and approvals. Neither
   * `group` nor `queue` (whose slots are taken a request at a time): those go through `create`.
   * All or nothing: one refusal (a channel disabled meanwhile, the plan's quota) refuses the
   * batch. `withinWrite` keeps what the caller records of it in the same transaction. Each
   * request's posts, in order.
   */
  async createBatch(
    access: WorkspaceAccess,
    inputs: readonly CreatePostsInput[],
    withinWrite: WithinWrite<CreatedPost[][]>,
  ): Promise<CreatedPost[][]> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const stamp = now.toISOString();
    const workspaceId = access.workspace.id;
    const author = authorOf(access);
    const compositions: Composition[] = [];
    const result: CreatedPost[][] = [];
    const providers: string[] = [];
    for (const [n, input] of inputs.entries()) {
      if (input.group !== undefined || input.type === 'queue') throw new Error('createBatch takes neither a group nor the queue');
      // The checks read the database (synchronously on SQLite): a turn of the event loop now and then lets other requests in.
      if (n > 0 && n % BATCH_CHECKS_PER_TURN === 0) await setImmediate();
      await this.authorizeCreate(access, input);
      const publishAt = this.publishDate(input, now);
      const channels = await this.resolveChannels(access, input);
      const media = await this.resolveMedia(
        workspaceId,
        input.posts.map((item, i) => ({ where: `posts[${i}]`, value: item.value })),
      );
      const groupId = newId();
      result.push(channels.map((channel) => ({ postId: '', integration: channel.id, group: groupId })));
      for (const [i, item] of input.posts.entries()) {
        const channel = channels[i]!;
        providers.push(channel.provider);
        compositions.push(
          composition({
            workspaceId,
            groupId,
            channelId: channel.id,
            provider: channel.provider,
            state: input.type === 'draft' ? 'DRAFT' : 'QUEUE',
            publishAt,
            settings: item.settings,
            tags: input.tags,
            shortLink: input.shortLink,
            thread: sentThread(item.value),
            media,
            author,
          }),
        );
      }
    }
    const written = await db.transaction().execute(async (trx) => {
      await this.checkPostQuota(trx, access, compositions.length, now);
      const posts = await this.transitions.writeMany(trx, compositions, stamp);
      let n = 0;
      for (const created of result) for (const item of created) item.postId = posts[n++]!.id;
      await withinWrite(trx, result);
      return posts;
    });
    for (const [i, post] of written.entries())
      if (post.state === 'QUEUE')
        await this.deps.queue.enqueue({ postId: post.id, runAt: new Date(compositions[i]!.post.publish_at), provider: providers[i]! });
    if (compositions.length > 0) await this.warnNearPostQuota(access, now);
    return result;
  }

  /**
   * Every check POST /posts makes of `input` before it writes (scopes, channels, dates, settings,
   * media), writing nothing: what a bulk import's dry run runs on each row. The channels, in order.
   */
  async checkCreate(access: WorkspaceAccess, input: CreatePostsInput): Promise<Channel[]> {
    await this.authorizeCreate(access, input);
    this.publishDate(input, this.deps.clock.now());
    const channels = await this.resolveChannels(access, input);
    await this.resolveMedia(
      access.workspace.id,
      input.posts.map((item, i) => ({ where: `posts[${i}]`, value: item.value })),
    );
    return channels;
  }

  /**
   * Checks the items of a composition as POST /posts would, without writing anything: each
   * channel visible to the key, enabled, of the right platform, with valid settings, and every
   * image a file of the library. A recurring series' template is checked this way. The channels, in order.
   */
  async checkComposition(access: WorkspaceAccess, posts: CreatePostsInput['posts']): Promise<Channel[]> {
    const input = { type: 'schedule', posts } as CreatePostsInput;
    for (const [i, item] of posts.entries()) await this.channelFor(access, item.integration.id, `posts[${i}]`);
    const channels = await this.resolveChannels(access, input);
    await this.resolveMedia(
      access.workspace.id,
      posts.map((item, i) => ({ where: `posts[${i}]`, value: item.value })),
    );
    return channels;
  }

  /** The publish time the request gives (for `queue`, now: each post's slot is taken when it is written). */
  private publishDate(input: Pick<CreatePostsInput, 'type' | 'date'>, now: Date): string {
    if (input.type === 'now' || input.type === 'queue') return now.toISOString();
    if (input.date === undefined) {
      throw new BadRequestError(`date: required for type "${input.type}"; only type "queue" takes its date from the channel's schedule.`, {
        code: 'date_required',
      });
    }
    const date = new Date(input.date);
    if (input.type === 'schedule') {
      if (date.getTime() < now.getTime() - SCHEDULE_GRACE_MS) {
        throw new BadRequestError(`The date ${date.toISOString()} is in the past; schedule for a later time or use type "now".`, {
          code: 'date_in_past',
        });
      }
      checkScheduleHorizon(date, now);
    }
    return date.toISOString();
  }

  /** Every channel named must be this workspace's, allowed to the key, enabled, and of the right platform. */
  private async resolveChannels(access: WorkspaceAccess, input: CreatePostsInput): Promise<Channel[]> {
    const seen = new Set<string>();
    const channels: Channel[] = [];
    for (const [i, item] of input.posts.entries()) {
      const where = `posts[${i}]`;
      const id = item.integration.id;
      if (seen.has(id)) throw new BadRequestError(`${where}.integration.id: channel ${id} appears twice; send one item per channel.`);
      seen.add(id);
      channels.push(await this.usableChannel(access, id, where, item.settings));
    }
    return channels;
  }

  /**
   * A channel of this workspace the key may post to, enabled, of a platform this server has,
   * taking `settings`; what is wrong is named at `where` (the request's item, or '' for the post itself).
   */
  private async usableChannel(
    access: WorkspaceAccess,
    id: string,
    where: string,
    settings: Record<string, unknown> | undefined,
  ): Promise<Channel> {
    const channel = await this.channelFor(access, id, where);
    if (channel.disabled) {
      const why = channel.disabledReason === 'needs_reconnect' ? 'it needs reconnecting' : 'it is disabled';
      throw new BadRequestError(`${at(where, 'integration.id')}: channel "${channel.name}" cannot post: ${why}.`, {
        code: 'channel_disabled',
      });
    }
    if (!isProviderIdentifier(channel.provider))
      throw new BadRequestError(`${where || 'The post'}: the channel's platform "${channel.provider}" is not available on this server.`);
    const type = settings?.__type;
    if (type !== undefined && type !== channel.provider) {
      throw new BadRequestError(
        `${at(where, 'settings.__type')}: "${String(type)}" does not match the channel's platform "${channel.provider}".`,
      );
    }
    const problems = checkSettingsTypes(getProvider(channel.provider), settings ?? {});
    if (problems.length > 0) throw new BadRequestError(problems.map((problem) => at(where, problem)).join('; '));
    return channel;
  }

  /** Every image must name a file of this workspace's library by its `path`; an `id` sent with it is the client's own and is not used. */
  private async resolveMedia(workspaceId: string, items: Array<{ where: string; value: Array<{ image: Array<{ path: string }> }> }>) {
    const paths = items.flatMap((item) => item.value.flatMap((value) => value.image.map((image) => image.path)));
    const found = paths.length ? await this.deps.media.findByPaths(workspaceId, [...new Set(paths)]) : new Map();
    for (const item of items)
      item.value.forEach((value, j) =>
        value.image.forEach((image, k) => {
          if (!found.get(image.path))
            throw new BadRequestError(
              `${at(item.where, `value[${j}].image[${k}]`)}: ${image.path} is not a file of this workspace's media library; upload it first (POST /upload) and use the path it returns.`,
            );
        }),
      );
    return found;
  }

  private async editableGroup(workspaceId: string, groupId: string): Promise<PostRow[]> {
    const posts = await repo.listGroupPosts(this.deps.db, workspaceId, groupId);
    if (posts.length === 0) throw new NotFoundError(`No group ${groupId} in this workspace.`);
    this.transitions.checkEditable(posts);
    return posts;
  }

  /** Counts within the creating transaction, the workspace locked, so concurrent requests cannot overshoot. */
  private async checkPostQuota(trx: Transaction<Database>, access: WorkspaceAccess, adding: number, now: Date): Promise<void> {
    const limit = access.workspace.plan.postsPerMonth;
    if (limit === null || adding === 0) return;
    await lockWorkspace(trx, access.workspace.id);
    const { n } = await repo.countPostsCreatedSince(trx, access.workspace.id, monthStart(now));
    if (Number(n) + adding > limit) {
      throw new PaymentRequiredError(
        `The plan allows ${limit} posts a month (UTC); ${Number(n)} are used and this request adds ${adding}. Remove channels from the request or wait for next month.`,
        { code: 'quota_posts' },
      );
    }
  }

  private async warnNearPostQuota(access: WorkspaceAccess, now: Date): Promise<void> {
    const limit = access.workspace.plan.postsPerMonth;
    if (limit === null || limit === 0) return;
    const { n } = await repo.countPostsCreatedSince(this.deps.db, access.workspace.id, monthStart(now));
    const used = Number(n);
    const month = monthStart(now).slice(0, 7);
    if (used >= limit) {
      await this.deps.notifications.notify(access.workspace.id, {
        kind: 'limit_warning',
        message: `All ${limit} posts of this month's plan are used; new posts are refused until ${month} ends.`,
        dedupeKey: `posts-${month}-100`,
      });
    } else if (used >= Math.ceil(limit * WARN_AT)) {
      await this.deps.notifications.notify(access.workspace.id, {
        kind: 'limit_warning',
        message: `${used} of the ${limit} posts this month's plan allows are used.`,
        dedupeKey: `posts-${month}-80`,
      });
    }
  }

  /**
   * A page of the calendar, oldest first: at most `limit` posts (`POSTS_PAGE_MAX` when not
   * given), and a `nextCursor` when the window holds more. Read in batches of
   * `POSTS_READ_BATCH`, yielding to the event loop between them: the embedded database runs on
   * it, so no request may hold it for long.
   */
  async list(
    access: WorkspaceAccess,
    query: {
      startDate: string;
      endDate: string;
      customer?: string | undefined;
      limit?: number | undefined;
      cursor?: string | undefined;
      fields?: string | undefined;
    },
  ): Promise<{ posts: Array<Partial<PostRecord>>; nextCursor: string | null }> {
    requireScope(access, 'posts:read');
    const { start, end } = dateWindow(query);
    if (query.customer !== undefined) await this.ensureGroup(access.workspace.id, query.customer);
    const pageSize = Math.min(query.limit ?? POSTS_PAGE_MAX, POSTS_PAGE_MAX);
    let after = query.cursor === undefined ? null : decodeCalendarCursor(query.cursor);
    const fields = parsePostFields(query.fields);
    // A calendar that shows no content has no use for the posts' parts.
    const withParts = !fields || fields.includes('content') || fields.includes('value');
    const posts: Array<Partial<PostRecord>> = [];
    let bytes = 0;
    for (;;) {
      const want = Math.min(POSTS_READ_BATCH, pageSize - posts.length);
      // One row more than wanted says whether anything follows.
      const rows = await repo.listPostsInWindow(this.deps.db, access.workspace.id, {
        from: start,
        to: end,
        groupId: query.customer,
        channelIds: access.channelIds,
        after,
        limit: want + 1,
      });
      const batch = rows.slice(0, want);
      const parts = withParts
        ? await repo.listParts(
            this.deps.db,
            batch.map((p) => p.id),
          )
        : [];
      const stepsOf =
        !fields || fields.includes('approvals')
          ? await approvalSteps(
              this.deps.db,
              batch.map((p) => p.id),
            )
          : null;
      const partsOf = new Map<string, PartRow[]>();
      for (const part of parts) {
        const list = partsOf.get(part.post_id);
        if (list) list.push(part);
        else partsOf.set(part.post_id, [part]);
      }
      for (const [i, row] of batch.entries()) {
        const own = partsOf.get(row.id) ?? [];
        const record = toPostRecord(row, own, row.provider, stepsOf ? (stepsOf.get(row.id) ?? []) : undefined);
        posts.push(fields ? pickFields(record, fields) : record);
        bytes += own.reduce((sum, part) => sum + part.content.length + part.images.length, 0);
        const more = i < batch.length - 1 || rows.length > want;
        // Large posts end a page early, so an answer stays a few megabytes whatever the posts hold.
        if (more && bytes >= POSTS_PAGE_BYTES)
          return { posts, nextCursor: encodeCalendarCursor({ publishAt: row.publish_at, id: row.id }) };
      }
      const last = batch.at(-1);
      if (rows.length <= want || !last) return { posts, nextCursor: null };
      after = { publishAt: last.publish_at, id: last.id };
      if (posts.length >= pageSize) return { posts, nextCursor: encodeCalendarCursor(after) };
      await setImmediate();
    }
  }

  private async ensureGroup(workspaceId: string, groupId: string): Promise<void> {
    if (!(await findGroup(this.deps.db, workspaceId, groupId))) throw new NotFoundError(`No client group ${groupId} in this workspace.`);
  }

  /** A post of this workspace (and, for a channel-limited key, of its channels); anything else is "not found". */
  private async find(access: WorkspaceAccess, id: string): Promise<PostRow> {
    const post = await repo.findPost(this.deps.db, access.workspace.id, id);
    if (!post || !mayUseChannel(access, post.channel_id)) throw new NotFoundError(`No post ${id} in this workspace.`);
    return post;
  }

  async get(access: WorkspaceAccess, id: string): Promise<PostRecord> {
    requireScope(access, 'posts:read');
    const post = await this.find(access, id);
    return this.record(post);
  }

  /** A post of this workspace the key may see, as stored; anything else is "not found" (for the approvals). */
  async findVisible(access: WorkspaceAccess, id: string): Promise<PostRow> {
    return this.find(access, id);
  }

  /** A post as it stands inside a write's transaction, as the API shows it; `provider` is its channel's platform, read before. */
  async recordIn(trx: Executor, workspaceId: string, id: string, provider: string): Promise<PostRecord> {
    const post = await repo.findPost(trx, workspaceId, id);
    if (!post) throw new NotFoundError(`No post ${id} in this workspace.`);
    const steps = await approvalSteps(trx, [id]);
    return toPostRecord(post, await repo.listParts(trx, [id]), provider, steps.get(id) ?? []);
  }

  /** A post as the API shows it, with its approval steps. */
  async record(post: PostRow): Promise<PostRecord> {
    const parts = await repo.listParts(this.deps.db, [post.id]);
    // A deleted channel's posts stay readable, under its id and platform.
    const channel = await this.deps.channels.getAnyState(post.workspace_id, post.channel_id);
    if (!channel) throw new NotFoundError(`No post ${post.id} in this workspace.`);
    const steps = await approvalSteps(this.deps.db, [post.id]);
    return toPostRecord(post, parts, channel.provider, steps.get(post.id) ?? []);
  }

  /**
   * draft ↔ schedule, and nothing else. Asking for the state a post is already in changes nothing
   * (a post awaiting approval counts as scheduled: only an approver moves it on).
   */
  async changeStatus(access: WorkspaceAccess, id: string, status: 'draft' | 'schedule'): Promise<PostRecord> {
    requireScope(access, 'posts:draft');
    const { db, clock, queue } = this.deps;
    const post = await this.find(access, id);
    const now = clock.now();
    const scheduled = post.state === 'QUEUE' || post.state === 'AWAITING_APPROVAL';
    if (status === 'schedule' ? scheduled : post.state === 'DRAFT') return this.record(post);
    // Either way a post enters or leaves the queue: the publisher's scope (or the approval's wait), whatever surface asks.
    await this.requireScheduling(access);
    if (status === 'schedule') {
      if (post.state !== 'DRAFT') throw refusal(post.state, id, 'scheduled');
      if (Date.parse(post.publish_at) < now.getTime() - SCHEDULE_GRACE_MS) {
        throw new BadRequestError(
          `The post's date ${post.publish_at} is in the past; change the date (PATCH /posts/:id with a later \`date\`) before scheduling it.`,
          { code: 'date_in_past' },
        );
      }
      checkScheduleHorizon(new Date(post.publish_at), now);
      const channel = await this.deps.channels.forPosts(post.workspace_id, post.channel_id);
      if (channel.disabled)
        throw new BadRequestError(`Channel "${channel.name}" cannot post right now; reconnect it first.`, { code: 'channel_disabled' });
      if ((await this.transitions.schedule(post, authorOf(access))) === 'QUEUE')
        await queue.enqueue({ postId: id, runAt: new Date(post.publish_at), provider: channel.provider });
    } else {
      if (!scheduled) throw refusal(post.state, id, 'moved to draft');
      await this.transitions.unschedule(post);
      await queue.remove(id);
    }
    return this.record((await repo.findPost(db, access.workspace.id, id))!);
  }

  /**
   * Edits one post in place (PATCH /posts/:id): each field given replaces the post's, the rest
   * stays. The rules of an edit through its group (POST /posts with `group`) apply: scopes, the
   * channel's state, the post's state (see `PostTransitions.write`), idempotency keys.
   */
  async update(access: WorkspaceAccess, id: string, input: UpdatePostInput, idempotencyKey?: string): Promise<PostRecord> {
    return this.edit(access, id, { ...input, settingsMode: 'merge' }, idempotencyKey);
  }

  /** Replaces one post as a whole (PUT /posts/:id): `update` with every field given, the settings replaced rather than merged. */
  async replace(access: WorkspaceAccess, id: string, input: ReplacePostInput, idempotencyKey?: string): Promise<PostRecord> {
    return this.edit(access, id, { ...input, settings: input.settings ?? {}, settingsMode: 'replace' }, idempotencyKey);
  }

  private async edit(access: WorkspaceAccess, id: string, change: PostChange, idempotencyKey: string | undefined): Promise<PostRecord> {
    requireScope(access, 'posts:draft');
    const post = await this.find(access, id);
    if (change.value !== undefined && (change.content !== undefined || change.image !== undefined || change.comments !== undefined)) {
      throw new BadRequestError(
        'value: send the whole thread as `value`, or change parts of it with `content`, `image` and `comments`; not both.',
      );
    }
    if (Object.entries(change).every(([field, value]) => field === 'settingsMode' || value === undefined)) {
      throw new BadRequestError(
        'Nothing to change: send at least one of type, date, content, image, comments, value, settings, tags and shortLink.',
        { code: 'nothing_to_change' },
      );
    }
    // Left out, a draft stays a draft and a scheduled post stays in the queue; a failed one becomes a draft.
    const waiting = post.state === 'QUEUE' || post.state === 'AWAITING_APPROVAL';
    const type = change.type ?? (waiting ? 'schedule' : 'draft');
    // As in POST /posts with the group: entering the queue, staying in it or leaving it takes the publisher's scope.
    if (type !== 'draft' || waiting) await this.requireScheduling(access);
    return this.idempotent(
      access,
      idempotencyKey,
      () =>
        createHash('sha256')
          .update(JSON.stringify(['edit', id, change]))
          .digest('hex'),
      (withinWrite) => this.editOnce(access, post, type, change, withinWrite),
    );
  }

  private async editOnce(
    access: WorkspaceAccess,
    post: PostRow,
    type: CreatePostsInput['type'],
    change: PostChange,
    withinWrite?: WithinWrite<PostRecord>,
  ): Promise<PostRecord> {
    // Checked here rather than before the key is taken: a retry of an edit that published the post is answered, not refused.
    this.transitions.checkEditable([post]);
    const { db, clock } = this.deps;
    const now = clock.now();
    const publishAt = this.publishDate({ type, date: change.date ?? post.publish_at }, now);
    const settings = editedSettings(parseJsonOr<Record<string, unknown>>(post.settings, {}), change);
    const channel = await this.usableChannel(access, post.channel_id, '', settings);
    const thread = editedThread(await repo.listParts(db, [post.id]), change);
    const media = await this.resolveMedia(post.workspace_id, [{ where: '', value: thread }]);
    const state = type === 'draft' ? 'DRAFT' : 'QUEUE';
    const stamp = now.toISOString();
    const record = await db.transaction().execute(async (trx) => {
      const written = await this.transitions.write(
        trx,
        post,
        composition({
          workspaceId: post.workspace_id,
          groupId: post.group_id,
          channelId: post.channel_id,
          provider: channel.provider,
          state,
          publishAt,
          settings,
          tags: change.tags ?? parseJsonOr<string[]>(post.tags, []),
          shortLink: change.shortLink ?? Number(post.short_link) === 1,
          thread,
          media,
          author: authorOf(access),
        }),
        stamp,
        // Merged with what was read: refused if another edit landed since.
        { version: Number(post.version) },
      );
      const shown = toPostRecord(
        (await repo.findPost(trx, post.workspace_id, post.id))!,
        await repo.listParts(trx, [post.id]),
        channel.provider,
        (await approvalSteps(trx, [post.id])).get(post.id) ?? [],
      );
      await withinWrite?.(trx, shown);
      return { shown, state: written.state };
    });
    if (record.state === 'QUEUE')
      await this.deps.queue.enqueue({ postId: post.id, runAt: new Date(publishAt), provider: channel.provider });
    else await this.deps.queue.remove(post.id);
    return record.shown;
  }

  async setReleaseId(access: WorkspaceAccess, id: string, releaseId: string, releaseUrl: string | undefined): Promise<PostRecord> {
    requireScope(access, 'posts:publish');
    const post = await this.find(access, id);
    await this.transitions.setRelease(post, releaseId, releaseUrl);
    return this.record((await repo.findPost(this.deps.db, access.workspace.id, id))!);
  }

  /** Removes posts from the calendar and stops their scheduling; nothing is deleted from a platform. */
  async delete(access: WorkspaceAccess, id: string): Promise<{ deleted: number; ids: string[] }> {
    requireScope(access, 'posts:draft');
    const post = await this.find(access, id);
    return this.remove([post]);
  }

  async deleteGroup(access: WorkspaceAccess, groupId: string): Promise<{ deleted: number; ids: string[] }> {
    requireScope(access, 'posts:draft');
    const posts = (await repo.listGroupPosts(this.deps.db, access.workspace.id, groupId)).filter((p) =>
      mayUseChannel(access, p.channel_id),
    );
    if (posts.length === 0) throw new NotFoundError(`No group ${groupId} in this workspace.`);
    return this.remove(posts);
  }

  private async remove(posts: PostRow[]): Promise<{ deleted: number; ids: string[] }> {
    await this.transitions.remove(posts);
    for (const post of posts) await this.deps.queue.remove(post.id);
    return { deleted: posts.length, ids: posts.map((p) => p.id) };
  }

  /**
   * What publishing a thread on a channel would lack right now (the readiness check of GET
   * /posts/:id/missing and of the engine): each entry names the field and the reason.
   */
  async readiness(
    workspaceId: string,
    channelId: string,
    settings: Record<string, unknown>,
    parts: Array<{ idx: number; content: string; images: Array<{ id?: string; path: string }> }>,
  ): Promise<Array<{ field: string; reason: string }>> {
    const { channel, config } = await this.deps.channels.withConfig(workspaceId, channelId);
    const provider = getProvider(channel.provider);
    const paths = [...new Set(parts.flatMap((p) => p.images.map((i) => i.path)))];
    const files = paths.length ? await this.deps.media.findByPaths(workspaceId, paths) : new Map();
    const media = new Map([...files].map(([path, file]) => [path, describeMedia(file)]));
    return checkReadiness({
      provider,
      channel,
      config,
      platformApps: this.deps.channels.platformApps,
      // As the engine will: the channel's preferred settings fill in what the post leaves out.
      settings: { ...channel.preferredSettings, ...settings },
      parts,
      media,
    });
  }

  /**
   * A thread's text as each channel's platform receives it and its length as the platform counts
   * it, against the channel's limit: the conversion and count the readiness check and the publish
   * use. Each platform converts once, with a turn of the event loop between conversions.
   */
  async measure(access: WorkspaceAccess, input: MeasureInput): Promise<TextMeasure> {
    requireScope(access, 'posts:read');
    const opened = [];
    for (const id of input.integrations) {
      if (!mayUseChannel(access, id)) throw new NotFoundError(`No channel ${id} in this workspace.`);
      opened.push(await this.deps.channels.withConfig(access.workspace.id, id));
    }
    const html = input.value.map((part) => postContentToHtml(part.content));
    const measured = new Map<string, Array<{ text: string; length: number }>>();
    const channels: TextMeasure['channels'] = [];
    for (const { channel, config } of opened) {
      const provider = getProvider(channel.provider);
      let parts = measured.get(provider.identifier);
      if (!parts) {
        parts = [];
        for (const content of html) {
          // A turn of the event loop between conversions: a long text on a platform that counts graphemes takes a while.
          if (measured.size > 0 || parts.length > 0) await setImmediate();
          parts.push(measureText(provider, content));
        }
        measured.set(provider.identifier, parts);
      }
      const settings = { ...channel.preferredSettings, ...input.settings?.[channel.id] };
      channels.push({
        integration: channel.id,
        identifier: provider.identifier,
        unit: provider.textLimit.unit,
        parts: parts.map(({ text, length }, part) => {
          const { max } = textLimitOf(provider, { settings, config, part });
          return { length, max, over: length > max, ...(input.withText && { text }) };
        }),
      });
    }
    return { channels };
  }

  /** What publishing this post would lack right now; empty when it is ready. */
  async missing(access: WorkspaceAccess, id: string): Promise<MissingReport> {
    requireScope(access, 'posts:read');
    const post = await this.find(access, id);
    await this.deps.channels.forPosts(post.workspace_id, post.channel_id);
    const parts = await repo.listParts(this.deps.db, [post.id]);
    const missing = await this.readiness(
      post.workspace_id,
      post.channel_id,
      parseJsonOr<Record<string, unknown>>(post.settings, {}),
      parts.map((p) => ({
        idx: Number(p.idx),
        content: p.content,
        images: parseJsonOr<Array<{ id?: string; path: string }>>(p.images, []),
      })),
    );
    return { postId: post.id, ready: missing.length === 0, missing };
  }
}
