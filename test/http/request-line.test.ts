import net from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestLog, requestChildLogger, requestLogSerializers } from '../../src/http/request-log.ts';

// The request line is written from its fields, not through pino (see lib/log-line.ts): the line
// must be the one pino writes for the same request with the request log's serializers.
const lines: string[] = [];
const logger = pino(
  { level: 'info', timestamp: () => ',"time":1700000000000', serializers: requestLogSerializers },
  { write: (line: string) => void lines.push(line) },
);
const seen = new Map<string, { request: FastifyRequest; reply: FastifyReply }>();
const app = Fastify({ loggerInstance: logger, logController: new RequestLog(), childLoggerFactory: requestChildLogger });

beforeAll(async () => {
  app.addHook('onRequest', async (request, reply) => {
    seen.set(request.id, { request, reply });
    if (request.headers['x-key'])
      request.principal = { keyId: String(request.headers['x-key']) } as NonNullable<FastifyRequest['principal']>;
  });
  app.get('/*', async () => 'ok');
  app.post('/logs', async (request) => {
    // A line of its own makes the request's pino child; the request line then goes through pino.
    request.log.info('working');
    return 'ok';
  });
  app.get('/gone', async (_request, reply) => reply.code(404).send({ error: 'not found' }));
  await app.listen({ host: '127.0.0.1', port: 0 });
});

/** Sends `target` as it is (no client normalises it) and resolves with the status once the server has closed the connection. */
function rawGet(target: string, headers: Record<string, string> = {}): Promise<number> {
  const { port } = app.server.address() as net.AddressInfo;
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1])));
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.end(Buffer.from(`GET ${target} HTTP/1.1\r\nhost: herald.test\r\nconnection: close\r\n${extra}\r\n`, 'latin1'));
  });
}

afterAll(() => app.close());

/** The line pino writes for the request whose line is `line`, with the same response time. */
function pinoLine(line: string): string {
  const { reqId, responseTime } = JSON.parse(line) as { reqId: string; responseTime: number };
  const { request, reply } = seen.get(reqId)!;
  const before = lines.length;
  logger.child({ reqId }).info({ req: request, res: reply, responseTime }, 'request completed');
  return lines.splice(before, 1)[0]!;
}

describe('the request line', () => {
  it('is the line pino writes for the same request, whatever the URL holds', async () => {
    const urls = [
      '/public/v1/integrations',
      '/public/v1/posts?limit=20&cursor=a%22b',
      '/u/upl_secret123?name=photo.jpg',
      '/caf%C3%A9/%E2%9C%93?q=%00%1F',
      // Sent as it is: Node's HTTP parser lets quotes, backslashes and braces through to the URL the log writes.
      '/quote"and\\backslash?x={"a":1}',
    ];
    for (const url of urls) {
      for (const key of [undefined, 'key_01JKEY"x']) {
        lines.length = 0;
        expect(await rawGet(url, key ? { 'x-key': key } : {})).toBe(200);
        for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        expect(lines).toHaveLength(1);
        const line = lines[0]!;
        expect(line).toBe(pinoLine(line));
        const parsed = JSON.parse(line) as { req: { url: string; keyId?: string } };
        expect(parsed.req.keyId).toBe(key);
        if (!url.startsWith('/u/')) expect(parsed.req.url).toBe(url);
        // An upload link's secret is never written.
        expect(line).not.toContain('upl_secret123');
      }
    }
  });

  it('leaves out the secrets some URLs carry, and writes every other URL as it is', async () => {
    const cases: Array<[sent: string, logged: string]> = [
      ['/u/upl_secret123', '/u/[secret]'],
      ['/u/upl_secret123/files', '/u/[secret]/files'],
      ['/account/sign-in?email=someone%40example.com&code=918273', '/account/sign-in?email=[secret]&code=[secret]'],
      ['/account/sign-in?next=%2Foauth%2Fdevice%3Fuser_code%3DWXYZ-QRST', '/account/sign-in?next=[secret]'],
      ['/account/link/lnk_secret456', '/account/link/[secret]'],
      ['/account/link/lnk_secret456?x=1', '/account/link/[secret]?x=[secret]'],
      [
        '/integrations/callback/mastodon?code=authcode789&state=statesecret',
        '/integrations/callback/mastodon?code=[secret]&state=[secret]',
      ],
      ['/oauth/device?user_code=WXYZ-QRST', '/oauth/device?user_code=[secret]'],
      [
        '/oauth/authorize?client_id=app_1&state=clientstate&id_token_hint=tokenhint&user%5Fcode=WXYZ',
        '/oauth/authorize?client_id=app_1&state=[secret]&id_token_hint=[secret]&user%5Fcode=[secret]',
      ],
      ['/account/sign-in?ABCDEF&&', '/account/sign-in?[secret]&&'],
      // Public addresses, and everything else, stay as they are.
      ['/media/ws_1/0123456789abcdef.png', '/media/ws_1/0123456789abcdef.png'],
      ['/s/AbCd1234', '/s/AbCd1234'],
      ['/account/keys', '/account/keys'],
      ['/accounts?code=1', '/accounts?code=1'],
      ['/oauthx?code=1', '/oauthx?code=1'],
      ['/integrations/connect?code=1', '/integrations/connect?code=1'],
      ['/up/x', '/up/x'],
      ['/public/v1/posts?code=1', '/public/v1/posts?code=1'],
    ];
    for (const [sent, logged] of cases) {
      lines.length = 0;
      expect(await rawGet(sent)).toBe(200);
      for (let i = 0; i < 100 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toBe(pinoLine(lines[0]!));
      expect((JSON.parse(lines[0]!) as { req: { url: string } }).req.url, sent).toBe(logged);
    }
  });

  it('is written the same way for a request that wrote lines of its own, and for an error status', async () => {
    lines.length = 0;
    expect((await app.inject({ method: 'POST', url: '/logs' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/gone' })).statusCode).toBe(404);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['working', 'request completed', 'request completed']);
    for (const line of lines.slice(1)) expect(line).toBe(pinoLine(line));
    expect(JSON.parse(lines[2]!)).toMatchObject({ res: { statusCode: 404 } });
  });

  it('is not written below its level, and is written again once the level allows it', async () => {
    lines.length = 0;
    logger.level = 'warn';
    await app.inject({ method: 'GET', url: '/quiet' });
    logger.level = 'info';
    await app.inject({ method: 'GET', url: '/loud' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => (JSON.parse(line) as { req: { url: string } }).req.url)).toEqual(['/loud']);
  });
});
