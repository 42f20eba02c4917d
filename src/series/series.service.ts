import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { Db } from '../db/database.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { parseJsonOr } from '../lib/json.ts';
import type { MediaLookup } from '../posts/media-lookup.ts';
import { composition, type Author, type PostTransitions } from '../posts/post-transitions.ts';
import { isRole } from '../auth/scopes.ts';
import { listMembershipsOfUser } from '../workspaces/workspaces.repository.ts';
import { sentThread, type PostsService, type WithinWrite } from '../posts/posts.service.ts';
import type { JobQueue } from '../publishing/job-queue.ts';
import { canonicalTimeZone, WEEKDAYS } from '../schedules/slots.ts';
import { localMs, recurrence, ruleLine, type RepeatInput } from './recurrence.ts';
import * as repo from './series.repository.ts';
import {
  MISSED_WINDOW_MINUTES,
  SERIES_HORIZON_DAYS,
  type CreateSeriesInput,
  type SeriesRecord,
  type UpdateSeriesInput,
} from './series.schema.ts';
import type { PostSeriesTable } from './series.table.ts';

/** What a series stores of what it repeats: the items as given (content already HTML), and each channel's platform. */
type Template = {
  repeat: RepeatInput;
  posts: CreateSeriesInput['posts'];
  tags: string[];
  shortLink: boolean;
  providers: Record<string, string>;
};

const DAY_MS = 86_400_000;
/** Occurrences one pass writes at most for a series (each a post per channel), in one transaction. */
export const OCCURRENCES_PER_PASS = 50;
/** Passes one series gets per call; the engine's next sweep carries on. */
const PASSES_PER_CALL = 4;
/** Series one sweep writes ahead at most. */
const SERIES_PER_SWEEP = 100;
/** A series is written ahead again once less than this much of its horizon is left. */
const REFRESH_MS = DAY_MS;

export type SeriesDeps = {
  db: Db;
  clock: Clock;
  queue: JobQueue;
  transitions: PostTransitions;
  posts: PostsService;
  channels: ChannelsService;
  media: MediaLookup;
};

/** The first occurrence's local time in full, `YYYY-MM-DDTHH:MM:SS`. */
const fullLocal = (start: string) => (start.length === 16 ? `${start}:00` : start);

/** A weekly rule without days repeats on the start's day, a monthly one without a day on the start's day of the month. */
function withDefaults(repeat: RepeatInput): RepeatInput {
  const start = new Date(localMs(repeat.start));
  if (repeat.frequency === 'weekly' && !repeat.days?.length) return { ...repeat, days: [WEEKDAYS[start.getUTCDay()]!] };
  if (repeat.frequency === 'monthly' && repeat.monthDay === undefined) return { ...repeat, monthDay: start.getUTCDate() };
  return repeat;
}

/**
 * Recurring posts. A series repeats a composition by a rule in a time zone; its occurrences are
 * written as posts (through `PostTransitions`, like any post) up to `SERIES_HORIZON_DAYS` ahead,
 * at most `OCCURRENCES_PER_PASS` per transaction, by the request that creates or edits it and
 * then by the engine's sweep (`writeAheadDue`). Each occurrence is anchored to the rule: its time
 * never depends on when another went out. An edit of the series rewrites its future occurrences
 * (those a person edited or deleted alone stay as they are); deleting it removes them.
 */
export class SeriesService {
  constructor(private readonly deps: SeriesDeps) {}

  /**
   * Creates a series and writes its first occurrences. With an idempotency key, a retry of the
   * same request answers the same series (as it is then) and creates none: the key's answer is
   * stored in the transaction that stores the series. Every check runs before the key is read.
   */
  async create(access: WorkspaceAccess, input: CreateSeriesInput, idempotencyKey?: string): Promise<SeriesRecord> {
    requireScope(access, 'posts:publish');
    const now = this.deps.clock.now();
    const template = await this.template(access, input.repeat, input.posts, input.tags, input.shortLink);
    const columns = await this.ruleColumns(template.repeat, now);
    const { id } = await this.deps.posts.idempotent<{ id: string }>(
      access,
      idempotencyKey,
      () =>
        createHash('sha256')
          .update(JSON.stringify(['series', input]))
          .digest('hex'),
      (withinWrite) => this.createOnce(access, template, columns, now, withinWrite),
    );
    return this.get(access, id);
  }

