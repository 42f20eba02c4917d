import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { deflateSync, crc32 } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { createOutboundClient, type OutboundClient, type OutboundOptions } from '../../../src/net/outbound.ts';
import type { ProviderContext, PublishInput, PublishMedia } from '../../../src/providers/provider.ts';
import { PROCESS_BUDGET_MS } from '../../helpers/process.ts';
import { NO_PLATFORM_APPS } from '../../helpers/providers.ts';
import type { PlatformApps } from '../../../src/providers/platform-apps.ts';

export const PEER_DIR = fileURLToPath(new URL('../../../peers/bluesky-pds/', import.meta.url));

/** A solid-colour RGB PNG of `width`×`height`, built by hand (signature, IHDR, IDAT, IEND). */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 40, 90]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body) >>> 0, 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export function mediaItem(bytes: Buffer, options: Partial<Omit<PublishMedia, 'read'>> = {}): PublishMedia {
  const id = options.id ?? randomUUID();
  return {
    id,
    url: options.url ?? `https://media.herald.test/${id}.png`,
    name: options.name ?? `${id}.png`,
    mimeType: options.mimeType ?? 'image/png',
    size: options.size ?? bytes.byteLength,
    width: options.width === undefined ? null : options.width,
    height: options.height === undefined ? null : options.height,
    durationMs: options.durationMs,
    read: async (range) => (range ? bytes.subarray(range.start, range.end + 1) : bytes),
  };
}

export function publishInput(overrides: Partial<PublishInput> = {}): PublishInput {
  const text = overrides.text ?? 'Hello from Herald';
  return { postId: randomUUID(), part: 0, text, html: `<p>${text}</p>`, media: [], settings: {}, ...overrides };
}

const clients: OutboundClient[] = [];

/** A context for one channel; the outbound client lets loopback through (the peers are on 127.0.0.1). */
export function providerContext(
  config: Record<string, unknown>,
  options: { channelId?: string; outbound?: OutboundOptions; signal?: AbortSignal; platformApps?: PlatformApps } = {},
): ProviderContext {
  const outbound = createOutboundClient({ allowLoopback: true, ...options.outbound });
  clients.push(outbound);
  return {
    channel: { id: options.channelId ?? randomUUID(), workspaceId: 'ws_test', name: 'Bluesky test', profile: null },
    config,
    outbound,
    platformApps: options.platformApps ?? NO_PLATFORM_APPS,
    signal: options.signal,
  };
}

export async function closeOutboundClients(): Promise<void> {
  await Promise.all(clients.splice(0).map((c) => c.close()));
}

/** A valid CIDv1 (base32, sha-256) for `content`: dag-cbor (0x71) for records, raw (0x55) for blobs. */
export function cidFor(content: string | Buffer, codec: 0x71 | 0x55 = 0x71): string {
  const bytes = Buffer.concat([Buffer.from([0x01, codec, 0x12, 0x20]), createHash('sha256').update(content).digest()]);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = 'b';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

export type PdsPeer = { pds: string; plc: string; adminPassword: string; stop(): Promise<void> };

/** Whether the peer's dependencies are installed (`npm ci --prefix peers/bluesky-pds`). */
export function peerInstalled(): boolean {
  return fs.existsSync(`${PEER_DIR}node_modules/@atproto/pds/package.json`);
}

/** Starts peers/bluesky-pds/start.js as a child process and waits for its JSON line. */
export async function startPdsPeer(): Promise<PdsPeer> {
  if (!peerInstalled()) {
    throw new Error(
      'The Bluesky PDS test peer is not installed: run `npm ci --prefix peers/bluesky-pds` (or set HERALD_SKIP_BLUESKY_PEER=1 to skip these tests).',
    );
  }
  const child: ChildProcess = spawn(process.execPath, ['start.js', '--exit-with-stdin'], {
    cwd: PEER_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, LOG_ENABLED: 'false' },
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ pds: string; plc: string; adminPassword: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The PDS peer did not start in ${PROCESS_BUDGET_MS / 1000} s:\n${output}`));
    }, PROCESS_BUDGET_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.startsWith('{"pds"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The PDS peer exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    ...ready,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A plain XRPC call to the peer, as a test's own client (not through the provider). */
export async function xrpc<T = Record<string, unknown>>(
  base: string,
  nsid: string,
  options: { query?: Record<string, string>; body?: unknown; token?: string } = {},
): Promise<{ status: number; data: T }> {
  const url = new URL(`/xrpc/${nsid}`, base);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const response = await fetch(url, {
    method: options.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...(options.token && { authorization: `Bearer ${options.token}` }),
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, data: (text ? JSON.parse(text) : {}) as T };
}

export type PdsAccount = { handle: string; did: string; password: string; appPassword: string; accessJwt: string };

/** Creates an account on the peer and an app password for it, through XRPC. */
export async function createAccount(pds: string, name: string): Promise<PdsAccount> {
  const handle = `${name}-${randomUUID().slice(0, 8)}.test`;
  const password = `pw-${randomUUID()}`;
  const created = await xrpc<{ did: string; accessJwt: string }>(pds, 'com.atproto.server.createAccount', {
    body: { handle, email: `${handle}@example.test`, password },
  });
  if (created.status !== 200) throw new Error(`createAccount failed: ${JSON.stringify(created.data)}`);
  const app = await xrpc<{ password: string }>(pds, 'com.atproto.server.createAppPassword', {
    body: { name: 'herald' },
    token: created.data.accessJwt,
  });
  if (app.status !== 200) throw new Error(`createAppPassword failed: ${JSON.stringify(app.data)}`);
  return { handle, did: created.data.did, password, appPassword: app.data.password, accessJwt: created.data.accessJwt };
}
