import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.ts';
import { MediaService } from '../../src/media/media.service.ts';
import { accessOf, createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp, type Tenant } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { postRow } from '../helpers/posts.ts';
import { storedObjects } from '../helpers/stored-objects.ts';
import { avif, bmp, fileBody, gif, jpeg, mp4, multipart, png, tiff, webp } from '../helpers/media-files.ts';

const clock = new ManualClock('2026-03-01T00:00:00.000Z');
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ clock });
});

const MiB = 1024 * 1024;
let colour = 0;
/** A PNG no other test has uploaded. */
function freshPng(width = 4, height = 3): Buffer {
  colour += 1;
  return png(width, height, [colour % 256, Math.floor(colour / 256) % 256, 77]);
}

async function upload(tenant: Tenant, data: Buffer, filename = 'file.bin', contentType?: string) {
  return t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(data, filename, contentType) });
}

/** What the app's media store holds (local disk or S3, whichever this run selected). */
function storedFiles(app: TestApp = t) {
  return storedObjects(app.config);
}

async function mediaRows(workspaceId: string) {
  return t.runtime.db.selectFrom('media').selectAll().where('workspace_id', '=', workspaceId).execute();
}

/** The test app on a real loopback socket, for what inject cannot show (streaming, early answers). */
async function listening(): Promise<number> {
  if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

function urlPath(absolute: string): string {
  const url = new URL(absolute);
  expect(url.origin).toBe('http://herald.test');
  return url.pathname;
}

describe('POST /public/v1/upload', () => {
  const accepted = [
    {
      label: 'PNG',
      file: () => png(5, 3),
      name: 'a.png',
      mime: 'image/png',
      ext: 'png',
      type: 'image',
      width: 5,
      height: 3,
      durationMs: null,
    },
    {
      label: 'JPEG',
      file: () => jpeg(17, 9, 200),
      name: 'b.jpg',
      mime: 'image/jpeg',
      ext: 'jpg',
      type: 'image',
      width: 17,
      height: 9,
      durationMs: null,
    },
    {
      label: 'GIF',
      file: () => gif(7, 4),
      name: 'c.gif',
      mime: 'image/gif',
      ext: 'gif',
      type: 'image',
      width: 7,
      height: 4,
      durationMs: null,
    },
    {
      label: 'WEBP',
      file: () => webp(11, 13),
      name: 'd.webp',
      mime: 'image/webp',
      ext: 'webp',
      type: 'image',
      width: 11,
      height: 13,
      durationMs: null,
    },
    {
      label: 'AVIF',
      file: () => avif(),
      name: 'e.avif',
      mime: 'image/avif',
      ext: 'avif',
      type: 'image',
      width: 2,
      height: 2,
      durationMs: null,
    },
    {
      label: 'BMP',
      file: () => bmp(6, 5),
      name: 'f.bmp',
      mime: 'image/bmp',
      ext: 'bmp',
      type: 'image',
      width: 6,
      height: 5,
      durationMs: null,
    },
    {
      label: 'TIFF',
      file: () => tiff(4, 9),
      name: 'g.tiff',
      mime: 'image/tiff',
      ext: 'tif',
      type: 'image',
      width: 4,
      height: 9,
      durationMs: null,
    },
    {
      label: 'MP4 (moov first)',
      file: () => mp4(640, 360, { seconds: 12.5 }),
      name: 'h.mp4',
      mime: 'video/mp4',
      ext: 'mp4',
      type: 'video',
      width: 640,
      height: 360,
      durationMs: 12_500,
    },
    {
      label: 'MP4 (moov last)',
      file: () => mp4(320, 240, { moovFirst: false, mdatBytes: 100_000 }),
      name: 'i.mp4',
      mime: 'video/mp4',
      ext: 'mp4',
      type: 'video',
      width: 320,
      height: 240,
      durationMs: 1000,
    },
  ] as const;

  for (const c of accepted) {
    it(`accepts ${c.label}, records name, size, type, dimensions and a video's length, and serves it back`, async () => {
      const tenant = await createTenant(t);
      const data = c.file();
      const res = await upload(tenant, data, c.name);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { id: string; path: string };
      expect(Object.keys(body).sort()).toEqual(['id', 'path']);
      expect(body.path).toMatch(new RegExp(`^http://herald\\.test/media/[0-9a-f]{2}/[0-9a-f]{32}\\.${c.ext}$`));

      const list = await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key });
      expect(list.json().results).toEqual([
        {
          id: body.id,
          name: c.name,
          path: body.path,
          type: c.type,
          mimeType: c.mime,
          size: data.length,
          width: c.width,
          height: c.height,
          durationMs: c.durationMs,
          createdAt: clock.now().toISOString(),
          uploadLinkId: null,
        },
      ]);

      const served = await t.request({ method: 'GET', url: urlPath(body.path) });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe(c.mime);
      expect(served.headers['content-length']).toBe(String(data.length));
      expect(served.rawPayload.equals(data)).toBe(true);
    });
  }

  it("refuses a file cut short (a PNG's first 100 bytes, a video without its index) with a 400 that says so, keeping nothing", async () => {
    const tenant = await createTenant(t);
    const before = await storedFiles();
    const cut = await upload(tenant, png(64, 48, [9, 9, 9]).subarray(0, 100), 'cut.png');
    expect(cut.statusCode, cut.body).toBe(400);
    expect(cut.json()).toEqual({
      code: 'truncated_file',
      msg: 'The file "cut.png" is incomplete: the PNG ends before its last chunk (IEND), after 100 bytes; it may have been cut off in transfer. Upload the whole file.',
    });
    const video = mp4(320, 240, { moovFirst: false, mdatBytes: 50_000, fill: 0x17 });
    const noIndex = await upload(tenant, video.subarray(0, video.lastIndexOf(Buffer.from('moov', 'latin1')) - 4), 'clip.mp4');
    expect(noIndex.statusCode, noIndex.body).toBe(400);
    expect(noIndex.json()).toMatchObject({
      code: 'truncated_file',
      msg: expect.stringMatching(/^The video "clip\.mp4" has no index \(no moov box\)/),
    });
    const halfVideo = await upload(tenant, video.subarray(0, 30_000), 'half.mp4');
    expect(halfVideo.json()).toMatchObject({
      code: 'truncated_file',
      msg: expect.stringMatching(/the MP4 ends before the end of its last box/),
    });
    expect(await mediaRows(tenant.workspaceId)).toEqual([]);
    expect(await storedFiles()).toEqual(before);
  });

  it('reads the type from the content, not from the name or the declared type', async () => {
    const tenant = await createTenant(t);
    const res = await upload(tenant, freshPng(), 'holiday.jpg', 'image/jpeg');
    expect(res.statusCode).toBe(200);
    expect(res.json().path).toMatch(/\.png$/);
    const [row] = await mediaRows(tenant.workspaceId);
    expect(row).toMatchObject({ mime_type: 'image/png', name: 'holiday.jpg' });
  });

  it('keeps only the last segment of a name sent with folders, without control characters', async () => {
    const tenant = await createTenant(t);
    expect((await upload(tenant, freshPng(), 'C:\\Users\\ana\\..\\evil\u0007.png')).statusCode).toBe(200);
    expect((await mediaRows(tenant.workspaceId))[0]!.name).toBe('evil.png');
    const long = `${'é'.repeat(300)}.jpeg`;
    expect((await upload(tenant, freshPng(), long)).statusCode).toBe(200);
    const names = (await mediaRows(tenant.workspaceId)).map((r) => r.name);
    expect(names).toContain(`${'é'.repeat(195)}.jpeg`);
  });

  describe('refuses, with a clear message and nothing kept', () => {
    const refusals: Array<{
      label: string;
      body: () => { payload: Buffer; headers: Record<string, string> };
      status: number;
      code: string;
      msg: RegExp;
    }> = [
      {
        label: 'a PDF',
        body: () =>
          fileBody(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n%%EOF\n'), 'report.pdf', 'application/pdf'),
        status: 400,
        code: 'unsupported_type',
        msg: /"report\.pdf" is a PDF file \(application\/pdf\)\. Accepted: JPEG, PNG, GIF, WEBP, AVIF, BMP or TIFF images, or MP4 videos/,
      },
      {
        label: 'an HTML page disguised as a JPEG',
        body: () => fileBody(Buffer.from('<!doctype html><script>alert(1)</script>'), 'photo.jpg', 'image/jpeg'),
        status: 400,
        code: 'unsupported_type',
        msg: /"photo\.jpg" is not a recognised image or video/,
      },
      {
        label: 'an SVG (script-capable, not accepted)',
        body: () =>
          fileBody(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'logo.png', 'image/png'),
        status: 400,
        code: 'unsupported_type',
        msg: /not a recognised image or video/,
      },
      {
        label: 'a HEIC photo',
        body: () =>
          fileBody(
            Buffer.concat([
              Buffer.from([0, 0, 0, 0x18]),
              Buffer.from('ftypheic'),
              Buffer.from([0, 0, 0, 0]),
              Buffer.from('mif1heic'),
              Buffer.alloc(64),
            ]),
            'IMG_0001.HEIC',
          ),
        status: 400,
        code: 'unsupported_type',
        msg: /image\/heic/,
      },
      {
        label: 'a QuickTime movie',
        body: () =>
          fileBody(
            Buffer.concat([
              Buffer.from([0, 0, 0, 0x14]),
              Buffer.from('ftypqt  '),
              Buffer.from([0, 0, 0, 0]),
              Buffer.from('qt  '),
              Buffer.alloc(64),
            ]),
            'clip.mov',
          ),
        status: 400,
        code: 'unsupported_type',
        msg: /video\/quicktime/,
      },
      {
        label: 'an empty file',
        body: () => fileBody(Buffer.alloc(0), 'empty.png', 'image/png'),
        status: 400,
        code: 'empty_file',
        msg: /"empty\.png" is empty/,
      },
      { label: 'a body without any part', body: () => multipart([]), status: 400, code: 'file_missing', msg: /no file.*part named "file"/ },
      {
        label: 'a text field instead of the file',
        body: () => multipart([{ name: 'file', data: 'hello' }]),
        status: 400,
        code: 'unexpected_part',
        msg: /a field named "file"/,
      },
      {
        label: 'the file under another part name',
        body: () => multipart([{ name: 'upload', filename: 'a.png', data: png(2, 2) }]),
        status: 400,
        code: 'unexpected_part',
        msg: /a file part named "upload"/,
      },
      {
        label: 'two files',
        body: () =>
          multipart([
            { name: 'file', filename: 'a.png', data: png(2, 2, [1, 2, 3]) },
            { name: 'file', filename: 'b.png', data: png(2, 2, [4, 5, 6]) },
          ]),
        status: 400,
        code: 'too_many_parts',
        msg: /one file per request/,
      },
      {
        label: 'a file followed by a field',
        body: () =>
          multipart([
            { name: 'file', filename: 'a.png', data: png(2, 2, [7, 8, 9]) },
            { name: 'caption', data: 'hi' },
          ]),
        status: 400,
        code: 'too_many_parts',
        msg: /one file per request/,
      },
      {
        label: 'a JSON body',
        body: () => ({ payload: Buffer.from('{"file":"x"}'), headers: { 'content-type': 'application/json' } }),
        status: 400,
        code: 'not_multipart',
        msg: /multipart\/form-data/,
      },
      {
        label: 'a multipart body cut short',
        body: () => {
          const full = fileBody(png(3, 3, [9, 9, 9]), 'a.png');
          return { payload: full.payload.subarray(0, full.payload.length - 40), headers: full.headers };
        },
        status: 400,
        code: 'bad_multipart',
        msg: /incomplete or malformed/,
      },
    ];

    for (const r of refusals) {
      it(r.label, async () => {
        const tenant = await createTenant(t);
        const before = await storedFiles();
        const res = await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...r.body() });
        expect(res.statusCode, res.body).toBe(r.status);
        expect(res.json()).toMatchObject({ code: r.code, msg: expect.stringMatching(r.msg) });
        expect(await mediaRows(tenant.workspaceId)).toEqual([]);
        expect(await storedFiles()).toEqual(before);
      });
    }
  });

  it('accepts an image of exactly 10 MB and refuses one byte more with 413, keeping nothing', async () => {
    const tenant = await createTenant(t);
    const base = png(2, 2, [1, 1, 1]).length;
    // The private chunk adds 12 bytes of framing around its data.
    const exact = png(2, 2, [1, 1, 1], 10 * MiB - base - 12);
    expect(exact.length).toBe(10 * MiB);
    expect((await upload(tenant, exact, 'exact.png')).statusCode).toBe(200);

    const before = await storedFiles();
    const over = png(2, 2, [2, 2, 2], 10 * MiB - base - 11);
    expect(over.length).toBe(10 * MiB + 1);
    const res = await upload(tenant, over, 'big.png');
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'too_large',
      limit: 10 * MiB,
      msg: 'The file "big.png" is too large: images can be at most 10 MB.',
    });
    expect(await mediaRows(tenant.workspaceId)).toHaveLength(1);
    expect(await storedFiles()).toEqual(before);
  });

  it('refuses a body declared larger than any accepted file before reading it', async () => {
    const tenant = await createTenant(t);
    const port = await listening();
    const started = Date.now();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/public/v1/upload',
        headers: { authorization: tenant.key, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(5 * 1024 ** 3) },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode!, body });
        });
      });
      req.on('error', reject);
      req.write('--x\r\n');
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      code: 'too_large',
      msg: 'The upload is larger than the largest file accepted (1 GB).',
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('cuts a streamed upload off once it passes the limit: the answer comes before the client has sent it all', async () => {
    const tenant = await createTenant(t);
    const port = await listening();
    const before = await storedFiles();
    const total = 40 * MiB;
    const result = await new Promise<{ status: number; body: string; sentWhenAnswered: number }>((resolve, reject) => {
      let sent = 0;
      let sentWhenAnswered = -1;
      const req = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/public/v1/upload',
        headers: { authorization: tenant.key, 'content-type': 'multipart/form-data; boundary=x' },
      });
      req.on('response', (res) => {
        sentWhenAnswered = sent;
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode!, body, sentWhenAnswered });
        });
      });
      req.on('error', (error) => (sentWhenAnswered >= 0 ? undefined : reject(error)));
      const head = Buffer.concat([
        Buffer.from('--x\r\nContent-Disposition: form-data; name="file"; filename="huge.png"\r\nContent-Type: image/png\r\n\r\n'),
        png(2, 2),
      ]);
      req.write(head);
      sent += head.length;
      const chunk = Buffer.alloc(256 * 1024, 0x41);
      const pump = () => {
        while (sent < total && sentWhenAnswered < 0) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        if (sentWhenAnswered < 0) req.end('\r\n--x--\r\n');
      };
      pump();
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body).code).toBe('too_large');
    expect(result.sentWhenAnswered).toBeGreaterThan(10 * MiB);
    expect(result.sentWhenAnswered).toBeLessThan(total);
    expect(await mediaRows(tenant.workspaceId)).toEqual([]);
    await expect.poll(() => storedFiles()).toEqual(before);
  });

  describe('deduplication', () => {
    it('returns the existing {id, path} for identical content in the workspace: no new row, no new object', async () => {
      const tenant = await createTenant(t);
      const data = freshPng();
      const first = await upload(tenant, data, 'first.png');
      const before = await storedFiles();
      const second = await upload(tenant, data, 'second-name.png');
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(first.json());
      const rows = await mediaRows(tenant.workspaceId);
      expect(rows.map((r) => r.name)).toEqual(['first.png']);
      expect(await storedFiles()).toEqual(before);
    });

    it('does not deduplicate across workspaces', async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      const data = freshPng();
      const before = (await storedFiles()).objects.length;
      const ra = (await upload(a, data)).json();
      const rb = (await upload(b, data)).json();
      expect(rb.id).not.toBe(ra.id);
      expect(rb.path).not.toBe(ra.path);
      expect((await storedFiles()).objects.length).toBe(before + 2);
      expect((await t.request({ method: 'GET', url: urlPath(rb.path) })).rawPayload.equals(data)).toBe(true);
    });

    it('keeps one row and one object when identical uploads race', async () => {
      const tenant = await createTenant(t);
      const data = freshPng(40, 40);
      const before = (await storedFiles()).objects.length;
      const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => upload(tenant, data, `race-${i}.png`)));
      expect(answers.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
      expect(new Set(answers.map((r) => r.body)).size).toBe(1);
      expect(await mediaRows(tenant.workspaceId)).toHaveLength(1);
      const after = await storedFiles();
      expect(after.objects.length).toBe(before + 1);
      expect(after.temporary).toEqual([]);
    });
  });

  runAuthMatrix(() => t, {
    method: 'POST',
    url: () => '/public/v1/upload',
    scope: 'media:write',
    rawBody: () => fileBody(freshPng(), 'matrix.png'),
  });
});

