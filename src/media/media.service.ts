import { randomBytes } from 'node:crypto';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { z } from 'zod';
import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { Db } from '../db/database.ts';
import { isUniqueViolation } from '../db/sql.ts';
import { AppError, BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { explainOutboundFailure, type OutboundClient } from '../net/outbound.ts';
import {
  ContentMeter,
  HEAD_BYTES,
  imageDimensions,
  mp4Facts,
  recogniseType,
  SNIFF_BYTES,
  TooLargeError,
  type AcceptedType,
  type Dimensions,
  type MediaKind,
} from './media-content.ts';
import { CompletenessCheck } from './completeness.ts';
import { isValidKey, type ByteRange, type MediaStore } from './media-store.ts';
import type { mediaSchema } from './media.schema.ts';
import * as repo from './media.repository.ts';

/** A file of a workspace's media library: what the API shows of it, and whose it is. */
export type Media = z.infer<typeof mediaSchema> & { workspaceId: string };

export type MediaLimits = {
  /** Largest image, in bytes (the API promises 10 MB). */
  maxImageBytes: number;
  /** Largest video, in bytes (the API promises 1 GB). */
  maxVideoBytes: number;
  /** Whole-download time limit for /upload-from-url. */
  fetchTimeoutMs: number;
};

export const DEFAULT_MEDIA_LIMITS: MediaLimits = { maxImageBytes: 10 * 1024 ** 2, maxVideoBytes: 1024 ** 3, fetchTimeoutMs: 120_000 };

/** What the media library asks of posts before deleting a file. */
export type MediaAttachments = {
  /** Ids of the workspace's posts, not yet published, that attach the file. */
  /** At most `limit` of them. */
  unpublishedPostsUsing(workspaceId: string, mediaId: string, limit: number): Promise<string[]>;
};

/** A file written to the store but not yet recorded; commit it or discard it. */
export type StagedUpload = {
  key: string;
  name: string;
  type: AcceptedType;
  size: number;
  sha256: string;
  dimensions: Dimensions | null;
  /** A video's length, from its movie header; null for images and videos Herald cannot read it from. */
  durationMs: number | null;
};

/** How many of the posts still using a file a refused delete names. */
export const IN_USE_LISTED = 100;

/** How deep the library listing reaches: page × pageSize stays within the newest this many files. */
export const MEDIA_LIST_DEPTH = 10_000;

export type MediaPage = { results: Media[]; page: number; pageSize: number; pages: number; total: number };

type Deps = {
  db: Db;
  clock: Clock;
  store: MediaStore;
  outbound: OutboundClient;
  baseUrl: string;
  limits?: MediaLimits;
  attachments: MediaAttachments;
  /** Where `media.uploaded` is written, with the file's row. */
  webhookOutbox: WebhookOutbox;
};

/** Strips what a name must not carry (folders, control characters) and bounds its length. */
export function cleanFileName(raw: string | undefined | null, fallback: string): string {
  const base = (raw ?? '').normalize('NFC').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const printable = base.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
  const chars = Array.from(printable);
  if (chars.length <= 200) return printable || fallback;
  const dot = printable.lastIndexOf('.');
  const extension = dot > 0 && printable.length - dot <= 10 ? printable.slice(dot) : '';
  return (
    Array.from(printable.slice(0, printable.length - extension.length))
      .slice(0, 200 - extension.length)
      .join('') + extension
  );
}

function asBuffer(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === 'string') return Buffer.from(chunk);
  throw new TypeError('Expected a byte stream');
}

function fileNameFromUrl(url: URL, contentDisposition: string | null): string | undefined {
  const star = contentDisposition && /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(contentDisposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]!.trim());
    } catch {
      // fall through to the plain form
    }
  }
  const plain = contentDisposition && /filename\s*=\s*"?([^";]+)"?/i.exec(contentDisposition);
  if (plain) return plain[1]!.trim();
  const last = url.pathname.split('/').filter(Boolean).pop();
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

export class MediaService {
  readonly limits: MediaLimits;
  readonly #prefix: string;

  constructor(private readonly deps: Deps) {
    this.limits = deps.limits ?? DEFAULT_MEDIA_LIMITS;
    this.#prefix = `${deps.baseUrl}/media/`;
  }

  /** The public URL of a stored object. */
  pathOf(key: string): string {
    return `${this.#prefix}${key}`;
  }