  private async createOnce(
    access: WorkspaceAccess,
    template: Template,
    columns: Awaited<ReturnType<SeriesService['ruleColumns']>>,
    now: Date,
    withinWrite?: WithinWrite<{ id: string }>,
  ): Promise<{ id: string }> {
    const stamp = now.toISOString();
    const row: PostSeriesTable = {
      id: newId(),
      workspace_id: access.workspace.id,
      author_id: access.principal.userId,
      ...columns,
      template: JSON.stringify(template),
      materialised_until: stamp,
      skipped: 0,
      ended: 0,
      created_at: stamp,
      updated_at: stamp,
      deleted_at: null,
      version: 0,
    };
    const created = { id: row.id };
    await this.deps.db.transaction().execute(async (trx) => {
      await repo.insertSeries(trx, row);
      await withinWrite?.(trx, created);
    });
    // A crash after the insert leaves the writing ahead to the engine's sweep.
    await this.writeAhead(row.id);
    return created;
  }

  async list(access: WorkspaceAccess): Promise<{ series: SeriesRecord[] }> {
    requireScope(access, 'posts:read');
    const rows = await repo.listSeries(this.deps.db, access.workspace.id, 500);
    const now = this.deps.clock.now();
    const visible = rows.filter((row) => this.visible(access, row));
    return { series: await Promise.all(visible.map((row) => this.record(row, now))) };
  }

  async get(access: WorkspaceAccess, id: string): Promise<SeriesRecord> {
    requireScope(access, 'posts:read');
    return this.record(await this.find(access, id), this.deps.clock.now());
  }

  /**
   * Changes the series from now on: its future occurrences not yet published are rewritten from
   * the new rule and composition, except those a person edited or deleted on their own.
   * Occurrences already published, or due before now, stay as they are.
   */
  async update(access: WorkspaceAccess, id: string, input: UpdateSeriesInput): Promise<SeriesRecord> {
    requireScope(access, 'posts:publish');
    const { db, clock, queue, transitions } = this.deps;
    const row = await this.find(access, id);
    if (Object.values(input).every((value) => value === undefined))
      throw new BadRequestError('Nothing to change: send at least one of repeat, posts, tags and shortLink.', {
        code: 'nothing_to_change',
      });
    const current = parseJsonOr<Template>(row.template, {} as Template);
    const now = clock.now();
    const stamp = now.toISOString();
    const template = await this.template(
      access,
      input.repeat ?? current.repeat,
      input.posts ?? current.posts,
      input.tags ?? current.tags,
      input.shortLink ?? current.shortLink,
      input.posts === undefined ? current.providers : undefined,
    );
    const columns = await this.ruleColumns(template.repeat, now);
    const dropped = await db.transaction().execute(async (trx) => {
      const moved = await repo.updateSeriesAt(trx, row.id, Number(row.version), {
        ...columns,
        template: JSON.stringify(template),
        author_id: access.principal.userId,
        materialised_until: stamp,
        ended: 0,
        updated_at: stamp,
      });
      if (Number(moved.numUpdatedRows) !== 1)
        throw new ConflictError(`Series ${id} was changed by another request meanwhile; read it again and send the change again.`, {
          code: 'series_changed',
        });
      return transitions.dropOccurrences(trx, row.id, stamp, stamp, false);
    });
    for (const postId of dropped) await queue.remove(postId);
    await this.writeAhead(row.id);
    return this.get(access, id);
  }

  /** Stops the series: its future occurrences not yet published are removed (published ones stay). */
  async delete(access: WorkspaceAccess, id: string): Promise<{ id: string; removed: string[] }> {
    requireScope(access, 'posts:publish');
    const { db, clock, queue, transitions } = this.deps;
    const row = await this.find(access, id);
    const stamp = clock.now().toISOString();
    const removed = await db.transaction().execute(async (trx) => {
      const moved = await repo.updateSeriesAt(trx, row.id, Number(row.version), { deleted_at: stamp, updated_at: stamp });
      if (Number(moved.numUpdatedRows) !== 1)
        throw new ConflictError(`Series ${id} was changed by another request meanwhile; send the deletion again.`, {
          code: 'series_changed',
        });
      return transitions.dropOccurrences(trx, row.id, stamp, stamp, true);
    });
    for (const postId of removed) await queue.remove(postId);
    return { id, removed };
  }

