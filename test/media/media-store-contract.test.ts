import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { MediaObjectMissingError, type MediaStore } from '../../src/media/media-store.ts';
import { S3MediaStore } from '../../src/media/s3-media-store.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { BACKEND } from '../helpers/backend.ts';
import { storedObjects } from '../helpers/stored-objects.ts';

// The MediaStore contract, against the store the run selected: local disk on the embedded
// default, the S3-compatible server in the scale-out run.
let t: TestApp;
let store: MediaStore;

beforeAll(async () => {
  t = await createTestApp();
  store = t.runtime.mediaStore;
});

const key = (ext = 'bin') => `${randomUUID().slice(0, 2)}/${randomUUID()}.${ext}`;

async function read(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A body of `bytes` bytes in 64 KiB chunks that fails with `error` once `failAfter` bytes are out. */
function body(bytes: Buffer, failAfter?: { at: number; error: Error }): Readable {
  let offset = 0;
  return new Readable({
    read() {
      if (failAfter && offset >= failAfter.at) return void this.destroy(failAfter.error);
      if (offset >= bytes.length) return void this.push(null);
      this.push(bytes.subarray(offset, offset + 65536));
      offset += 65536;
    },
  });
}

class ClientWentAway extends Error {}

describe('media store contract', () => {
  it('the run selects the store: S3 in the scale-out run, local disk otherwise', () => {
    if (BACKEND === 'postgres') expect(store).toBeInstanceOf(S3MediaStore);
    else expect(store).not.toBeInstanceOf(S3MediaStore);
  });

  it('stores, reads whole and by range, describes and deletes an object', async () => {
    const k = key('png');
    const bytes = randomBytes(300_000);
    expect(await store.put(k, body(bytes), { contentType: 'image/png' })).toEqual({ size: bytes.length });
    expect((await read(await store.get(k))).equals(bytes)).toBe(true);
    expect((await read(await store.get(k, { start: 1000, end: 1099 }))).equals(bytes.subarray(1000, 1100))).toBe(true);
    const stat = await store.stat(k);
    expect(stat?.size).toBe(bytes.length);
    expect(Math.abs(stat!.modifiedAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect((await storedObjects(t.config)).objects).toContain(k);

    await store.delete(k);
    expect(await store.stat(k)).toBeNull();
    await expect(store.get(k)).rejects.toBeInstanceOf(MediaObjectMissingError);
    await store.delete(k);
    expect((await storedObjects(t.config)).objects).not.toContain(k);
  });

  it('an object larger than one upload part round-trips byte for byte, ranges across part boundaries included', async () => {
    const k = key('mp4');
    const bytes = randomBytes(20 * 1024 * 1024 + 12_345);
    expect(await store.put(k, body(bytes), { contentType: 'video/mp4' })).toEqual({ size: bytes.length });
    const start = 8 * 1024 * 1024 - 10;
    expect((await read(await store.get(k, { start, end: start + 19 }))).equals(bytes.subarray(start, start + 20))).toBe(true);
    expect((await read(await store.get(k))).equals(bytes)).toBe(true);
    await store.delete(k);
  });

  for (const [label, size] of [
    ['small', 200_000],
    ['larger than one part', 20 * 1024 * 1024],
  ] as const) {
    it(`a ${label} body that fails part-way rejects with its own error and leaves nothing under the key`, async () => {
      const k = key();
      const error = new ClientWentAway('the client went away');
      await expect(store.put(k, body(randomBytes(size), { at: size - 65536, error }), { contentType: 'image/png' })).rejects.toBe(error);
      expect(await store.stat(k)).toBeNull();
      expect((await storedObjects(t.config)).objects).not.toContain(k);
    });
  }

  it('refuses keys outside the key alphabet', async () => {
    for (const bad of ['../etc/passwd', '/abs', 'a/../b', 'sp ace', '']) {
      await expect(store.stat(bad)).rejects.toThrow(/Invalid media key/);
    }
  });

  it('a missing object is null to stat and MediaObjectMissingError to get', async () => {
    const k = key();
    expect(await store.stat(k)).toBeNull();
    await expect(store.get(k, { start: 0, end: 9 })).rejects.toBeInstanceOf(MediaObjectMissingError);
  });
});