describe('video size limit', () => {
  let small: TestApp;
  beforeAll(async () => {
    small = await createTestApp({ env: { MEDIA_MAX_VIDEO_BYTES: String(2 * MiB) } });
  });

  it('takes a video up to the limit and cuts one over it off with 413, keeping nothing', async () => {
    const tenant = await createTenant(small);
    const fits = mp4(64, 48, { mdatBytes: 2 * MiB - 1000 });
    const ok = await small.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(fits, 'fits.mp4') });
    expect(ok.statusCode, ok.body).toBe(200);
    const before = await storedFiles(small);
    const over = mp4(64, 48, { mdatBytes: 2 * MiB, fill: 1 });
    const res = await small.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(over, 'over.mp4') });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'too_large', msg: 'The file "over.mp4" is too large: videos can be at most 2 MB.' });
    expect(await storedFiles(small)).toEqual(before);
  });

  it('the limits cannot be set above what the API promises', async () => {
    await expect(createTestApp({ env: { MEDIA_MAX_VIDEO_BYTES: String(2 * 1024 ** 3) } })).rejects.toThrow(
      /MEDIA_MAX_VIDEO_BYTES: at most 1 GB/,
    );
    await expect(createTestApp({ env: { MEDIA_MAX_IMAGE_BYTES: String(11 * 1024 ** 2) } })).rejects.toThrow(
      /MEDIA_MAX_IMAGE_BYTES: at most 10 MB/,
    );
  });
});