  /**
   * Writes ahead the series whose written occurrences end within a day of the horizon, at most
   * `SERIES_PER_SWEEP` per call, yielding to the event loop between them: the engine's sweep
   * calls it. The posts written.
   */
  async writeAheadDue(): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() + SERIES_HORIZON_DAYS * DAY_MS - REFRESH_MS).toISOString();
    const due = await repo.listSeriesToWrite(this.deps.db, before, SERIES_PER_SWEEP);
    let written = 0;
    for (const { id } of due) {
      written += await this.writeAhead(id);
      await setImmediate();
    }
    return written;
  }

  /**
   * The series' author as the approval rule sees them: their role in the workspace now. One who
   * has left the workspace counts as a contributor, so a workspace that asks approval of
   * contributors' posts reviews what their series still writes.
   */
  async #author(row: PostSeriesTable): Promise<Author> {
    const [membership] = await listMembershipsOfUser(this.deps.db, row.author_id, row.workspace_id);
    return { userId: row.author_id, role: membership && isRole(membership.role) ? membership.role : 'contributor' };
  }

  /**
   * Writes the occurrences of series `id` from where it stopped up to the horizon, a pass of at
   * most `OCCURRENCES_PER_PASS` occurrences per transaction, `PASSES_PER_CALL` passes at most
   * (the next sweep carries on). Each pass moves the series' `materialised_until` at the version
   * it read, in the transaction that writes the posts, so two processes never write the same
   * occurrences. Occurrences more than the missed window in the past (the server was down) are
   * counted as skipped, not written. The posts written.
   */
  async writeAhead(id: string): Promise<number> {
    const { db, clock, queue, transitions, channels } = this.deps;
    let written = 0;
    for (let pass = 0; pass < PASSES_PER_CALL; pass++) {
      const row = await repo.findSeriesById(db, id);
      if (!row || Number(row.ended) === 1) return written;
      const now = clock.now();
      const horizon = new Date(now.getTime() + SERIES_HORIZON_DAYS * DAY_MS);
      const from = new Date(row.materialised_until);
      if (from.getTime() >= horizon.getTime()) return written;
      const rule = await recurrence(row.rule, row.starts_local, row.time_zone, row.until);
      const instants = rule.between(from, horizon, OCCURRENCES_PER_PASS);
      const complete = instants.length < OCCURRENCES_PER_PASS;
      const upTo = complete ? horizon : instants.at(-1)!;
      const missedBefore = now.getTime() - MISSED_WINDOW_MINUTES * 60_000;
      const due = instants.filter((instant) => instant.getTime() >= missedBefore);
      const template = parseJsonOr<Template>(row.template, {} as Template);
      const live = await Promise.all(template.posts.map(async (item) => ((await channels.isDeleted(item.integration.id)) ? null : item)));
      const paths = [...new Set(template.posts.flatMap((item) => item.value.flatMap((part) => part.image.map((image) => image.path))))];
      const media = paths.length ? await this.deps.media.findByPaths(row.workspace_id, paths) : new Map<string, { id: string }>();
      const stamp = now.toISOString();
      const author = await this.#author(row);
      const jobs = await db.transaction().execute(async (trx) => {
        const moved = await repo.updateSeriesAt(trx, row.id, Number(row.version), {
          materialised_until: upTo.toISOString(),
          skipped: Number(row.skipped) + instants.length - due.length,
          ended: rule.next(upTo) === null ? 1 : 0,
        });
        // Another process (or an edit of the series) came first: it writes these.
        if (Number(moved.numUpdatedRows) !== 1) return null;
        const exceptions = new Set(
          (await repo.listExceptions(trx, row.id, from.toISOString(), upTo.toISOString())).map(
            (e) => `${e.channel_id} ${new Date(e.occurrence_at!).toISOString()}`,
          ),
        );
        const out: Array<{ postId: string; runAt: Date; provider: string }> = [];
        for (const instant of due) {
          const at = instant.toISOString();
          const groupId = newId();
          for (const item of live) {
            if (!item || exceptions.has(`${item.integration.id} ${at}`)) continue;
            const provider = template.providers[item.integration.id] ?? '';
            const written = await transitions.write(
              trx,
              undefined,
              composition({
                workspaceId: row.workspace_id,
                groupId,
                channelId: item.integration.id,
                provider,
                state: 'QUEUE',
                publishAt: at,
                settings: item.settings,
                tags: template.tags,
                shortLink: template.shortLink,
                thread: item.value,
                media,
                author,
                series: { id: row.id, occurrenceAt: at },
              }),
              stamp,
            );
            // An occurrence waiting for approval is queued when it is approved.
            if (written.state === 'QUEUE') out.push({ postId: written.id, runAt: instant, provider });
          }
        }
        return out;
      });
      if (jobs === null) return written;
      for (const job of jobs) await queue.enqueue(job);
      written += jobs.length;
      if (complete) return written;
      await setImmediate();
    }
    return written;
  }

  /** The composition a series repeats, checked as POST /posts checks its items, with its rule's defaults filled in. */
  private async template(
    access: WorkspaceAccess,
    repeat: RepeatInput,
    posts: CreateSeriesInput['posts'],
    tags: string[],
    shortLink: boolean,
    providers?: Record<string, string>,
  ): Promise<Template> {
    const checked = providers ?? Object.fromEntries((await this.deps.posts.checkComposition(access, posts)).map((c) => [c.id, c.provider]));
    const zone = canonicalTimeZone(repeat.timeZone);
    if (!zone)
      throw new BadRequestError(`repeat.timeZone: "${repeat.timeZone}" is not an IANA time zone this server knows (e.g. Europe/Berlin).`, {
        code: 'invalid_time_zone',
      });
    const stored = posts.map((item) => ({
      ...item,
      value: sentThread(item.value).map((part, idx) => ({
        content: part.content,
        image: part.image.map(({ path }) => ({ path })),
        ...(idx > 0 && { delay: part.delay }),
      })),
    }));
    return { repeat: withDefaults({ ...repeat, timeZone: zone }), posts: stored, tags, shortLink, providers: checked };
  }

  /** The series' rule columns for `repeat`: refused when the rule cannot be read or has no occurrence after `now`. */
  private async ruleColumns(repeat: RepeatInput, now: Date) {
    const rule = ruleLine(repeat);
    const startsLocal = fullLocal(repeat.start);
    const until = repeat.until ? new Date(repeat.until).toISOString() : null;
    const parsed = await recurrence(rule, startsLocal, repeat.timeZone, until);
    if (parsed.next(now) === null)
      throw new BadRequestError('repeat: the rule has no occurrence after now; move `start` or `until` later, or raise `count`.', {
        code: 'series_empty',
      });
    return { rule, time_zone: repeat.timeZone, starts_local: startsLocal, until };
  }

  private visible(access: WorkspaceAccess, row: PostSeriesTable): boolean {
    const template = parseJsonOr<Template>(row.template, {} as Template);
    return template.posts.every((item) => mayUseChannel(access, item.integration.id));
  }

  /** A live series of this workspace whose every channel the key may use; anything else is "not found". */
  private async find(access: WorkspaceAccess, id: string): Promise<PostSeriesTable> {
    const row = await repo.findSeries(this.deps.db, access.workspace.id, id);
    if (!row || !this.visible(access, row)) throw new NotFoundError(`No series ${id} in this workspace.`);
    return row;
  }

  private async record(row: PostSeriesTable, now: Date): Promise<SeriesRecord> {
    const template = parseJsonOr<Template>(row.template, {} as Template);
    const rule = await recurrence(row.rule, row.starts_local, row.time_zone, row.until);
    const next = rule.next(now);
    return {
      id: row.id,
      repeat: template.repeat,
      rule: row.rule,
      posts: template.posts,
      tags: template.tags,
      shortLink: template.shortLink,
      nextOccurrence: next?.toISOString() ?? null,
      writtenUntil: row.materialised_until,
      skipped: Number(row.skipped),
      ended: next === null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
