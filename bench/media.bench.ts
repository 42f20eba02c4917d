import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { loadConfig } from '../src/config.ts';
import { openRuntime } from '../src/runtime.ts';
import { startHerald, stop } from './lib.ts';

const HERALD = fileURLToPath(new URL('../bin/herald.js', import.meta.url));
const MiB = 1024 * 1024;

/** Resident memory of a process, now and at its peak so far (Linux /proc), in MiB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), body, u32(zlib.crc32(body))]);
}

/** A valid PNG of about `size` bytes (a 1×1 picture and a private chunk of filler), distinct per `serial`. */
function pngOfSize(size: number, filler: Buffer, serial: number): Buffer {
  const ihdr = pngChunk('IHDR', Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]));
  const idat = pngChunk('IDAT', zlib.deflateSync(Buffer.from([0, 10, 20, 30])));
  const iend = pngChunk('IEND', Buffer.alloc(0));
  const fixed = 8 + ihdr.length + idat.length + iend.length + 12;
  const data = Buffer.from(filler.subarray(0, size - fixed));
  data.writeUInt32BE(serial >>> 0, 0);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, pngChunk('prVt', data), idat, iend]);
}

function multipartFraming(filename: string, contentType: string, boundary: string) {
  return {
    head: Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${contentType}\r\n\r\n`,
    ),
    tail: Buffer.from(`\r\n--${boundary}--\r\n`),
  };
}

type Answer = { status: number; body: string; ms: number };

/** POSTs a multipart body made of `parts` (written one after the other, with backpressure). */
function post(agent: http.Agent, port: number, key: string, boundary: string, parts: Iterable<Buffer>, length: number): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/public/v1/upload',
      headers: { authorization: key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body, ms: performance.now() - started }));
    });
    req.on('error', reject);
    const iterator = parts[Symbol.iterator]();
    const pump = () => {
      for (;;) {
        const next = iterator.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

/** An MP4 (ftyp, moov with one 1920×1080 video track, then `mdatBytes` of media data), as 1 MiB pieces. */
function* mp4Pieces(mdatBytes: number): Generator<Buffer> {
  const box = (type: string, ...payload: Buffer[]) => {
    const body = Buffer.concat(payload);
    return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'latin1'), body]);
  };
  const full = (type: string, flags: number, ...payload: Buffer[]) => box(type, u32(flags), ...payload);
  const matrix = Buffer.concat([0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000].map(u32));
  const tkhd = full(
    'tkhd',
    3,
    u32(0),
    u32(0),
    u32(1),
    u32(0),
    u32(1000),
    Buffer.alloc(16),
    matrix,
    u32(1920 * 0x10000),
    u32(1080 * 0x10000),
  );
  const hdlr = full('hdlr', 0, u32(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('VideoHandler\0', 'latin1'));
  const moov = box('moov', full('mvhd', 0, Buffer.alloc(96)), box('trak', tkhd, box('mdia', full('mdhd', 0, Buffer.alloc(20)), hdlr)));
  yield Buffer.concat([
    box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1')),
    moov,
    u32(8 + mdatBytes),
    Buffer.from('mdat', 'latin1'),
  ]);
  const piece = randomBytes(MiB);
  for (let sent = 0; sent < mdatBytes; sent += MiB) yield sent + MiB <= mdatBytes ? piece : piece.subarray(0, mdatBytes - sent);
}

/** Uploads as fast as `connections` clients can for `seconds`; `body(i)` makes the i-th file. */
async function uploadLoad(port: number, key: string, options: { seconds: number; connections: number; body: (i: number) => Buffer }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let serial = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.connections }, async () => {
      while (performance.now() < deadline) {
        const boundary = `----bench${serial}`;
        const file = options.body(serial++);
        const { head, tail } = multipartFraming('photo.png', 'image/png', boundary);
        const answer = await post(agent, port, key, boundary, [head, file, tail], head.length + file.length + tail.length);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        latencies.push(answer.ms);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!);
  return {
    uploadsPerSecond: Math.round(latencies.length / elapsed),
    total: latencies.length,
    statuses,
    latencyP50: at(0.5),
    latencyP99: at(0.99),
  };
}

/**
 * The media library on the real `herald serve` process (SQLite, local disk store):
 * - a 200 MB MP4 uploaded in one request, with the server's resident memory sampled throughout
 *   (the file must stream to disk, so memory stays flat);
 * - 1 MB images uploaded by `connections` clients at once, every one new (hash, store, insert);
 * - the same 1 MB image again and again (hash, store, unique violation, remove the copy).
 */
export async function mediaBench(options: { seconds: number; connections: number; videoMiB: number }) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-media-'));
  const env = { DATA_DIR: dataDir, BOOTSTRAP: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_MAX: '100000000', SECRET_KEY: 'ef'.repeat(32) };
  const runtime = await openRuntime(loadConfig(env));
  const ws = await runtime.services.workspaces.create({ name: 'Bench' });
  const user = await runtime.services.users.create({ email: 'media-bench@example.test' });
  await runtime.services.workspaces.addMember(ws.id, user.id, 'owner');
  const { secret } = await runtime.services.apiKeys.create({ userId: user.id });
  await runtime.close();

  const herald = await startHerald(HERALD, env);
  const pid = herald.child.pid!;
  try {
    const atStart = memoryOf(pid);
    const filler = randomBytes(MiB);
    // Warm up the upload path (JIT, statement cache) before measuring anything.
    await uploadLoad(herald.port, secret, { seconds: 2, connections: 2, body: (i) => pngOfSize(MiB, filler, 1_000_000 + i) });
    const beforeVideo = memoryOf(pid);

    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(memoryOf(pid).rss), 50);
    const videoBytes = options.videoMiB * MiB;
    const boundary = '----benchvideo';
    const { head, tail } = multipartFraming('film.mp4', 'video/mp4', boundary);
    const movie = mp4Pieces(videoBytes);
    const header = movie.next().value as Buffer;
    const videoLength = header.length + videoBytes;
    const body = (function* () {
      yield head;
      yield header;
      yield* movie;
      yield tail;
    })();
    const video = await post(new http.Agent(), herald.port, secret, boundary, body, head.length + videoLength + tail.length);
    clearInterval(sampler);
    if (video.status !== 200) throw new Error(`video upload answered ${video.status}: ${video.body}`);
    const afterVideo = memoryOf(pid);

    const fresh = await uploadLoad(herald.port, secret, {
      seconds: options.seconds,
      connections: options.connections,
      body: (i) => pngOfSize(MiB, filler, i),
    });
    const same = pngOfSize(MiB, filler, 0xffffffff);
    const duplicate = await uploadLoad(herald.port, secret, {
      seconds: options.seconds,
      connections: options.connections,
      body: () => same,
    });
    return {
      video: {
        rssAtStartMiB: atStart.rss,
        bytes: videoLength,
        seconds: Number((video.ms / 1000).toFixed(2)),
        megabytesPerSecond: Math.round(videoLength / MiB / (video.ms / 1000)),
        rssBeforeMiB: beforeVideo.rss,
        rssMaxDuringMiB: Math.max(...samples),
        rssAfterMiB: afterVideo.rss,
        peakRssBeforeMiB: beforeVideo.peak,
        peakRssAfterMiB: afterVideo.peak,
      },
      newImages1MiB: fresh,
      duplicateImage1MiB: duplicate,
      finalPeakRssMiB: memoryOf(pid).peak,
    };
  } finally {
    await stop(herald.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
