import { createHash } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { ExpressionBuilder } from 'kysely';
import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import { storedPrincipal, type CredentialStanding } from '../auth/credential-standing.ts';
import type { Database, Db, Executor } from '../db/database.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { MediaService } from '../media/media.service.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { AppError, BadRequestError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { parseJsonOr } from '../lib/json.ts';
import { plainTextToHtml, postContentToHtml } from '../content/html.ts';
import { createPostsBody } from '../posts/posts.schema.ts';
import type { CreatePostsInput, PostsService } from '../posts/posts.service.ts';
import { importRowSchema, SYNC_ROWS, type CreateImportInput, type ImportError, type ImportRecord } from './imports.schema.ts';
import type { PostImportsTable } from './imports.table.ts';
import { csvRows, type ImportRows } from './imports.csv.ts';

/** The Markdown converter, loaded with the first Markdown row. */
let markdown: Promise<typeof import('marked')> | undefined;

/** Rows between two writes of an import's progress. */
const PROGRESS_EVERY = 50;

type Checked = { row: number; input: CreatePostsInput };
/** Files fetched by URL in one run of an import: each URL once, by its library path. */
type Fetched = Map<string, Promise<string>>;

/** A `|`-separated cell, or the array itself. */
const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : value.split('|')).map((v) => v.trim()).filter(Boolean);

/** Where an error of POST /posts (its message starts with the request's path) points in a row. */
function rowField(message: string): string {
  if (/^posts\[\d+\]\.integration/.test(message)) return 'channels';
  if (/^posts\[\d+\]\.value\[0\]\.image/.test(message)) return 'media';
  if (/^posts\[\d+\]\.value\[\d+\]/.test(message)) return 'comments';
  if (/^posts\[\d+\]\.settings/.test(message)) return 'settings';
  if (/date/i.test(message)) return 'date';
  return 'row';
}

/** A field of the request body POST /posts would check, as the row names it. */
function bodyField(path: ReadonlyArray<PropertyKey>): string {
  const [first, , third, fourth, fifth] = path.map(String);
  if (first === 'posts' && third === 'integration') return 'channels';
  if (first === 'posts' && third === 'settings') return ['settings', ...path.slice(3).map(String)].join('.');
  if (first === 'posts' && third === 'value') return fourth === '0' ? (fifth === 'image' ? 'media' : 'content') : 'comments';
  return first ?? 'row';
}

/** Posts one batch of an import creates together, about (a row's posts are never split). */
const BATCH_POSTS = 100;

/**
 * The rows from `from` created together: up to about `BATCH_POSTS` posts of consecutive rows
 * that are neither queued nor a group; a queued row is a batch of its own (it takes its slots alone).
 */
function nextBatch(good: readonly Checked[], from: number): Checked[] {
  const batch: Checked[] = [];
  let posts = 0;
  for (let i = from; i < good.length; i += 1) {
    const item = good[i]!;
    if (item.input.type === 'queue') return batch.length ? batch : [item];
    if (batch.length > 0 && posts + item.input.posts.length > BATCH_POSTS) break;
    batch.push(item);
    posts += item.input.posts.length;
  }
  return batch;
}

/** Another process took the import over while a batch was being written: the batch is rolled back. */
class LostImport extends Error {}

/** How long a process holds a running import without writing progress before another process may take it over. */
export const IMPORT_LEASE_MS = 2 * 60_000;

type Options = { dryRun: boolean; partial: boolean };
type Created = { row: number; postIds: string[]; group: string };

