// A stand-in for the PLC directory (plc.directory) on loopback: enough of its HTTP API for a
// PDS to register new accounts and for anyone to resolve their DIDs. Each appended operation
// is checked with the reference library's validateOperationLog, so a malformed or badly
// signed operation is refused as the real directory would refuse it.
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { URL } from 'node:url';
import plcLib from '@did-plc/lib';

const { validateOperationLog, formatDidDoc } = plcLib;

/** Starts the stand-in on 127.0.0.1 (port 0 picks a free one); resolves once it listens. */
export async function startPlc({ port = 0 } = {}) {
  /** @type {Map<string, unknown[]>} did → its operations, oldest first */
  const logs = new Map();

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => send(res, 500, { message: String(error?.message ?? error) }));
  });

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://plc.invalid');
    const [did, ...rest] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const tail = rest.join('/');
    if (!did) return send(res, 200, { ok: true });
    if (!did.startsWith('did:plc:')) return send(res, 400, { message: `Not a did:plc: ${did}` });

    if (req.method === 'POST' && tail === '') {
      let op;
      try {
        op = JSON.parse(await readBody(req));
      } catch {
        return send(res, 400, { message: 'Body is not JSON' });
      }
      const ops = [...(logs.get(did) ?? []), op];
      try {
        await validateOperationLog(did, ops);
      } catch (error) {
        return send(res, 400, { message: `Invalid operation: ${error?.message ?? error}` });
      }
      logs.set(did, ops);
      return send(res, 200, '');
    }

    if (req.method !== 'GET') return send(res, 405, { message: 'Method not allowed' });
    const ops = logs.get(did);
    if (!ops) return send(res, 404, { message: `DID not registered: ${did}` });
    if (tail === 'log') return send(res, 200, ops);
    if (tail === 'log/last') return send(res, 200, ops.at(-1));
    const data = await validateOperationLog(did, ops);
    if (!data) return send(res, 410, { message: `DID not available: ${did}` });
    if (tail === '') return send(res, 200, formatDidDoc(data), 'application/did+ld+json');
    if (tail === 'data') return send(res, 200, data);
    return send(res, 404, { message: 'Not found' });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(undefined));
  });
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > 1_000_000) return reject(new Error('Body too large'));
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, body, type = 'application/json') {
  if (res.headersSent) return res.end();
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
