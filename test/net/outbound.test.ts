import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createOutboundClient,
  explainOutboundFailure,
  OutboundRefusedError,
  readLimited,
  wasNotSent,
  type LookupFunction,
  type OutboundClient,
  type OutboundOptions,
} from '../../src/net/outbound.ts';
import { loopbackOnlyConnector, recorder, resolver } from '../helpers/outbound.ts';

/** A real connector that opens loopback connections only: anything else is a test failure, never a packet. */
const { connector: loopbackOnly, violations } = loopbackOnlyConnector();
afterEach(() => {
  expect(violations).toEqual([]);
});

const clients: OutboundClient[] = [];
function client(options: OutboundOptions): OutboundClient {
  const c = createOutboundClient(options);
  clients.push(c);
  return c;
}
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function refusal(promise: Promise<unknown>): Promise<OutboundRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundRefusedError);
  expect((error as OutboundRefusedError).statusCode).toBe(400);
  return error as OutboundRefusedError;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, origin: string) => void;
async function loopbackServer(handler: Handler, host = '127.0.0.1') {
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, origin);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  servers.push(server);
  return { origin, port, seen };
}
const servers: http.Server[] = [];
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

describe('addresses written into the URL, in every spelling', () => {
  const cases: Array<[url: string, normalised: string, range: RegExp]> = [
    ['http://127.0.0.1/', '127.0.0.1', /loopback/],
    ['http://127.1/', '127.0.0.1', /loopback/],
    ['http://2130706433/', '127.0.0.1', /loopback/],
    ['http://0x7f000001/', '127.0.0.1', /loopback/],
    ['http://0x7f.0.0.1/', '127.0.0.1', /loopback/],
    ['http://0177.0.0.1/', '127.0.0.1', /loopback/],
    ['http://017700000001/', '127.0.0.1', /loopback/],
    ['http://0177.1/', '127.0.0.1', /loopback/],
    ['http://127.000.000.001/', '127.0.0.1', /loopback/],
    ['http://127.0.0.1./', '127.0.0.1', /loopback/],
    ['http://0/', '0.0.0.0', /unspecified/],
    ['http://10.1/', '10.0.0.1', /private/],
    ['http://0x0a000001:8080/', '10.0.0.1', /private/],
    ['http://192.168.1.1:3000/admin', '192.168.1.1', /private/],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', /link-local \(cloud metadata\)/],
    ['http://2852039166/', '169.254.169.254', /link-local/],
    ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254', /link-local/],
    ['http://0251.0376.0251.0376/', '169.254.169.254', /link-local/],
    ['http://100.100.100.200/', '100.100.100.200', /carrier-grade NAT/],
    ['http://224.0.0.1/', '224.0.0.1', /multicast/],
    ['http://255.255.255.255/', '255.255.255.255', /reserved/],
    ['http://[::1]/', '::1', /loopback/],
    ['http://[::]/', '::', /unspecified/],
    ['http://[0:0:0:0:0:0:0:1]:8080/', '::1', /loopback/],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', /IPv6 form of 127\.0\.0\.1/],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1', /IPv6 form of 127\.0\.0\.1/],
    ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe', /IPv6 form of 169\.254\.169\.254/],
    ['http://[::127.0.0.1]/', '::7f00:1', /IPv6 form of 127\.0\.0\.1/],
    ['http://[64:ff9b::10.0.0.1]/', '64:ff9b::a00:1', /IPv6 form of 10\.0\.0\.1/],
    ['http://[2002:a9fe:a9fe::1]/', '2002:a9fe:a9fe::1', /IPv6 form of 169\.254\.169\.254/],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '2001:0:4136:e378:8000:63bf:80ff:fffe', /IPv6 form of 127\.0\.0\.1/],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254', /unique local/],
    ['https://[fe80::1]/', 'fe80::1', /link-local/],
    ['http://[ff02::1]/', 'ff02::1', /multicast/],
  ];

  it.each(cases)('%s is refused before any lookup or connection', async (url, normalised, range) => {
    const dns = resolver({});
    const rec = recorder();
    const outbound = client({ lookup: dns.lookup, connector: rec.connector });
    const error = await refusal(outbound.fetch(url));
    expect(error.message).toContain(`Refused to connect: ${normalised} is `);
    expect(error.message).toMatch(range);
    // Loopback, and only loopback, names the setting that lets it through for local development.
    const hint = /\(for local development, OUTBOUND_ALLOW_LOOPBACK=true lets loopback addresses through\)/;
    expect(error.message).toMatch(/Only public internet addresses can be fetched( \(.*\))?\.$/);
    if (/127\.0\.0\.1|loopback/.test(error.message)) expect(error.message).toMatch(hint);
    else expect(error.message).not.toMatch(hint);
    expect(dns.asked).toEqual([]);
    expect(rec.opened).toEqual([]);
  });

  it('connects to a public literal address as written', async () => {
    const rec = recorder();
    const outbound = client({ lookup: resolver({}).lookup, connector: rec.connector });
    await expect(outbound.fetch('http://93.184.216.34:8080/x')).rejects.toThrow();
    await expect(outbound.fetch('https://[2606:4700:4700::1111]/')).rejects.toThrow();
    expect(rec.opened).toEqual([
      { hostname: '93.184.216.34', port: '8080', servername: undefined, protocol: 'http:' },
      { hostname: '2606:4700:4700::1111', port: '', servername: undefined, protocol: 'https:' },
    ]);
  });
});