/**
 * Bulk import of posts: rows from CSV or JSON, each checked exactly as POST /posts checks a
 * request (and, for rows to schedule, by the readiness check of GET /posts/:id/missing), then
 * created through the posts service in batches of about `BATCH_POSTS` posts, each batch one
 * transaction with one insert statement per table (`PostsService.createBatch`). A row checked at
 * a time and a batch written at a time, with a turn of the event loop between them, so an import
 * of thousands never holds other requests; imports of more than `SYNC_ROWS` rows run in the
 * background, their progress stored and readable by id.
 *
 * A running import keeps its rows and its author's credential (not its secret) in its row and is
 * held by the process running it under a lease renewed with each write of progress; after a stop
 * (which frees it) or a crash (once the lease has run out) another process takes it over
 * (`resume`) and goes on where it was. A batch records the rows it created in its own transaction;
 * a row created alone (a queued row, or the rows of a refused batch) does so under an idempotency
 * key of the import and the row: either way a row created just before the stop is not created
 * twice. Before it writes (after a restart too), the import checks that its credential may still
 * create those posts (`#standing`), and stops otherwise.
 */
export class ImportsService {
  /** This process, as the runner of the imports it holds. */
  readonly #runner = newId();
  readonly #running = new Set<Promise<void>>();
  #stopping = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      posts: PostsService;
      credentials: CredentialStanding;
      media: MediaService;
      onBackgroundError?: (error: unknown) => void;
    },
  ) {}

  async create(access: WorkspaceAccess, input: CreateImportInput, idempotencyKey?: string): Promise<ImportRecord> {
    requireScope(access, 'posts:draft');
    const rows = await this.rowsOf(input);
    const { db, clock } = this.deps;
    const stamp = clock.now().toISOString();
    const hash = createHash('sha256')
      .update(JSON.stringify([rows, input.dryRun, input.partial]))
      .digest('hex');
    const row: PostImportsTable = {
      id: newId(),
      workspace_id: access.workspace.id,
      idempotency_key: idempotencyKey ?? null,
      request_hash: hash,
      dry_run: input.dryRun ? 1 : 0,
      partial: input.partial ? 1 : 0,
      status: 'running',
      total: rows.length,
      validated: 0,
      created: 0,
      errors: '[]',
      posts: '[]',
      created_at: stamp,
      updated_at: stamp,
      rows: JSON.stringify(rows),
      principal: storedPrincipal(access.principal),
      runner: this.#runner,
      lease_until: this.#leaseEnd(),
    };
    try {
      await db.insertInto('post_imports').values(row).execute();
    } catch (error) {
      if (!idempotencyKey || !isUniqueViolation(error)) throw error;
      const first = await db
        .selectFrom('post_imports')
        .selectAll()
        .where('workspace_id', '=', access.workspace.id)
        .where('idempotency_key', '=', idempotencyKey)
        .executeTakeFirst();
      if (!first) throw error;
      if (first.request_hash !== hash)
        throw new BadRequestError('This Idempotency-Key was already used with a different import; use a new key for a new import.', {
          code: 'idempotency_key_reused',
        });
      return this.record(first);
    }
    const work = this.#track(this.run(access, row.id, rows, input, new Map()));
    if (rows.length <= SYNC_ROWS) await work;
    else void work.catch((error: unknown) => this.#backgroundError(error));
    return this.get(access, row.id);
  }

  async get(access: WorkspaceAccess, id: string): Promise<ImportRecord> {
    requireScope(access, 'posts:read');
    const row = await this.deps.db
      .selectFrom('post_imports')
      .selectAll()
      .where('id', '=', id)
      .where('workspace_id', '=', access.workspace.id)
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`No import ${id} in this workspace.`);
    return this.record(row);
  }

  /** Takes over the imports left running by a process that stopped, or whose lease ran out, and goes on with them. Answers how many. */
  async resume(): Promise<number> {
    const { db } = this.deps;
    const now = this.deps.clock.now().toISOString();
    const free = (eb: ExpressionBuilder<Database, 'post_imports'>) =>
      eb.and([eb('status', '=', 'running'), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])]);
    const candidates = await db.selectFrom('post_imports').select('id').where(free).limit(100).execute();
    let taken = 0;
    for (const { id } of candidates) {
      if (this.#stopping) break;
      const claimed = await db
        .updateTable('post_imports')
        .set({ runner: this.#runner, lease_until: this.#leaseEnd() })
        .where('id', '=', id)
        .where(free)
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) continue;
      taken += 1;
      void this.#track(this.#goOn(id)).catch((error: unknown) => this.#backgroundError(error));
    }
    return taken;
  }

  /** Resumes imports now and then every `intervalMs` (at start, those a stopped process left). */
  start(options: { intervalMs: number }): void {
    if (this.#timer) return;
    this.#stopping = false;
    const sweep = () => void this.resume().catch((error: unknown) => this.#backgroundError(error));
    this.#timer = setInterval(sweep, options.intervalMs);
    this.#timer.unref();
    sweep();
  }

  /** Stops at the next row every import this process runs, leaving each free for another process to go on with; resolves when they have stopped. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#stopping = true;
    await Promise.allSettled([...this.#running]);
  }

  /** Resolves when the imports this process runs now have ended or stopped. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#running]);
  }

  #track(work: Promise<void>): Promise<void> {
    this.#running.add(work);
    void work.then(
      () => this.#running.delete(work),
      () => this.#running.delete(work),
    );
    return work;
  }

  #backgroundError(error: unknown): void {
    (this.deps.onBackgroundError ?? console.error)(error);
  }

  #leaseEnd(): string {
    return new Date(this.deps.clock.now().getTime() + IMPORT_LEASE_MS).toISOString();
  }

  /**
   * An import taken over: its author's credential as it stands now (see `#standing`), its rows,
   * and the rows already created (recorded with their batch, or, for a row created alone, under
   * its idempotency key).
   */
  async #goOn(id: string): Promise<void> {
    const row = await this.deps.db.selectFrom('post_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const rows = parseJsonOr<ImportRows | null>(row.rows, null);
    if (!rows || !row.principal) {
      await this.#stop(id, 'The import was stopped before it kept what is needed to go on.');
      return;
    }
    const done = new Map(parseJsonOr<Created[]>(row.posts, []).map((created) => [created.row, created]));
    const prefix = `import:${id}:`;
    const alone = await this.deps.db
      .selectFrom('idempotency_keys')
      .select(['key', 'response'])
      .where('workspace_id', '=', row.workspace_id)
      .where('key', 'like', `${prefix}%`)
      .where('response', 'is not', null)
      .execute();
    for (const kept of alone) {
      const n = Number(kept.key.slice(prefix.length));
      const created = parseJsonOr<Array<{ postId: string; group: string }>>(kept.response, []);
      if (Number.isInteger(n) && !done.has(n) && created.length)
        done.set(n, { row: n, postIds: created.map((c) => c.postId), group: created[0]!.group });
    }
    const started = JSON.parse(row.principal) as Principal;
    const left = rows.filter((_, i) => !done.has(i + 1));
    const access = await this.#standing(id, started, row.workspace_id, left);
    if (!access) return;
    await this.run(access, id, rows, { dryRun: Number(row.dry_run) === 1, partial: Number(row.partial) === 1 }, done, started);
  }

  /**
   * The access of the credential that started an import, as it stands now: checked after a
   * restart and before each batch of posts it creates. A key revoked, an app's access or a session
   * ended, a member removed or left without `posts:draft`, or a channel that `rows` name and the
   * credential could use at the start but no longer can: the import stops (`stopped`, with the
   * reason) and creates nothing more. Null then.
   */
  async #standing(
    id: string,
    started: Principal,
    workspaceId: string,
    rows: ReadonlyArray<Record<string, unknown>>,
    errors?: readonly ImportError[],
  ): Promise<WorkspaceAccess | null> {
    let access: WorkspaceAccess;
    try {
      access = await this.deps.credentials.access(started, workspaceId);
      requireScope(access, 'posts:draft');
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      await this.#stop(id, `The credential that started the import may no longer create posts here: ${error.message}`, errors);
      return null;
    }
    const couldUse = (channel: string) => started.channelIds === null || started.channelIds.includes(channel);
    const lost = new Set<string>();
    for (const raw of rows)
      for (const channel of list(
        typeof raw.channels === 'string' || Array.isArray(raw.channels) ? (raw.channels as string | string[]) : undefined,
      ))
        if (couldUse(channel) && !mayUseChannel(access, channel)) lost.add(channel);
    if (lost.size > 0) {
      await this.#stop(
        id,
        `The credential that started the import may no longer post to channel(s) ${[...lost].slice(0, 10).join(', ')}.`,
        errors,
      );
      return null;
    }
    return access;
  }

  /** Ends an import that may not go on: `stopped`, the reason as its last error after `known` (or those stored); the rows created so far stay. */
  async #stop(id: string, reason: string, known?: readonly ImportError[]): Promise<void> {
    const row = known ? undefined : await this.deps.db.selectFrom('post_imports').select('errors').where('id', '=', id).executeTakeFirst();
    const errors = known ? [...known] : parseJsonOr<ImportError[]>(row?.errors ?? null, []);
    errors.push({ row: 0, field: 'import', message: `${reason} Nothing more was created.` });
    await this.#finish(id, { status: 'stopped', errors: JSON.stringify(errors) });
  }

  /** The rows of the request: `rows` as given, or `csv` parsed (its header names the fields). */
  private async rowsOf(input: CreateImportInput): Promise<ImportRows> {
    if ((input.rows === undefined) === (input.csv === undefined))
      throw new BadRequestError('Give the rows either as `rows` (JSON) or as `csv` (text), one of the two.', { code: 'import_rows' });
    return input.rows ?? csvRows(input.csv!);
  }

  /**
   * Checks the rows, then (unless a dry run, or all or nothing with errors) creates the good ones.
   * `done` holds the rows created before a restart: not checked nor created again. Stops at the
   * next row, leaving the import to another process, when this process stops or loses the lease.
   */
  private async run(
    access: WorkspaceAccess,
    id: string,
    rows: ImportRows,
    options: Options,
    done: Map<number, Created>,
    started: Principal = access.principal,
  ): Promise<void> {
    const errors: ImportError[] = [];
    const good: Checked[] = [];
    const fetched: Fetched = new Map();
    for (const [i, raw] of rows.entries()) {
      if (this.#stopping) return this.#release(id);
      const checked = done.has(i + 1) ? null : await this.check(access, i + 1, raw, errors, fetched);
      if (checked) good.push(checked);
      if ((i + 1) % PROGRESS_EVERY === 0 && !(await this.update(id, { validated: i + 1, errors: JSON.stringify(errors) }))) return;
      await setImmediate();
    }
    if (!(await this.update(id, { validated: rows.length, errors: JSON.stringify(errors) }))) return;
    if (options.dryRun || (errors.length > 0 && !options.partial)) {
      await this.#finish(id, { status: errors.length > 0 ? 'invalid' : 'done' });
      return;
    }
    const posts = [...done.values()];
    let checked = -Infinity;
    for (let i = 0; i < good.length;) {
      if (this.#stopping) return this.#release(id);
      // The credential is checked again before writing, at most every PROGRESS_EVERY rows.
      if (i - checked >= PROGRESS_EVERY) {
        const left = good.slice(i).map((g) => rows[g.row - 1]!);
        const now = await this.#standing(id, started, access.workspace.id, left, errors);
        if (!now) return;
        access = now;
        checked = i;
      }
      const batch = nextBatch(good, i);
      i += batch.length;
      const outcome = await this.#create(access, id, batch, posts, errors);
      if (outcome === 'lost') return;
      if (outcome === 'refused') {
        await this.#stop(id, 'The credential that started the import was refused while creating posts.', errors);
        return;
      }
      await setImmediate();
    }
    posts.sort((a, b) => a.row - b.row);
    await this.#finish(id, {
      created: posts.length,
      posts: JSON.stringify(posts),
      errors: JSON.stringify(errors),
      status: errors.length > 0 ? 'invalid' : 'done',
    });
  }

  /**
   * Creates a batch of checked rows: together (`PostsService.createBatch`, the progress written in
   * the same transaction), or a row at a time when the batch is one queued row or the batch was
   * refused (each row then under its own idempotency key, its refusal reported by row). `lost`:
   * another process holds the import now; `refused`: the credential was refused (401/403).
   */
  async #create(
    access: WorkspaceAccess,
    id: string,
    batch: Checked[],
    posts: Created[],
    errors: ImportError[],
  ): Promise<'ok' | 'lost' | 'refused'> {
    if (batch.length > 1 || batch[0]!.input.type !== 'queue') {
      try {
        const created = await this.deps.posts.createBatch(
          access,
          batch.map((b) => b.input),
          async (trx, result) => {
            const next = [
              ...posts,
              ...result.map((items, k) => ({ row: batch[k]!.row, postIds: items.map((c) => c.postId), group: items[0]?.group ?? '' })),
            ];
            if (!(await this.update(id, { created: next.length, posts: JSON.stringify(next) }, trx))) throw new LostImport();
          },
        );
        for (const [k, items] of created.entries())
          posts.push({ row: batch[k]!.row, postIds: items.map((c) => c.postId), group: items[0]?.group ?? '' });
        return 'ok';
      } catch (error) {
        if (error instanceof LostImport) return 'lost';
        if (!(error instanceof AppError)) throw error;
        if (error.statusCode === 401 || error.statusCode === 403) return 'refused';
        // One row refused the batch: each row alone, so that the others are created and its refusal is named.
      }
    }
    for (const { row, input } of batch) {
      try {
        const created = await this.deps.posts.create(access, input, `import:${id}:${row}`);
        posts.push({ row, postIds: created.map((c) => c.postId), group: created[0]?.group ?? '' });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.statusCode === 401 || error.statusCode === 403) return 'refused';
        errors.push({ row, field: rowField(error.message), message: error.message });
      }
    }
    // Rows created alone are found again by their keys after a restart: their progress is written now and then.
    if (batch.length === 1 && posts.length % PROGRESS_EVERY !== 0) return 'ok';
    return (await this.update(id, { created: posts.length, posts: JSON.stringify(posts) })) ? 'ok' : 'lost';
  }

  /** One row checked as POST /posts would check it (and, to be scheduled, as GET /posts/:id/missing); its problems go to `errors`. */
  private async check(
    access: WorkspaceAccess,
    row: number,
    raw: Record<string, unknown>,
    errors: ImportError[],
    fetched: Fetched,
  ): Promise<Checked | null> {
    const parsed = importRowSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        errors.push({ row, field: issue.path.map(String).join('.') || 'row', message: issue.message });
      return null;
    }
    const r = parsed.data;
    const before = errors.length;
    const json = <T>(value: unknown, field: string): T | undefined => {
      if (typeof value !== 'string') return value as T | undefined;
      try {
        return JSON.parse(value) as T;
      } catch {
        errors.push({ row, field, message: `not JSON: ${value.slice(0, 80)}` });
        return undefined;
      }
    };
    const comments = json<Array<{ content: string; delay?: number }>>(r.comments, 'comments') ?? [];
    const media = await this.#libraryPaths(access, row, list(r.media), errors, fetched);
    const settings = json<Record<string, unknown>>(r.settings, 'settings');
    if (errors.length > before) return null;
    const html = async (text: string) => {
      if (r.format === 'markdown') {
        const { marked } = await (markdown ??= import('marked'));
        return (await marked.parse(text, { async: true, gfm: true })).trim();
      }
      return r.format === 'text' ? plainTextToHtml(text) : text;
    };
    const value = [
      { content: await html(r.content), image: media.map((path) => ({ path })) },
      ...(Array.isArray(comments) ? comments : []).map((c) => ({
        content: typeof c?.content === 'string' ? c.content : '',
        image: [],
        delay: c?.delay,
      })),
    ];
    const queue = r.date.trim().toLowerCase() === 'queue';
    const body = createPostsBody.safeParse({
      type: queue ? 'queue' : (r.type ?? 'schedule'),
      ...(!queue && { date: r.date }),
      tags: list(r.tags),
      posts: list(r.channels).map((id) => ({ integration: { id }, value, ...(settings && { settings }) })),
    });
    if (!body.success) {
      for (const issue of body.error.issues) errors.push({ row, field: bodyField(issue.path), message: issue.message });
      return null;
    }
    try {
      await this.deps.posts.checkCreate(access, body.data);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      errors.push({ row, field: rowField(error.message), message: error.message });
      return null;
    }
    if (body.data.type !== 'draft') {
      for (const item of body.data.posts) {
        const missing = await this.deps.posts.readiness(
          access.workspace.id,
          item.integration.id,
          item.settings ?? {},
          item.value.map((part, idx) => ({ idx, content: postContentToHtml(part.content), images: part.image })),
        );
        for (const m of missing) errors.push({ row, field: m.field, message: `channel ${item.integration.id}: ${m.reason}` });
      }
    }
    return errors.length > before ? null : { row, input: body.data };
  }

  /** Writes progress and renews the lease, if this process still holds the import; false when another has taken it over. */
  /**
   * The row's media as library paths: a path of the library as it is, any other http(s) URL fetched
   * through the guarded client into the library (as POST /upload-from-url; a dry run too, so that
   * its check of types and platform limits is the real one). Each URL is fetched once per run.
   */
  async #libraryPaths(access: WorkspaceAccess, row: number, media: string[], errors: ImportError[], fetched: Fetched): Promise<string[]> {
    const paths: string[] = [];
    for (const item of media) {
      if (this.deps.media.keyOf(item) !== null || !/^https?:\/\//i.test(item)) {
        paths.push(item);
        continue;
      }
      let path = fetched.get(item);
      if (!path) fetched.set(item, (path = this.deps.media.uploadFromUrl(access, item).then(({ media: file }) => file.path)));
      try {
        paths.push(await path);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        errors.push({ row, field: 'media', message: `${item.slice(0, 200)}: ${error.message}` });
      }
    }
    return paths;
  }

  private async update(id: string, changes: Partial<PostImportsTable>, db: Executor = this.deps.db): Promise<boolean> {
    const result = await db
      .updateTable('post_imports')
      .set({ ...changes, updated_at: this.deps.clock.now().toISOString(), lease_until: this.#leaseEnd() })
      .where('id', '=', id)
      .where('runner', '=', this.#runner)
      .where('status', '=', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** The import's outcome; what it kept to go on elsewhere is dropped. */
  async #finish(id: string, changes: Partial<PostImportsTable>): Promise<void> {
    await this.update(id, { ...changes, rows: null, principal: null });
    await this.#release(id);
  }

  /** Frees the import for another process at once (a stop), or after its outcome. */
  async #release(id: string): Promise<void> {
    await this.deps.db
      .updateTable('post_imports')
      .set({ runner: null, lease_until: null })
      .where('id', '=', id)
      .where('runner', '=', this.#runner)
      .execute();
  }

  private record(row: PostImportsTable): ImportRecord {
    return {
      id: row.id,
      status: row.status,
      dryRun: Number(row.dry_run) === 1,
      partial: Number(row.partial) === 1,
      total: Number(row.total),
      validated: Number(row.validated),
      created: Number(row.created),
      errors: parseJsonOr<ImportError[]>(row.errors, []),
      posts: parseJsonOr<ImportRecord['posts']>(row.posts, []),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
