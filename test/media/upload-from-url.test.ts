import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient } from '../../src/net/outbound.ts';
import { createTenant, createTestApp, type TestApp, type Tenant } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { fileBody, jpeg, mp4, png } from '../helpers/media-files.ts';
import { loopbackOnlyConnector, resolver } from '../helpers/outbound.ts';
import { storedObjects } from '../helpers/stored-objects.ts';

const MiB = 1024 * 1024;

/** The source the server fetches from: a loopback HTTP server with one behaviour per path. */
let source: { origin: string; port: number; hits: string[] };
let server: http.Server;
const served = {
  photo: png(9, 6, [10, 200, 30]),
  video: mp4(1280, 720, { mdatBytes: 4096 }),
  picture: jpeg(16, 16, 60),
};
beforeAll(async () => {
  const hits: string[] = [];
  server = http.createServer((req, res) => {
    hits.push(req.url!);
    const url = new URL(req.url!, 'http://x');
    switch (url.pathname) {
      case '/photo.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end(served.photo);
      case '/clips/holiday%20clip.mp4':
        return res.writeHead(200, { 'content-type': 'video/mp4' }).end(served.video);
      case '/download':
        return res
          .writeHead(200, { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="Portrait.jpg"' })
          .end(served.picture);
      case '/page.png':
        return res.writeHead(200, { 'content-type': 'image/png' }).end('<!doctype html><title>not an image</title>');
      case '/empty.png':
        return res.writeHead(200, { 'content-type': 'image/png', 'content-length': '0' }).end();
      case '/missing.png':
        return res.writeHead(404).end('no');
      case '/broken.png':
        return res.writeHead(503).end('down');
      case '/declared-huge.png':
        // Enough to recognise the type, then nothing more: the answer must not wait for the rest.
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(50 * MiB) });
        return res.write(Buffer.concat([png(2, 2), Buffer.alloc(64 * 1024)]));
      case '/streamed-huge.png': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(png(2, 2));
        const chunk = Buffer.alloc(256 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 40 * MiB && !res.destroyed) {
            sent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      case '/silent':
        return;
      case '/trickle.png': {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(png(2, 2));
        const timer = setInterval(() => res.write('x'), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/to-metadata':
        return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' }).end();
      case '/to-internal':
        return res.writeHead(301, { location: 'http://internal.test/secret.png' }).end();
      case '/to-mapped':
        return res.writeHead(307, { location: 'http://[::ffff:10.0.0.1]/x.png' }).end();
      case '/to-photo':
        return res.writeHead(302, { location: '/photo.png' }).end();
      case '/loop':
        return res.writeHead(302, { location: '/loop' }).end();
      default:
        return res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  source = { origin: `http://127.0.0.1:${port}`, port, hits };
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// The app fetches with allowLoopback (so the loopback source works) through a resolver that
// knows a few names and a connector that can only ever open loopback connections.
const dns = resolver({
  'cdn.test': ['127.0.0.1'],
  'internal.test': ['10.0.0.7'],
  'mixed.test': ['127.0.0.1', '192.168.1.20'],
  'metadata.test': ['169.254.169.254'],
});
const guard = loopbackOnlyConnector();
let t: TestApp;
// A second app with a whole-download limit of 0.6 s, for the sources that stall; the first keeps
// the default limit, so a large download on a loaded machine is never cut by the clock.
let hasty: TestApp;
beforeAll(async () => {
  const outbound = () =>
    createOutboundClient({ allowLoopback: true, lookup: dns.lookup, connector: guard.connector, timeoutMs: 5000, maxRedirects: 3 });
  t = await createTestApp({ outbound: outbound() });
  hasty = await createTestApp({ outbound: outbound(), env: { MEDIA_FETCH_TIMEOUT_SECONDS: '0.6' } });
});
afterEach(() => {
  expect(guard.violations).toEqual([]);
});

function fromUrl(tenant: Tenant, url: string, app: TestApp = t) {
  return app.request({ method: 'POST', url: '/public/v1/upload-from-url', key: tenant.key, payload: { url } });
}

async function stored(app: TestApp = t): Promise<string[]> {
  return (await storedObjects(app.config)).objects;
}

describe('POST /public/v1/upload-from-url', () => {
  it("fetches an image, records it under the URL's file name, and serves it back", async () => {
    const tenant = await createTenant(t);
    const res = await fromUrl(tenant, `${source.origin}/photo.png?size=large`);
    expect(res.statusCode, res.body).toBe(200);
    const { id, path: filePath } = res.json();
    expect(filePath).toMatch(/^http:\/\/herald\.test\/media\/[0-9a-f]{2}\/[0-9a-f]{32}\.png$/);
    const list = (await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key })).json();
    expect(list.results).toEqual([
      expect.objectContaining({
        id,
        name: 'photo.png',
        type: 'image',
        mimeType: 'image/png',
        size: served.photo.length,
        width: 9,
        height: 6,
      }),
    ]);
    expect((await t.request({ method: 'GET', url: new URL(filePath).pathname })).rawPayload.equals(served.photo)).toBe(true);
  });

  it('takes a video, a decoded path segment, a Content-Disposition name and a name resolving to loopback', async () => {
    const tenant = await createTenant(t);
    expect((await fromUrl(tenant, `${source.origin}/clips/holiday%20clip.mp4`)).statusCode).toBe(200);
    expect((await fromUrl(tenant, `http://cdn.test:${source.port}/download`)).statusCode).toBe(200);
    const names = (await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key }))
      .json()
      .results.map((m: { name: string; type: string; width: number }) => [m.name, m.type, m.width]);
    expect(names.sort()).toEqual([
      ['Portrait.jpg', 'image', 16],
      ['holiday clip.mp4', 'video', 1280],
    ]);
  });

  it('follows a redirect to an allowed place', async () => {
    const tenant = await createTenant(t);
    const res = await fromUrl(tenant, `${source.origin}/to-photo`);
    expect(res.statusCode).toBe(200);
  });

  it('deduplicates with /upload and itself within a workspace, not across workspaces', async () => {
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    const uploaded = (
      await t.request({ method: 'POST', url: '/public/v1/upload', key: tenant.key, ...fileBody(served.photo, 'mine.png') })
    ).json();
    const before = (await stored()).length;
    const fetched = (await fromUrl(tenant, `${source.origin}/photo.png`)).json();
    const again = (await fromUrl(tenant, `${source.origin}/photo.png`)).json();
    expect(fetched).toEqual(uploaded);
    expect(again).toEqual(uploaded);
    expect((await stored()).length).toBe(before);
    const theirs = (await fromUrl(other, `${source.origin}/photo.png`)).json();
    expect(theirs.id).not.toBe(uploaded.id);
    expect((await stored()).length).toBe(before + 1);
  });

  describe('refuses internal addresses with a 400 that says why, without connecting', () => {
    it.each([
      ['http://169.254.169.254/latest/meta-data/', 'Refused to connect: 169.254.169.254 is a link-local (cloud metadata) address.'],
      ['http://0xa9fea9fe/', 'Refused to connect: 169.254.169.254 is a link-local (cloud metadata) address.'],
      ['http://10.0.0.1/a.png', 'Refused to connect: 10.0.0.1 is a private address.'],
      ['http://0/a.png', 'Refused to connect: 0.0.0.0 is an unspecified ("this network") address.'],
      ['http://[fd00:ec2::254]/', 'Refused to connect: fd00:ec2::254 is a private (unique local) address.'],
      ['http://[::ffff:192.168.0.1]/', 'Refused to connect: ::ffff:c0a8:1 is an IPv6 form of 192.168.0.1, a private address.'],
      ['http://internal.test/a.png', 'Refused to connect: internal.test resolves to 10.0.0.7, a private address.'],
      ['http://mixed.test/a.png', 'Refused to connect: mixed.test resolves to 192.168.1.20, a private address.'],
      ['http://metadata.test/', 'Refused to connect: metadata.test resolves to 169.254.169.254, a link-local (cloud metadata) address.'],
    ])('%s', async (url, msg) => {
      const tenant = await createTenant(t);
      const res = await fromUrl(tenant, url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ code: 'outbound_refused', msg: `${msg} Only public internet addresses can be fetched.` });
    });

    it.each([
      ['/to-metadata', /169\.254\.169\.254 is a link-local \(cloud metadata\) address/],
      ['/to-internal', /internal\.test resolves to 10\.0\.0\.7, a private address/],
      ['/to-mapped', /IPv6 form of 10\.0\.0\.1, a private address/],
    ])('a redirect from %s to an internal address is refused too', async (pathname, reason) => {
      const tenant = await createTenant(t);
      const res = await fromUrl(tenant, `${source.origin}${pathname}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'outbound_refused', msg: expect.stringMatching(reason) });
    });

    it('without OUTBOUND_ALLOW_LOOPBACK (the default), loopback is refused as well', async () => {
      const strict = await createTestApp();
      const tenant = await createTenant(strict);
      const hitsBefore = source.hits.length;
      for (const url of [
        `${source.origin}/photo.png`,
        `http://2130706433:${source.port}/photo.png`,
        `http://[::1]:${source.port}/`,
        `http://[::ffff:127.0.0.1]:${source.port}/`,
      ]) {
        const res = await fromUrl(tenant, url, strict);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().msg).toMatch(
          /loopback address\. Only public internet addresses can be fetched \(for local development, OUTBOUND_ALLOW_LOOPBACK=true lets loopback addresses through\)\.$/,
        );
      }
      expect(source.hits.length).toBe(hitsBefore);
    });

    it('OUTBOUND_ALLOW_LOOPBACK=true lets loopback through (tests and local development only)', async () => {
      const loose = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
      const tenant = await createTenant(loose);
      expect((await fromUrl(tenant, `${source.origin}/photo.png`, loose)).statusCode).toBe(200);
      expect((await fromUrl(tenant, 'http://10.0.0.1/', loose)).statusCode).toBe(400);
    });
  });

  describe('a source that fails answers with what happened', () => {
    it.each([
      ['/missing.png', 400, 'source_refused', /^the URL \(127\.0\.0\.1:\d+\) answered 404 Not Found; nothing was fetched\.$/],
      ['/broken.png', 502, 'upstream_failed', /^the URL \(127\.0\.0\.1:\d+\) answered 503 Service Unavailable\.$/],
      ['/loop', 502, 'too_many_redirects', /^Gave up after 3 redirects\.$/],
      ['/page.png', 400, 'unsupported_type', /"page\.png" is not a recognised image or video/],
      ['/empty.png', 400, 'empty_file', /"empty\.png" is empty/],
    ])('%s: %i %s', async (pathname, status, code, msg) => {
      const tenant = await createTenant(t);
      const res = await fromUrl(tenant, `${source.origin}${pathname}`);
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ code, msg: expect.stringMatching(msg) });
    });

    it("a port fetch never connects to (:1) is the caller's URL: 400 with a sentence, never tried", async () => {
      const tenant = await createTenant(t);
      const res = await fromUrl(tenant, 'http://127.0.0.1:1/a.png');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'port_refused', msg: expect.stringMatching(/Port 1 .* is reserved for other protocols/) });
    });

    it('an unknown host is a 400, a closed port a 502', async () => {
      const tenant = await createTenant(t);
      const unknown = await fromUrl(tenant, 'http://nowhere.test/a.png');
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toEqual({ code: 'host_not_found', msg: 'The host of the URL (nowhere.test) could not be found.' });
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise((resolve) => closed.close(resolve));
      const refused = await fromUrl(tenant, `http://127.0.0.1:${port}/a.png`);
      expect(refused.statusCode).toBe(502);
      expect(refused.json()).toEqual({ code: 'upstream_unreachable', msg: `the URL (127.0.0.1:${port}) refused the connection.` });
    });

    it.each(['/silent', '/trickle.png'])(
      '%s: a source that stalls is cut at the time limit (502), and nothing is kept',
      async (pathname) => {
        // The source never finishes: only the time limit can end this request.
        const tenant = await createTenant(hasty);
        const before = await stored(hasty);
        const res = await fromUrl(tenant, `${source.origin}${pathname}`, hasty);
        expect(res.statusCode).toBe(502);
        expect(res.json()).toMatchObject({ code: 'upstream_timeout', msg: expect.stringMatching(/did not answer in time/) });
        expect(await stored(hasty)).toEqual(before);
      },
    );
  });

  it('refuses an image declared over 10 MB before reading it, and cuts one streamed past 10 MB off (413)', async () => {
    const tenant = await createTenant(t);
    const before = await stored();
    for (const pathname of ['/declared-huge.png', '/streamed-huge.png']) {
      const res = await fromUrl(tenant, `${source.origin}${pathname}`);
      expect(res.statusCode, pathname).toBe(413);
      expect(res.json()).toMatchObject({ code: 'too_large', msg: expect.stringMatching(/images can be at most 10 MB/) });
    }
    expect(await stored()).toEqual(before);
    expect((await t.request({ method: 'GET', url: '/public/v1/media', key: tenant.key })).json().total).toBe(0);
  });

  it('validates the body: a URL, http or https only', async () => {
    const tenant = await createTenant(t);
    for (const payload of [
      {},
      { url: 'not a url' },
      { url: 'ftp://example.test/a.png' },
      { url: 'file:///etc/passwd' },
      { url: 'javascript:alert(1)' },
      { url: 42 },
    ]) {
      const res = await t.request({ method: 'POST', url: '/public/v1/upload-from-url', key: tenant.key, payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request', message: [expect.stringMatching(/^body\.url/)] });
    }
  });

  // The source's port is known only once it listens: the body reads it when sent.
  const matrixBody = {
    get url() {
      return `http://cdn.test:${source.port}/photo.png`;
    },
  };
  runAuthMatrix(() => t, { method: 'POST', url: () => '/public/v1/upload-from-url', scope: 'media:write', body: matrixBody });
});