  /** The storage key behind a public URL, or null when the URL is not one of ours. */
  keyOf(path: string): string | null {
    if (!path.startsWith(this.#prefix)) return null;
    const key = path.slice(this.#prefix.length);
    return isValidKey(key) ? key : null;
  }

  limitFor(type: AcceptedType): number {
    return type.type === 'video' ? this.limits.maxVideoBytes : this.limits.maxImageBytes;
  }

  /** The largest upload any accepted type allows. */
  get maxBytes(): number {
    return Math.max(this.limits.maxImageBytes, this.limits.maxVideoBytes);
  }

  #toMedia(row: repo.MediaRow): Media {
    return {
      id: row.id,
      workspaceId: row.workspace_id,
      name: row.name,
      path: this.pathOf(row.storage_key),
      type: row.type as MediaKind,
      mimeType: row.mime_type,
      size: Number(row.size),
      width: row.width === null ? null : Number(row.width),
      height: row.height === null ? null : Number(row.height),
      durationMs: row.duration_ms === null || row.duration_ms === undefined ? null : Number(row.duration_ms),
      createdAt: row.created_at,
      uploadLinkId: row.upload_link_id,
    };
  }

  /**
   * Streams `source` into the store while it is hashed and its type is recognised from its
   * first bytes; it is never held whole in memory. A refused type is known before anything is
   * written; a file over its type's limit is cut off as soon as it passes it, and nothing is
   * kept. On failure `source` is left as it is (the caller drains or destroys it).
   */
  async stage(source: Readable, input: { name?: string | undefined; declaredSize?: number | undefined } = {}): Promise<StagedUpload> {
    const displayName = cleanFileName(input.name, 'upload');
    const iterator = source.iterator({ destroyOnReturn: false });
    try {
      const first: Buffer[] = [];
      let firstLength = 0;
      while (firstLength < SNIFF_BYTES) {
        const next = await iterator.next();
        if (next.done) break;
        const chunk = asBuffer(next.value);
        first.push(chunk);
        firstLength += chunk.length;
      }
      const type = await recogniseType(Buffer.concat(first), displayName);
      const limit = this.limitFor(type);
      if (input.declaredSize !== undefined && input.declaredSize > limit) throw new TooLargeError(displayName, type, limit);
      // Images keep their first megabyte for reading dimensions; a video's are read back by range.
      const meter = new ContentMeter(limit, () => new TooLargeError(displayName, type, limit), type.type === 'image' ? HEAD_BYTES : 0);
      const completeness = new CompletenessCheck(type);
      const key = `${randomBytes(1).toString('hex')}/${randomBytes(16).toString('hex')}.${type.extension}`;
      async function* metered() {
        for (const chunk of first) {
          meter.take(chunk);
          completeness.take(chunk);
          yield chunk;
        }
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          const chunk = asBuffer(next.value);
          meter.take(chunk);
          completeness.take(chunk);
          yield chunk;
        }
      }
      await this.deps.store.put(key, Readable.from(metered(), { objectMode: false, highWaterMark: 64 * 1024 }), {
        contentType: type.mimeType,
      });
      try {
        await completeness.check(displayName, (start, end) => this.#readRange(key, { start, end }));
      } catch (error) {
        await this.deps.store.delete(key).catch(() => {});
        throw error;
      }
      let dimensions: Dimensions | null = null;
      let durationMs: number | null = null;
      try {
        if (type.type === 'image') dimensions = imageDimensions(meter.head());
        else
          ({ dimensions, durationMs } = (await mp4Facts(meter.size, (start, end) => this.#readRange(key, { start, end }))) ?? {
            dimensions: null,
            durationMs: null,
          });
      } catch {
        dimensions = null;
      }
      const name = cleanFileName(input.name, `upload.${type.extension}`);
      return { key, name, type, size: meter.size, sha256: meter.digest(), dimensions, durationMs };
    } finally {
      await iterator.return?.();
    }
  }

  /** Drops a staged upload that will not be recorded. */
  async discard(staged: StagedUpload): Promise<void> {
    await this.deps.store.delete(staged.key);
  }

  /**
   * Records a staged upload. When the workspace already has the same content, that file is
   * the answer and the staged copy is removed: the unique index decides, so two identical
   * uploads racing each other still end with one row and one stored object.
   */
  async commit(
    workspaceId: string,
    staged: StagedUpload,
    options: { uploadLinkId?: string | null } = {},
  ): Promise<{ media: Media; created: boolean }> {
    const { db } = this.deps;
    const row: repo.MediaRow = {
      id: newId(),
      workspace_id: workspaceId,
      storage_key: staged.key,
      name: staged.name,
      type: staged.type.type,
      mime_type: staged.type.mimeType,
      size: staged.size,
      sha256: staged.sha256,
      width: staged.dimensions?.width ?? null,
      height: staged.dimensions?.height ?? null,
      duration_ms: staged.durationMs,
      upload_link_id: options.uploadLinkId ?? null,
      created_at: this.deps.clock.now().toISOString(),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.deps.webhookOutbox.recordWith(
          db,
          (trx) => repo.insertMedia(trx, row),
          () => [{ workspaceId, type: 'media.uploaded', subjectId: row.id }],
        );
        return { media: this.#toMedia(row), created: true };
      } catch (error) {
        if (!isUniqueViolation(error)) {
          await this.discard(staged).catch(() => {});
          throw error;
        }
      }
      const existing = await repo.findMediaBySha256(db, workspaceId, staged.sha256);
      if (existing) {
        await this.discard(staged);
        return { media: this.#toMedia(existing), created: false };
      }
      // The file that held this content was deleted in between: try to insert again.
    }
    await this.discard(staged);
    throw new ConflictError('The library changed while this file was being recorded; send it again.', { code: 'upload_conflict' });
  }

  /**
   * POST /upload for a caller: records what the caller staged, once its scope is checked (the
   * staged copy is dropped on a refusal). `commit` is the internal path (an upload link's page).
   */
  async commitFor(access: WorkspaceAccess, staged: StagedUpload): Promise<{ media: Media; created: boolean }> {
    try {
      requireScope(access, 'media:write');
    } catch (error) {
      await this.discard(staged);
      throw error;
    }
    return this.commit(access.workspace.id, staged);
  }

  /** Stages and commits in one go. */
  async upload(workspaceId: string, source: Readable, input: { name?: string; uploadLinkId?: string | null } = {}) {
    const staged = await this.stage(source, { name: input.name });
    return this.commit(workspaceId, staged, { uploadLinkId: input.uploadLinkId ?? null });
  }

  /**
   * Fetches a public http(s) URL through the outbound guard and adds it like an upload.
   * Refused addresses are a 400 naming the reason; a source that fails or stalls is a 400
   * or 502 with a sentence saying what happened, within `fetchTimeoutMs`.
   */
  async uploadFromUrl(access: WorkspaceAccess, rawUrl: string): Promise<{ media: Media; created: boolean }> {
    requireScope(access, 'media:write');
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new BadRequestError(`"${rawUrl.slice(0, 200)}" is not a valid URL.`, { code: 'invalid_url' });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new BadRequestError('Only http and https URLs can be fetched.', { code: 'invalid_url' });
    const what = `the URL (${url.host})`;
    const timeoutMs = this.limits.fetchTimeoutMs;
    let response: Response;
    try {
      response = await this.deps.outbound.fetch(url, {
        timeoutMs,
        headers: { accept: 'image/*, video/mp4;q=0.9, */*;q=0.1', 'user-agent': 'Herald media library (+upload-from-url)' },
      });
    } catch (error) {
      throw explainOutboundFailure(error, what, timeoutMs);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
      if (response.status >= 500)
        throw new AppError(502, 'upstream_failed', `${what} answered ${status}.`, { details: { upstreamStatus: response.status } });
      throw new BadRequestError(`${what} answered ${status}; nothing was fetched.`, {
        code: 'source_refused',
        details: { upstreamStatus: response.status },
      });
    }
    const declared = response.headers.get('content-length');
    const source = response.body ? Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>) : Readable.from([]);
    let staged: StagedUpload;
    try {
      staged = await this.stage(source, {
        name: fileNameFromUrl(url, response.headers.get('content-disposition')),
        declaredSize: declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined,
      });
    } catch (error) {
      source.destroy();
      throw explainOutboundFailure(error, what, timeoutMs);
    }
    return this.commit(access.workspace.id, staged);
  }

  async get(workspaceId: string, id: string): Promise<Media> {
    const row = await repo.findMedia(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No media ${id} in this workspace.`, { code: 'media_not_found' });
    return this.#toMedia(row);
  }

  /**
   * A page of the library, newest first; `page` counts from zero. Each page skips the ones
   * before it, so a listing reaches the newest `MEDIA_LIST_DEPTH` files and no deeper. Reading
   * the library takes the uploader's scope: the API has no reading scope for it. With `search`,
   * only the files whose name holds it (any case), and `total` counts those.
   */
  async list(access: WorkspaceAccess, options: { page: number; pageSize: number; search?: string | undefined }): Promise<MediaPage> {
    requireScope(access, 'media:write');
    const workspaceId = access.workspace.id;
    if ((options.page + 1) * options.pageSize > MEDIA_LIST_DEPTH) {
      throw new BadRequestError(
        `page: the listing reaches the newest ${MEDIA_LIST_DEPTH} files; with pageSize ${options.pageSize} the last page is ${Math.floor(MEDIA_LIST_DEPTH / options.pageSize) - 1}.`,
      );
    }
    const [rows, count] = await Promise.all([
      repo.listMedia(this.deps.db, workspaceId, {
        offset: options.page * options.pageSize,
        limit: options.pageSize,
        search: options.search,
      }),
      repo.countMedia(this.deps.db, workspaceId, options.search),
    ]);
    const total = Number(count.n);
    const pages = Math.ceil(Math.min(total, MEDIA_LIST_DEPTH) / options.pageSize);
    return { results: rows.map((row) => this.#toMedia(row)), page: options.page, pageSize: options.pageSize, pages, total };
  }

  /**
   * Removes a file from the library and the store. A file still attached to a post that is not
   * yet published stays, and the answer (409) names those posts.
   */
  async delete(access: WorkspaceAccess, id: string): Promise<Media> {
    requireScope(access, 'media:write');
    const workspaceId = access.workspace.id;
    const media = await this.get(workspaceId, id);
    const using = await this.deps.attachments.unpublishedPostsUsing(workspaceId, id, IN_USE_LISTED + 1);
    if (using.length > 0) {
      const posts = using.slice(0, IN_USE_LISTED);
      const more = using.length > IN_USE_LISTED;
      const count = more ? `more than ${IN_USE_LISTED} posts` : posts.length === 1 ? 'a post' : `${posts.length} posts`;
      throw new ConflictError(
        `The file is attached to ${count} not yet published (${more ? `the first ${IN_USE_LISTED}: ` : ''}${posts.join(', ')}); remove it from ${posts.length === 1 ? 'that post' : 'them'} first.`,
        {
          code: 'media_in_use',
          details: { posts, more },
        },
      );
    }
    const result = await repo.deleteMedia(this.deps.db, workspaceId, id);
    if (Number(result.numDeletedRows) === 0) throw new NotFoundError(`No media ${id} in this workspace.`, { code: 'media_not_found' });
    const key = this.keyOf(media.path);
    if (key) await this.deps.store.delete(key);
    return media;
  }

  /**
   * The workspace's files behind these `path` URLs, keyed by path. Paths that are not this
   * library's, or belong to another workspace, are simply absent.
   */
  async findByPaths(workspaceId: string, paths: string[]): Promise<Map<string, Media>> {
    const keys = [...new Set(paths.map((p) => this.keyOf(p)).filter((k): k is string => k !== null))];
    const found = new Map<string, Media>();
    for (let i = 0; i < keys.length; i += 500) {
      for (const row of await repo.findMediaByKeys(this.deps.db, workspaceId, keys.slice(i, i + 500))) {
        const media = this.#toMedia(row);
        found.set(media.path, media);
      }
    }
    return found;
  }

  /** A file's content, or the inclusive `range` of it, for providers that upload bytes rather than send a URL. */
  async read(media: { path: string }, range?: ByteRange): Promise<Buffer> {
    const key = this.keyOf(media.path);
    if (!key) throw new NotFoundError('That file is not in the media library.', { code: 'media_not_found' });
    const chunks: Buffer[] = [];
    for await (const chunk of await this.deps.store.get(key, range)) chunks.push(asBuffer(chunk));
    return Buffer.concat(chunks);
  }

  /** Size and time of a stored object, for serving it; null when absent. */
  stat(key: string) {
    return this.deps.store.stat(key);
  }

  /** The bytes of a stored object (or of a range), for serving it. */
  open(key: string, range?: ByteRange): Promise<Readable> {
    return this.deps.store.get(key, range);
  }

  async #readRange(key: string, range: ByteRange): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.deps.store.get(key, range)) chunks.push(asBuffer(chunk));
    return Buffer.concat(chunks);
  }
}