describe('names', () => {
  const table = {
    'internal.test': ['10.0.0.5'],
    'metadata.test': ['169.254.169.254'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'nat64.test': ['64:ff9b::c0a8:1'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
    'mixed6.test': ['2606:4700:4700::1111', 'fd12:3456::1'],
    'loopback.test': ['127.0.0.1', '::1'],
    'public.test': ['93.184.216.34'],
    'two.test': ['93.184.216.34', '93.184.216.35'],
    'empty.test': [],
  };

  it.each([
    ['internal.test', 'internal.test resolves to 10.0.0.5, a private address'],
    ['metadata.test', 'metadata.test resolves to 169.254.169.254, a link-local (cloud metadata) address'],
    ['mapped.test', 'mapped.test resolves to ::ffff:127.0.0.1, an IPv6 form of 127.0.0.1, a loopback address'],
    ['nat64.test', 'nat64.test resolves to 64:ff9b::c0a8:1, an IPv6 form of 192.168.0.1, a private address'],
    ['mixed.test', 'mixed.test resolves to 10.0.0.1, a private address'],
    ['mixed6.test', 'mixed6.test resolves to fd12:3456::1, a private (unique local) address'],
    ['loopback.test', 'loopback.test resolves to 127.0.0.1, a loopback address'],
  ])('%s is refused when any of its addresses is not public, without connecting', async (name, reason) => {
    const dns = resolver(table);
    const rec = recorder();
    const outbound = client({ lookup: dns.lookup, connector: rec.connector });
    const error = await refusal(outbound.fetch(`https://${name}/image.png`));
    const hint = /loopback address$/.test(reason)
      ? ' (for local development, OUTBOUND_ALLOW_LOOPBACK=true lets loopback addresses through)'
      : '';
    expect(error.message).toBe(`Refused to connect: ${reason}. Only public internet addresses can be fetched${hint}.`);
    expect(dns.asked).toEqual([name]);
    expect(rec.opened).toEqual([]);
  });

  it('connects to the checked address itself, resolving once, and keeps the name for TLS', async () => {
    const dns = resolver(table);
    const rec = recorder();
    const outbound = client({ lookup: dns.lookup, connector: rec.connector });
    await expect(outbound.fetch('https://public.test/a.png')).rejects.toThrow();
    expect(dns.asked).toEqual(['public.test']);
    expect(rec.opened).toEqual([{ hostname: '93.184.216.34', port: '', servername: 'public.test', protocol: 'https:' }]);
  });

  it('a resolver that changes its answer (DNS rebinding) cannot redirect a connection: one lookup per connection', async () => {
    let calls = 0;
    const rebinding: LookupFunction = async () =>
      calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const rec = recorder();
    const outbound = client({ lookup: rebinding, connector: rec.connector });
    await expect(outbound.fetch('http://rebind.test/')).rejects.toThrow();
    expect(calls).toBe(1);
    expect(rec.opened.map((o) => o.hostname)).toEqual(['93.184.216.34']);
    await refusal(outbound.fetch('http://rebind.test/'));
    expect(rec.opened.map((o) => o.hostname)).toEqual(['93.184.216.34']);
  });

  it('tries the next checked address when one refuses the connection', async () => {
    const dns = resolver(table);
    const rec = recorder('ECONNREFUSED');
    const outbound = client({ lookup: dns.lookup, connector: rec.connector });
    const error = await outbound.fetch('http://two.test/').catch((e: unknown) => e);
    expect(rec.opened.map((o) => o.hostname)).toEqual(['93.184.216.34', '93.184.216.35']);
    expect(dns.asked).toEqual(['two.test']);
    expect(wasNotSent(error)).toBe(true);
  });

  it('a name that does not resolve, or has no address, is a clear 400', async () => {
    const outbound = client({ lookup: resolver(table).lookup, connector: recorder().connector });
    for (const name of ['nowhere.test', 'empty.test']) {
      const error = await outbound.fetch(`http://${name}/`).catch((e: unknown) => e);
      expect(wasNotSent(error)).toBe(true);
      expect(explainOutboundFailure(error, 'the URL', 1000)).toMatchObject({ statusCode: 400, code: 'host_not_found' });
    }
  });
});

describe('URLs that are not fetched at all', () => {
  it.each([
    ['ftp://public.test/file', /the scheme "ftp:" is not http or https/],
    ['file:///etc/passwd', /the scheme "file:" is not http or https/],
    ['gopher://public.test/', /the scheme "gopher:"/],
    ['http://user:secret@public.test/', /URLs with credentials are not fetched/],
  ])('%s', async (url, reason) => {
    const rec = recorder();
    const outbound = client({ lookup: resolver({ 'public.test': ['93.184.216.34'] }).lookup, connector: rec.connector });
    expect((await refusal(outbound.fetch(url))).message).toMatch(reason);
    expect(rec.opened).toEqual([]);
  });

  it('a string that is not a URL is a 400, not a crash', async () => {
    const outbound = client({ connector: recorder().connector, lookup: resolver({}).lookup });
    await expect(outbound.fetch('not a url')).rejects.toMatchObject({
      statusCode: 400,
      code: 'invalid_url',
      message: '"not a url" is not a valid URL.',
    });
  });
});

describe('redirects (loopback servers)', () => {
  const table = { 'internal.test': ['192.168.0.10'], 'loopback.test': ['127.0.0.1'] };
  let target: Awaited<ReturnType<typeof loopbackServer>>;
  let other: Awaited<ReturnType<typeof loopbackServer>>;
  let outbound: OutboundClient;
  beforeAll(async () => {
    other = await loopbackServer((_req, res) => res.end('other'), '127.0.0.2');
    target = await loopbackServer((req, res, origin) => {
      const url = new URL(req.url!, origin);
      const to = url.searchParams.get('to');
      const hop = url.pathname.match(/^\/hop\/(\d+)$/);
      if (to) {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        return res.end();
      }
      if (hop) {
        const n = Number(hop[1]);
        if (n === 0) return res.end('landed');
        res.writeHead(302, { location: `/hop/${n - 1}` });
        return res.end();
      }
      res.end(`${req.method} ${req.url}`);
    });
    outbound = client({ allowLoopback: true, lookup: resolver(table).lookup, connector: loopbackOnly, maxRedirects: 3 });
  });

  it.each([
    ['http://10.0.0.1/', /10\.0\.0\.1 is a private address/],
    ['http://169.254.169.254/latest/meta-data/iam/', /169\.254\.169\.254 is a link-local \(cloud metadata\) address/],
    ['http://0xa9fea9fe/', /169\.254\.169\.254 is a link-local/],
    ['http://[::ffff:10.0.0.1]/', /IPv6 form of 10\.0\.0\.1/],
    ['http://[fe80::1]/', /link-local/],
    ['http://internal.test/', /internal\.test resolves to 192\.168\.0\.10, a private address/],
    ['file:///etc/passwd', /the scheme "file:"/],
  ])('a redirect to %s is refused', async (to, reason) => {
    for (const status of [301, 302, 303, 307, 308]) {
      const error = await refusal(outbound.fetch(`${target.origin}/start?status=${status}&to=${encodeURIComponent(to)}`));
      expect(error.message).toMatch(reason);
    }
  });

  it('follows relative and loopback redirects (allowed here) and stops after the limit', async () => {
    const three = await outbound.fetch(`${target.origin}/hop/3`);
    expect(await three.text()).toBe('landed');
    await expect(outbound.fetch(`${target.origin}/hop/4`)).rejects.toMatchObject({
      statusCode: 502,
      code: 'too_many_redirects',
      message: 'Gave up after 3 redirects.',
    });
    await expect(outbound.fetch(`${target.origin}/hop/1`, { maxRedirects: 0 })).rejects.toMatchObject({ code: 'too_many_redirects' });
  });

  it('an unparseable Location is a 502, not a crash', async () => {
    await expect(outbound.fetch(`${target.origin}/start?to=${encodeURIComponent('http://[::1')}`)).rejects.toMatchObject({
      statusCode: 502,
      code: 'bad_redirect',
    });
  });

  it("credentials never follow a redirect to another origin; the caller's headers are left unchanged", async () => {
    const headers = { authorization: 'Bearer secret', cookie: 'a=b', 'x-trace': '1' };
    const res = await outbound.fetch(`${target.origin}/start?to=${encodeURIComponent(`${other.origin}/landing`)}`, { headers });
    expect(await res.text()).toBe('other');
    const landing = other.seen.at(-1)!;
    expect(landing.headers.authorization).toBeUndefined();
    expect(landing.headers.cookie).toBeUndefined();
    expect(landing.headers['x-trace']).toBe('1');
    expect(headers).toEqual({ authorization: 'Bearer secret', cookie: 'a=b', 'x-trace': '1' });
    // Same origin: kept.
    await (await outbound.fetch(`${target.origin}/start?to=/same`, { headers })).text();
    expect(target.seen.at(-1)).toMatchObject({ url: '/same', headers: { authorization: 'Bearer secret' } });
  });

  it('a 303 after a POST continues as a GET without the body; a 307 keeps both', async () => {
    const see = await outbound.fetch(`${target.origin}/start?status=303&to=/after`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await see.text()).toBe('GET /after');
    const keep = await outbound.fetch(`${target.origin}/start?status=307&to=/again`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await keep.text()).toBe('POST /again');
    expect(target.seen.at(-1)!.body).toBe('payload');
  });
  it('request(): the same checks at each redirect, credentials dropped across origins, a 303 continues as a GET', async () => {
    for (const to of ['http://10.0.0.1/', 'http://internal.test/', 'file:///etc/passwd']) {
      await refusal(outbound.request(`${target.origin}/start?status=307&to=${encodeURIComponent(to)}`, { limit: 1000 }));
    }
    expect((await outbound.request(`${target.origin}/hop/3`, { limit: 1000 })).body?.toString()).toBe('landed');
    await expect(outbound.request(`${target.origin}/hop/4`, { limit: 1000 })).rejects.toMatchObject({
      statusCode: 502,
      code: 'too_many_redirects',
    });
    await expect(outbound.request(`${target.origin}/hop/1`, { maxRedirects: 0, limit: 1000 })).rejects.toMatchObject({
      code: 'too_many_redirects',
    });
    const headers = { Authorization: 'Bearer secret', 'x-trace': '1' };
    expect(
      (
        await outbound.request(`${target.origin}/start?to=${encodeURIComponent(`${other.origin}/landing`)}`, { headers, limit: 1000 })
      ).body?.toString(),
    ).toBe('other');
    expect(other.seen.at(-1)!.headers.authorization).toBeUndefined();
    expect(other.seen.at(-1)!.headers['x-trace']).toBe('1');
    expect(headers).toEqual({ Authorization: 'Bearer secret', 'x-trace': '1' });
    const see = await outbound.request(`${target.origin}/start?status=303&to=/after`, {
      method: 'POST',
      body: 'payload',
      headers: { 'content-type': 'text/plain' },
      limit: 1000,
    });
    expect(see.body?.toString()).toBe('GET /after');
  });
});

describe('time and size bounds (loopback servers)', () => {
  it('a server that never answers: rejected within the time limit', async () => {
    const silent = await loopbackServer(() => {});
    const outbound = client({ allowLoopback: true, connector: loopbackOnly, timeoutMs: 300 });
    const started = Date.now();
    const error = await outbound.fetch(`${silent.origin}/`).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(wasNotSent(error)).toBe(false);
    expect(explainOutboundFailure(error, 'the URL', 300)).toMatchObject({
      statusCode: 502,
      code: 'upstream_timeout',
      message: 'the URL did not answer in time (limit 0 s).',
    });
  });

  it('a body that trickles: reading it is cut at the time limit', async () => {
    const slow = await loopbackServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    const started = Date.now();
    const response = await outbound.fetch(`${slow.origin}/`, { timeoutMs: 400 });
    const error = await response.text().catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(explainOutboundFailure(error, 'the URL', 400).code).toBe('upstream_timeout');
  });

  it('a resolver that never answers: rejected within the time limit, nothing opened', async () => {
    const rec = recorder();
    const outbound = client({ lookup: () => new Promise(() => {}), connector: rec.connector, timeoutMs: 300, connectTimeoutMs: 1000 });
    const started = Date.now();
    await expect(outbound.fetch('http://hang.test/')).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(rec.opened).toEqual([]);
    // A lookup slower than the connection time limit fails the connection ("not sent"), so nothing hangs on.
    const slow = client({ lookup: () => new Promise(() => {}), connector: rec.connector, timeoutMs: 5000, connectTimeoutMs: 200 });
    const error = await slow.fetch('http://hang.test/').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(wasNotSent(error)).toBe(true);
    await slow.close();
  });

  it('a closed port is "not sent", explained as unreachable', async () => {
    const closed = await loopbackServer(() => {});
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    const error = await outbound.fetch(`${closed.origin}/`).catch((e: unknown) => e);
    expect(wasNotSent(error)).toBe(true);
    expect(explainOutboundFailure(error, 'the URL', 1000)).toMatchObject({
      statusCode: 502,
      code: 'upstream_unreachable',
      message: 'the URL refused the connection.',
    });
  });

  it('readLimited refuses a declared size over the limit unread, and a streamed one as soon as it passes', async () => {
    const big = await loopbackServer((req, res) => {
      if (req.url === '/declared') {
        res.writeHead(200, { 'content-length': '1000' });
        return res.end('x'.repeat(1000));
      }
      res.writeHead(200);
      res.write('x'.repeat(60));
      res.end('y'.repeat(60));
    });
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    await expect(readLimited(await outbound.fetch(`${big.origin}/declared`), 100)).rejects.toMatchObject({
      statusCode: 413,
      code: 'too_large',
    });
    await expect(readLimited(await outbound.fetch(`${big.origin}/chunked`), 100)).rejects.toMatchObject({ statusCode: 413 });
    expect((await readLimited(await outbound.fetch(`${big.origin}/chunked`), 120)).toString()).toBe('x'.repeat(60) + 'y'.repeat(60));
  });

  it("request(): an answer read whole up to its limit (null past it), headers by any case, fetch's defaults unless given", async () => {
    const server = await loopbackServer((req, res) => {
      if (req.url === '/big') return res.end('x'.repeat(1000));
      res.writeHead(201, { 'Retry-After': '7', 'content-type': 'application/json' });
      res.end(JSON.stringify({ accept: req.headers.accept, agent: req.headers['user-agent'] }));
    });
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    const answer = await outbound.request(`${server.origin}/`, {
      method: 'POST',
      body: '{}',
      headers: { Accept: 'application/json' },
      limit: 1000,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(answer.headers.get('Retry-After')).toBe('7');
    expect(answer.headers.get('x-missing')).toBeNull();
    expect(JSON.parse(answer.body!.toString())).toEqual({ accept: 'application/json', agent: 'node' });
    expect(server.seen.at(-1)!.body).toBe('{}');
    const big = await outbound.request(`${server.origin}/big`, { limit: 100 });
    expect(big).toMatchObject({ status: 200, body: null });
  });

  it('request(): asks for an uncompressed answer and decodes one that comes compressed anyway, within its limit', async () => {
    const { gzipSync, brotliCompressSync } = await import('node:zlib');
    const text = JSON.stringify({ ok: true, filler: 'y'.repeat(500) });
    const server = await loopbackServer((req, res) => {
      const coding = req.url === '/br' ? 'br' : req.url === '/identity' ? undefined : 'gzip';
      res.writeHead(200, {
        'content-type': 'application/json',
        'x-asked': String(req.headers['accept-encoding']),
        ...(coding && { 'content-encoding': coding }),
      });
      res.end(coding === 'br' ? brotliCompressSync(text) : coding === 'gzip' ? gzipSync(text) : text);
    });
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    for (const path of ['/identity', '/gzip', '/br']) {
      const answer = await outbound.request(`${server.origin}${path}`, { limit: 1000 });
      expect(answer.headers.get('x-asked')).toBe('identity');
      expect(answer.body!.toString()).toBe(text);
    }
    // Small when compressed, past the limit once decoded: refused like any answer too large.
    expect(await outbound.request(`${server.origin}/gzip`, { limit: 200 })).toMatchObject({ status: 200, body: null });
  });

  it('request(): refused targets, bad ports, a silent server and a closed port fail as fetch does', async () => {
    await refusal(client({ connector: loopbackOnly }).request('http://127.0.0.1/', { limit: 10 }));
    const outbound = client({ allowLoopback: true, connector: loopbackOnly, timeoutMs: 300 });
    await expect(outbound.request('http://127.0.0.1:25/', { limit: 10 })).rejects.toMatchObject({ statusCode: 400, code: 'port_refused' });
    const silent = await loopbackServer(() => {});
    const timedOut = await outbound.request(`${silent.origin}/`, { limit: 10 }).catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ name: 'TimeoutError' });
    expect(wasNotSent(timedOut)).toBe(false);
    const closed = await loopbackServer(() => {});
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await outbound.request(`${closed.origin}/`, { limit: 10 }).catch((e: unknown) => e);
    expect(wasNotSent(refused)).toBe(true);
    expect(explainOutboundFailure(refused, 'the URL', 1000).code).toBe('upstream_unreachable');
  });
});

describe("request(): one time limit for the whole call, and the caller's signal", () => {
  it('a resolver that never answers: rejected at the time limit, nothing opened', async () => {
    const rec = recorder();
    const outbound = client({ lookup: () => new Promise(() => {}), connector: rec.connector, timeoutMs: 200, connectTimeoutMs: 5000 });
    const started = Date.now();
    await expect(outbound.request('http://hang.test/', { limit: 10 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(rec.opened).toEqual([]);
  });

  it('a body that trickles past the time limit: the answer stands, without its body; one that streams past the size limit likewise', async () => {
    const server = await loopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (req.url === '/big') {
        const timer = setInterval(() => res.write('x'.repeat(40)), 5);
        res.on('close', () => clearInterval(timer));
        return;
      }
      const timer = setInterval(() => res.write('x'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    const started = Date.now();
    expect(await outbound.request(`${server.origin}/slow`, { limit: 1000, timeoutMs: 300 })).toMatchObject({ status: 200, body: null });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(await outbound.request(`${server.origin}/big`, { limit: 100, timeoutMs: 5000 })).toMatchObject({ status: 200, body: null });
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("the caller's signal: aborted before the call, or while waiting for the answer, the call rejects with its reason", async () => {
    const silent = await loopbackServer(() => {});
    const outbound = client({ allowLoopback: true, connector: loopbackOnly, timeoutMs: 10_000 });
    const reason = new Error('stopped by the caller');
    await expect(outbound.request(`${silent.origin}/`, { limit: 10, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = outbound.request(`${silent.origin}/`, { limit: 10, signal: controller.signal });
    // Aborted once the request has reached the server.
    while (silent.seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const timeout = await outbound
      .request(`${silent.origin}/`, { limit: 10, timeoutMs: 100, signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect(timeout).toMatchObject({ name: 'TimeoutError' });
  });

  it('many calls in a row on one connection: each gets its own answer and body', async () => {
    const server = await loopbackServer((req, res) => res.end(`answer to ${req.url}`));
    const outbound = client({ allowLoopback: true, connector: loopbackOnly });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => outbound.request(`${server.origin}/${i}`, { method: 'POST', body: String(i), limit: 100 })),
    );
    expect(answers.map((a) => a.body?.toString())).toEqual(Array.from({ length: 50 }, (_, i) => `answer to /${i}`));
  });
});

describe('wasNotSent', () => {
  it('is true only when the request certainly did not leave', () => {
    expect(wasNotSent(new OutboundRefusedError('x'))).toBe(true);
    expect(wasNotSent(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }))).toBe(true);
    expect(wasNotSent(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }))).toBe(false);
    expect(wasNotSent(new DOMException('timeout', 'TimeoutError'))).toBe(false);
  });
});
