import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** An inclusive byte range, as in HTTP: `{start: 0, end: 99}` is the first 100 bytes. */
export type ByteRange = { start: number; end: number };

export type StoredObject = { size: number; modifiedAt: Date };

/**
 * Where media bytes live. Keys are chosen by the caller (`ab/abcdef….jpg`: lowercase and
 * uppercase letters, digits, `.`, `_`, `-`, separated by `/`), are never reused, and the
 * bytes under a key never change. Kept small so an S3-compatible store can implement it.
 */
export interface MediaStore {
  /**
   * Stores `body` under `key`. Resolves once the whole object is durable; on any error
   * (including one the body stream raises) nothing is left under `key`.
   */
  put(key: string, body: Readable, options: { contentType: string }): Promise<{ size: number }>;
  /** The object's bytes, or the bytes of `range`. Rejects with MediaObjectMissingError when absent. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size and modification time, or null when there is no such object. */
  stat(key: string): Promise<StoredObject | null>;
  /** Removes the object; removing an absent one is not an error. */
  delete(key: string): Promise<void>;
}

export class MediaObjectMissingError extends Error {
  override name = 'MediaObjectMissingError';
  constructor(readonly key: string) {
    super(`No stored object ${key}`);
  }
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,127}){0,3}$/;

/** True for keys every store accepts; anything else (`..`, absolute paths, odd bytes) is refused. */
export function isValidKey(key: string): boolean {
  return KEY.test(key) && !key.split('/').some((segment) => segment === '.' || segment === '..');
}

const STALE_TEMPORARY_MS = 24 * 3600_000;

/** Media on local disk under one directory (by default `DATA_DIR/media`). */
export class LocalDiskMediaStore implements MediaStore {
  readonly #root: string;
  readonly #tmp: string;
  /** Folders known to exist, so a put does not ask the file system each time. */
  readonly #folders = new Set<string>();
  #swept = false;

  constructor(root: string) {
    this.#root = path.resolve(root);
    this.#tmp = path.join(this.#root, '.tmp');
  }

  #file(key: string): string {
    if (!isValidKey(key)) throw new Error(`Invalid media key ${JSON.stringify(key)}`);
    return path.join(this.#root, ...key.split('/'));
  }

  async put(key: string, body: Readable, _options: { contentType: string }): Promise<{ size: number }> {
    const file = this.#file(key);
    await this.#folder(this.#tmp);
    await this.#folder(path.dirname(file));
    if (!this.#swept) {
      this.#swept = true;
      void this.#sweepTemporary();
    }
    // Written beside the final place and renamed at the end, so a partial file is never visible under `key`.
    const temporary = path.join(this.#tmp, randomUUID());
    try {
      const out = fs.createWriteStream(temporary, { flags: 'wx', flush: true });
      await pipeline(body, out);
      await fs.promises.rename(temporary, file).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
        // The folder was removed behind our back: make it again, once.
        this.#folders.delete(path.dirname(file));
        await this.#folder(path.dirname(file));
        await fs.promises.rename(temporary, file);
      });
      return { size: out.bytesWritten };
    } catch (error) {
      await fs.promises.rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(this.#file(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new MediaObjectMissingError(key);
      throw error;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const stats = await fs.promises.stat(this.#file(key));
      return stats.isFile() ? { size: stats.size, modifiedAt: stats.mtime } : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.#file(key), { force: true });
  }

  async #folder(folder: string): Promise<void> {
    if (this.#folders.has(folder)) return;
    await fs.promises.mkdir(folder, { recursive: true });
    this.#folders.add(folder);
  }

  /** Temporary files a crashed process left behind. */
  async #sweepTemporary(): Promise<void> {
    try {
      const now = Date.now();
      for (const name of await fs.promises.readdir(this.#tmp)) {
        const file = path.join(this.#tmp, name);
        const stats = await fs.promises.stat(file).catch(() => null);
        if (stats && now - stats.mtimeMs > STALE_TEMPORARY_MS) await fs.promises.rm(file, { force: true });
      }
    } catch {
      // Best effort; the next process start tries again.
    }
  }
}

/** The store the configuration asks for: local disk under `DATA_DIR/media` (the only kind so far). */
export function createMediaStore(config: { dataDir: string }): MediaStore {
  return new LocalDiskMediaStore(path.join(config.dataDir, 'media'));
}
