import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appBuild, chooseEncoding, type AppBuild } from '../../src/web/app-assets.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The web app's files as a browser fetches them: brotli or gzip as its Accept-Encoding allows
 * (compressed once, when the app is built), the same bytes once decoded, `Vary: Accept-Encoding`,
 * and an ETag per coding.
 */
let t: TestApp;
let build: AppBuild;

beforeAll(async () => {
  t = await createTestApp();
  build = await appBuild();
});

afterAll(async () => {
  await t?.close();
});

const get = (name: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url: `/app/assets/${name}`, headers });

describe('the web app’s files', () => {
  it('are sent with brotli, gzip or none as Accept-Encoding allows, the same bytes once decoded', async () => {
    for (const name of [build.script, build.stylesheet!]) {
      const plain = await get(name);
      expect(plain.statusCode).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const original = plain.rawPayload;
      expect(original.equals(build.files.get(name)!.body)).toBe(true);

      const br = await get(name, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers.vary).toBe('Accept-Encoding');
      expect(br.headers['content-type']).toBe(plain.headers['content-type']);
      expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
      expect(br.rawPayload.length).toBeLessThan(original.length / 2);
      expect(brotliDecompressSync(br.rawPayload).equals(original)).toBe(true);

      const gzip = await get(name, { 'accept-encoding': 'gzip, deflate' });
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gzip.headers.vary).toBe('Accept-Encoding');
      expect(gunzipSync(gzip.rawPayload).equals(original)).toBe(true);

      // Each coding is its own representation: its own ETag, and a 304 only for the one held.
      const tags = new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]);
      expect(tags.size).toBe(3);
      const same = await get(name, { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
      expect(same.statusCode).toBe(304);
      expect(same.headers.vary).toBe('Accept-Encoding');
      expect(same.rawPayload.length).toBe(0);
      const other = await get(name, { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers.etag) });
      expect(other.statusCode).toBe(200);
      expect(other.headers['content-encoding']).toBe('gzip');
    }
  });

  it('are sent uncompressed when the codings offered are refused or unknown', async () => {
    for (const header of ['identity', 'br;q=0, gzip;q=0', 'deflate', '*;q=0']) {
      const res = await get(build.script, { 'accept-encoding': header });
      expect(res.headers['content-encoding'], header).toBeUndefined();
      expect(res.rawPayload.equals(build.files.get(build.script)!.body)).toBe(true);
    }
  });

  it('an unknown file is a 404', async () => {
    expect((await get('chunks/nothing-ABCDEF.js', { 'accept-encoding': 'br' })).statusCode).toBe(404);
  });
});

describe('chooseEncoding', () => {
  it.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.1, gzip;q=1', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['BR;Q=0 , GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['gzip;q=0, *', 'br'],
    ['br;q=0, gzip;q=0, *;q=1', 'identity'],
    ['identity', 'identity'],
    ['br;q=abc', 'identity'],
  ] as const)('%s → %s', (header, coding) => {
    expect(chooseEncoding(header)).toBe(coding);
  });
});