describe('serving files at their path', () => {
  let tenant: Tenant;
  let video: Buffer;
  let url: string;
  beforeAll(async () => {
    tenant = await createTenant(t);
    video = mp4(320, 180, { mdatBytes: 300_000, fill: 7 });
    for (let i = 0; i < video.length; i += 997) video[i] = i % 251;
    url = urlPath((await upload(tenant, video, 'clip.mp4')).json().path);
  });

  it('answers the whole file with its type, caching headers and Accept-Ranges', async () => {
    const res = await t.request({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'video/mp4',
      'accept-ranges': 'bytes',
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-length': String(video.length),
    });
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(new Date(res.headers['last-modified']!).getTime()).not.toBeNaN();
    expect(res.rawPayload.equals(video)).toBe(true);
  });

  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=1000-1999', 1000, 1999],
    ['bytes=250000-', 250000, -1],
    ['bytes=-500', -500, -1],
    ['bytes=10-99999999', 10, -1],
  ])('answers %s with 206 and exactly those bytes', async (range, from, to) => {
    const start = from < 0 ? video.length + from : from;
    const end = to < 0 ? video.length - 1 : to;
    const res = await t.request({ method: 'GET', url, headers: { range } });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${video.length}`);
    expect(res.headers['content-length']).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(video.subarray(start, end + 1))).toBe(true);
  });

  it('answers 416 with the size for a range past the end', async () => {
    const res = await t.request({ method: 'GET', url, headers: { range: `bytes=${video.length}-` } });
    expect(res.statusCode).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${video.length}`);
    expect(res.json().code).toBe('range_not_satisfiable');
  });

  it('answers the whole file for several ranges, a malformed range, or an If-Range that no longer matches', async () => {
    for (const headers of [
      { range: 'bytes=0-1,5-6' },
      { range: 'items=0-5' },
      { range: 'bytes=9-2' },
      { range: 'bytes=0-9', 'if-range': '"something-else"' },
    ]) {
      const res = await t.request({ method: 'GET', url, headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.rawPayload.length).toBe(video.length);
    }
    const etag = (await t.request({ method: 'HEAD', url })).headers.etag as string;
    const matching = await t.request({ method: 'GET', url, headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect(matching.statusCode).toBe(206);
  });

  it('answers 304 to a matching If-None-Match, and HEAD with the headers only', async () => {
    const head = await t.request({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(video.length));
    expect(head.rawPayload.length).toBe(0);
    const cached = await t.request({ method: 'GET', url, headers: { 'if-none-match': head.headers.etag as string } });
    expect(cached.statusCode).toBe(304);
    expect(cached.rawPayload.length).toBe(0);
    expect(cached.headers.etag).toBe(head.headers.etag);
    // A cached copy wins over a Range, even one past the end.
    const cachedRange = await t.request({
      method: 'GET',
      url,
      headers: { 'if-none-match': `"other", ${head.headers.etag}`, range: `bytes=${video.length}-` },
    });
    expect(cachedRange.statusCode).toBe(304);
  });

  it('answers 404 for unknown files and for paths that try to leave the media folder', async () => {
    for (const bad of [
      '/media/aa/00000000000000000000000000000000.png',
      '/media/..%2F..%2Fsecret.key',
      '/media/%2e%2e/secret.key',
      '/media/aa/x.exe',
      '/media/',
    ]) {
      const res = await t.request({ method: 'GET', url: bad });
      expect(res.statusCode, bad).toBe(404);
    }
  });
});

describe('GET /public/v1/media', () => {
  it("pages through the workspace's files, newest first", async () => {
    const tenant = await createTenant(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(60_000);
      ids.push((await upload(tenant, freshPng(), `n${i}.png`)).json().id);
    }
    const page0 = (await t.request({ method: 'GET', url: '/public/v1/media?pageSize=2', key: tenant.key })).json();
    const page2 = (await t.request({ method: 'GET', url: '/public/v1/media?pageSize=2&page=2', key: tenant.key })).json();
    const page3 = (await t.request({ method: 'GET', url: '/public/v1/media?pageSize=2&page=3', key: tenant.key })).json();
    expect(page0).toMatchObject({ page: 0, pageSize: 2, pages: 3, total: 5 });
    expect(page0.results.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]]);
    expect(page2.results.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    expect(page3.results).toEqual([]);
  });

  it('searches by name, in any case, with % and _ as plain characters; total and pages count the matches', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    for (const name of ['Summer Launch.png', 'launch_day.png', 'launch-day.png', '100% off.png', 'winter.png']) {
      clock.advance(60_000);
      expect((await upload(tenant, freshPng(), name)).statusCode).toBe(200);
    }
    await upload(other, freshPng(), 'launch.png');
    const names = async (search: string, extra = '') => {
      const res = await t.request({ method: 'GET', url: `/public/v1/media?search=${encodeURIComponent(search)}${extra}`, key: tenant.key });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { results: Array<{ name: string }>; total: number; pages: number };
      return { names: body.results.map((m) => m.name), total: body.total, pages: body.pages };
    };
    expect(await names('LAUNCH')).toEqual({ names: ['launch-day.png', 'launch_day.png', 'Summer Launch.png'], total: 3, pages: 1 });
    expect((await names('launch', '&pageSize=2')).pages).toBe(2);
    expect((await names('h_d')).names).toEqual(['launch_day.png']);
    expect((await names('0%')).names).toEqual(['100% off.png']);
    expect(await names('nothing like it')).toEqual({ names: [], total: 0, pages: 0 });
    // Spaces around it are trimmed; an empty search is refused as a validation error.
    expect((await names('  winter ')).names).toEqual(['winter.png']);
    expect((await t.request({ method: 'GET', url: '/public/v1/media?search=', key: tenant.key })).statusCode).toBe(400);
  });

  it("never shows another workspace's files", async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    await upload(theirs, freshPng());
    const res = await t.request({ method: 'GET', url: '/public/v1/media', key: mine.key });
    expect(res.json()).toEqual({ results: [], page: 0, pageSize: 20, pages: 0, total: 0 });
  });

  it('a listing reaches the newest 10,000 files and no deeper: how much one request skips is bounded', async () => {
    const tenant = await createTenant(t);
    expect((await t.request({ method: 'GET', url: '/public/v1/media?pageSize=100&page=99', key: tenant.key })).statusCode).toBe(200);
    for (const query of ['pageSize=100&page=100', 'pageSize=20&page=500', 'page=1000000']) {
      const res = await t.request({ method: 'GET', url: `/public/v1/media?${query}`, key: tenant.key });
      expect(res.statusCode, query).toBe(400);
      expect(JSON.stringify(res.json()), query).toMatch(/newest 10000 files|querystring\.page/);
    }
  });

  it('refuses bad paging values as validation errors', async () => {
    const tenant = await createTenant(t);
    for (const query of ['page=-1', 'pageSize=0', 'pageSize=101', 'page=abc']) {
      const res = await t.request({ method: 'GET', url: `/public/v1/media?${query}`, key: tenant.key });
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/media', scope: 'media:write' });
});

describe('DELETE /public/v1/media/:id', () => {
  it('removes the row and the stored object; the same content can then be uploaded anew', async () => {
    const tenant = await createTenant(t);
    const data = freshPng();
    const { id, path: filePath } = (await upload(tenant, data)).json();
    const before = (await storedFiles()).objects.length;
    const res = await t.request({ method: 'DELETE', url: `/public/v1/media/${id}`, key: tenant.key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id, deleted: true });
    expect(await mediaRows(tenant.workspaceId)).toEqual([]);
    expect((await storedFiles()).objects.length).toBe(before - 1);
    expect((await t.request({ method: 'GET', url: urlPath(filePath) })).statusCode).toBe(404);
    const again = (await upload(tenant, data)).json();
    expect(again.id).not.toBe(id);
  });

  it("answers 404 alike for a missing file and another workspace's file, and leaves theirs alone", async () => {
    const mine = await createTenant(t);
    const theirs = await createTenant(t);
    const foreign = (await upload(theirs, freshPng())).json();
    const missing = await t.request({ method: 'DELETE', url: '/public/v1/media/does-not-exist', key: mine.key });
    const other = await t.request({ method: 'DELETE', url: `/public/v1/media/${foreign.id}`, key: mine.key });
    expect(missing.statusCode).toBe(404);
    expect(other.statusCode).toBe(404);
    expect(other.json()).toEqual({ ...missing.json(), msg: missing.json().msg.replace('does-not-exist', foreign.id) });
    expect(await mediaRows(theirs.workspaceId)).toHaveLength(1);
  });

  let deletable = 0;
  runAuthMatrix(() => t, {
    method: 'DELETE',
    scope: 'media:write',
    url: async (app, tenant) => {
      deletable += 1;
      const { media } = await app.services.media.upload(tenant.workspaceId, Readable.from([png(2, 2, [deletable % 256, 200, 200])]), {
        name: 'd.png',
      });
      return `/public/v1/media/${media.id}`;
    },
  });
});

describe('MediaService: files attached to unpublished posts', () => {
  function serviceWith(attached: Record<string, string[]>) {
    return new MediaService({
      db: t.runtime.db,
      clock,
      store: t.runtime.mediaStore,
      outbound: t.runtime.outbound,
      baseUrl: t.config.baseUrl,
      webhookOutbox: t.services.webhookOutbox,
      attachments: { unpublishedPostsUsing: async (_workspaceId, mediaId, limit) => (attached[mediaId] ?? []).slice(0, limit) },
    });
  }

  it('refuses to delete, naming the posts, and keeps the file', async () => {
    const tenant = await createTenant(t);
    const { id, path: filePath } = (await upload(tenant, freshPng())).json();
    const service = serviceWith({ [id]: ['post-1', 'post-2'] });
    await expect(service.delete(await accessOf(t, tenant), id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'media_in_use',
      details: { posts: ['post-1', 'post-2'] },
      message: 'The file is attached to 2 posts not yet published (post-1, post-2); remove it from them first.',
    });
    expect(await mediaRows(tenant.workspaceId)).toHaveLength(1);
    expect((await t.request({ method: 'GET', url: urlPath(filePath) })).statusCode).toBe(200);
  });

  it('a file used by many unpublished posts is refused naming the first 100, not all of them', async () => {
    const tenant = await createTenant(t);
    const { id } = (await upload(tenant, freshPng())).json();
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: 'https://hooks.example.test/in', secret: TEST_WEBHOOK_SECRET },
    });
    const stamp = clock.now().toISOString();
    const ids = Array.from({ length: 150 }, (_, i) => `uses-${id}-${String(i).padStart(3, '0')}`);
    await t.runtime.db
      .insertInto('posts')
      .values(
        ids.map((postId) =>
          postRow({ id: postId, workspace_id: tenant.workspaceId, channel_id: channel.id, publish_at: stamp, created_at: stamp }),
        ),
      )
      .execute();
    await t.runtime.db
      .insertInto('post_media')
      .values(ids.map((postId) => ({ post_id: postId, media_id: id })))
      .execute();
    const res = await t.request({ method: 'DELETE', url: `/public/v1/media/${id}`, key: tenant.key });
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body).toMatchObject({
      code: 'media_in_use',
      more: true,
      msg: expect.stringMatching(/^The file is attached to more than 100 posts not yet published \(the first 100: /),
    });
    expect(body.posts).toEqual(ids.slice(0, 100));
  });

  it('deletes once no unpublished post uses it', async () => {
    const tenant = await createTenant(t);
    const { id } = (await upload(tenant, freshPng())).json();
    await serviceWith({}).delete(await accessOf(t, tenant), id);
    expect(await mediaRows(tenant.workspaceId)).toEqual([]);
  });

  it("findByPaths answers the workspace's files by path; others' and foreign URLs are absent", async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const mine = (await upload(tenant, jpeg(8, 8, 10), 'mine.jpg')).json();
    const theirs = (await upload(other, jpeg(8, 8, 20), 'theirs.jpg')).json();
    const found = await t.services.media.findByPaths(tenant.workspaceId, [
      mine.path,
      theirs.path,
      'https://elsewhere.test/media/aa/bb.png',
      'http://herald.test/media/../x',
    ]);
    expect([...found.keys()]).toEqual([mine.path]);
    expect(found.get(mine.path)).toMatchObject({
      id: mine.id,
      workspaceId: tenant.workspaceId,
      name: 'mine.jpg',
      type: 'image',
      mimeType: 'image/jpeg',
      width: 8,
      height: 8,
      uploadLinkId: null,
    });
    expect((await t.services.media.read(found.get(mine.path)!)).equals(jpeg(8, 8, 10))).toBe(true);
  });
});
