// Starts the reference Bluesky PDS (@atproto/pds) and a PLC directory stand-in, both on
// loopback with a temporary data directory, then prints one JSON line:
//   {"pds":"http://localhost:<port>","plc":"http://127.0.0.1:<port>","adminPassword":"…"}
// Stops cleanly (and removes the data) on SIGTERM or SIGINT, and also when its standard input
// closes if started with --exit-with-stdin (so a crashed test runner leaves no server behind).
//
// The PDS never calls out: the PLC directory is the stand-in, the app view URL is a closed
// loopback port, there are no crawlers and no e-mail, and handles live under `.test`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import pdsLib from '@atproto/pds';
import { startPlc } from './plc.js';

const { PDS, envToCfg, envToSecrets, readEnv } = pdsLib;

/** A loopback port nobody listens on right now. */
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  return port;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pds-'));
const plc = await startPlc();
const port = Number(process.env.PDS_PORT) || (await freePort());
const adminPassword = process.env.PDS_ADMIN_PASSWORD || crypto.randomBytes(16).toString('hex');

Object.assign(process.env, {
  PDS_HOSTNAME: 'localhost',
  PDS_PORT: String(port),
  PDS_DEV_MODE: 'true',
  PDS_DATA_DIRECTORY: dataDir,
  PDS_BLOBSTORE_DISK_LOCATION: path.join(dataDir, 'blobs'),
  PDS_JWT_SECRET: crypto.randomBytes(32).toString('hex'),
  PDS_ADMIN_PASSWORD: adminPassword,
  PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX: crypto.randomBytes(32).toString('hex'),
  PDS_DID_PLC_URL: plc.url,
  PDS_INVITE_REQUIRED: 'false',
  // Nothing listens there: anything the PDS would ask the app view fails fast, on loopback.
  PDS_BSKY_APP_VIEW_URL: `http://127.0.0.1:${await freePort()}`,
  PDS_BSKY_APP_VIEW_DID: 'did:web:appview.test',
  PDS_CRAWLERS: '',
});

const env = readEnv();
const pds = await PDS.create(envToCfg(env), envToSecrets(env));
// PDS#start() listens on every interface; keep the peer on loopback.
const listen = pds.app.listen.bind(pds.app);
pds.app.listen = (p, ...rest) => listen(p, '127.0.0.1', ...rest);
await pds.start();

let stopping = false;
async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  try {
    await pds.destroy();
    await plc.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(code);
  }
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
if (process.argv.includes('--exit-with-stdin')) {
  process.stdin.on('end', () => void stop());
  process.stdin.on('close', () => void stop());
  process.stdin.resume();
}

process.stdout.write(`${JSON.stringify({ pds: `http://localhost:${port}`, plc: plc.url, adminPassword })}\n`);
