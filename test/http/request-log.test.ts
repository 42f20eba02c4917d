import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

let server: ServerProcess;
let drop: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  server = await startServerProcess({
    DATABASE_URL: fresh.url,
    DATA_DIR: fresh.dataDir,
    BASE_URL: 'http://herald.test',
    BOOTSTRAP: 'false',
  });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await drop?.();
});

/** The JSON lines the server has written about requests to `url` so far. */
function requestLines(url: string) {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as {
          msg: string;
          reqId: string;
          req?: { method: string; url: string };
          res?: { statusCode: number };
          responseTime?: number;
        },
    )
    .filter((line) => line.req?.url === url);
}

/**
 * Waits for the server to write about `url` (a request made with `method`, when given): the log is
 * written asynchronously, and two requests to one URL may be written in either order.
 */
async function waitForLine(url: string, method?: string) {
  await expect.poll(() => requestLines(url).some((line) => method === undefined || line.req?.method === method)).toBe(true);
  return requestLines(url);
}

describe('the request log of the real server, its standard output a pipe', () => {
  it('writes one JSON line per request: method, URL, status and time taken', async () => {
    const status = await fetch(`${server.baseUrl}/public/v1/status?probe=1`);
    expect(status.status).toBe(200);
    const refused = await fetch(`${server.baseUrl}/public/v1/integrations?probe=2`, { headers: { authorization: 'svc_nope' } });
    expect(refused.status).toBe(401);

    const ok = await waitForLine('/public/v1/status?probe=1');
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ msg: 'request completed', req: { method: 'GET' }, res: { statusCode: 200 } });
    expect(ok[0]!.responseTime).toEqual(expect.any(Number));
    const denied = await waitForLine('/public/v1/integrations?probe=2');
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({ res: { statusCode: 401 } });
    // Each line carries its request's id.
    expect(ok[0]!.reqId).toEqual(expect.any(String));
    expect(denied[0]!.reqId).toEqual(expect.any(String));
    expect(denied[0]!.reqId).not.toBe(ok[0]!.reqId);
    // The authorization server's replies (written by its library) are logged the same way, under the URL asked for.
    const metadata = await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server?probe=3`);
    expect(metadata.status).toBe(200);
    const token = await fetch(`${server.baseUrl}/oauth/token?probe=4`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=nope',
    });
    expect(token.status).toBe(400);
    expect((await waitForLine('/.well-known/oauth-authorization-server?probe=3'))[0]).toMatchObject({
      msg: 'request completed',
      req: { method: 'GET' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    expect(await waitForLine('/oauth/token?probe=4')).toEqual([
      expect.objectContaining({ msg: 'request completed', req: expect.objectContaining({ method: 'POST' }), res: { statusCode: 400 } }),
    ]);
    // Fastify's own "incoming request" line is not written.
    expect(server.output()).not.toMatch(/incoming request/);
  });
});

describe('secrets in URLs, at the default level', () => {
  it('are never written: sign-in codes and links, upload links, platform callbacks, device codes', async () => {
    const secrets = [
      '918273',
      'lnkSecretToken456',
      'uplSecretToken123',
      'platformAuthCode789',
      'platformStateSecret',
      'WXYZ-QRST',
      'clientStateSecret',
    ];
    const visits: Array<[method: string, path: string, logged: string]> = [
      ['GET', '/account/sign-in?email=someone%40example.com&code=918273', '/account/sign-in?email=[secret]&code=[secret]'],
      ['GET', '/account/link/lnkSecretToken456', '/account/link/[secret]'],
      ['POST', '/account/link/lnkSecretToken456', '/account/link/[secret]'],
      ['GET', '/u/uplSecretToken123', '/u/[secret]'],
      ['GET', '/u/uplSecretToken123/files', '/u/[secret]/files'],
      [
        'GET',
        '/integrations/callback/mastodon?code=platformAuthCode789&state=platformStateSecret',
        '/integrations/callback/mastodon?code=[secret]&state=[secret]',
      ],
      ['GET', '/oauth/device?user_code=WXYZ-QRST', '/oauth/device?user_code=[secret]'],
      [
        'GET',
        '/oauth/authorize?client_id=herald-cli&response_type=code&state=clientStateSecret',
        '/oauth/authorize?client_id=herald-cli&response_type=code&state=[secret]',
      ],
      ['GET', `/account/sign-in?next=${encodeURIComponent('/oauth/device?user_code=WXYZ-QRST')}`, '/account/sign-in?next=[secret]'],
    ];
    for (const [method, path] of visits) await (await fetch(`${server.baseUrl}${path}`, { method, redirect: 'manual' })).arrayBuffer();
    for (const [method, , logged] of visits)
      expect(await waitForLine(logged, method), logged).toEqual(
        expect.arrayContaining([expect.objectContaining({ req: expect.objectContaining({ method }) })]),
      );
    for (const secret of secrets) expect(server.output()).not.toContain(secret);
  });
});

describe('the request log at shutdown', () => {
  it('writes every gathered line before the process exits on SIGTERM', async () => {
    const fresh = await freshDatabaseUrl();
    const stopping = await startServerProcess({
      DATABASE_URL: fresh.url,
      DATA_DIR: fresh.dataDir,
      BASE_URL: 'http://herald.test',
      BOOTSTRAP: 'false',
    });
    try {
      const closed = new Promise((resolve) => stopping.child.once('close', resolve));
      for (let i = 0; i < 5; i++) expect((await fetch(`${stopping.baseUrl}/public/v1/status?last=${i}`)).status).toBe(200);
      // At once: the lines are still gathered (well under the 8 KiB that makes a write).
      expect(await stopping.stop()).toBe(0);
      await closed;
      const lines = stopping
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; req?: { url: string } });
      expect(lines.filter((line) => line.req?.url.startsWith('/public/v1/status?last=')).map((line) => line.req!.url)).toEqual(
        [0, 1, 2, 3, 4].map((i) => `/public/v1/status?last=${i}`),
      );
      expect(lines.map((line) => line.msg)).toContain('stopping');
    } finally {
      await stopping.stop();
      await fresh.drop();
    }
  }, 120_000);
});
