// The request plumbing of the local servers that stand in for platforms in tests: a loopback
// HTTP server, whole request bodies, bodies read by their content type, recorded requests, JSON
// replies, and the answers a test puts ahead of a fake's own routing (errors, rate limits).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request to a fake, its body read whole. */
export type FakeCall = {
  method: string;
  url: URL;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
};

/** What a fake answers: a status, a body sent as JSON (a string as is), and headers. */
export type FakeReply = { status: number; body?: unknown; headers?: Record<string, string> };

/**
 * A fake's routing: a reply, or nothing when it answered `res` itself (or means never to, as a
 * hang or a cut connection).
 */
export type FakeHandler = (call: FakeCall, res: http.ServerResponse) => FakeReply | void | Promise<FakeReply | void>;

export type FakeHttp = {
  /** http://127.0.0.1:<port>, no trailing slash. */
  url: string;
  server: http.Server;
  /** Every request, in order of arrival. */
  calls: FakeCall[];
  /** Cuts open connections (hanging answers too) and stops listening. */
  close(): Promise<void>;
};

/** Reads a request's body whole. */
export async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A body's fields and files by its content type: JSON, a URL-encoded form, or multipart form
 * data (strings through `field`, which may decode them). Unknown or empty bodies have no fields.
 */
export async function parseBody(
  call: Pick<FakeCall, 'headers' | 'raw'>,
  field: (value: string) => unknown = (value) => value,
): Promise<{ fields: Record<string, unknown>; files: Map<string, File> }> {
  const type = String(call.headers['content-type'] ?? '');
  const files = new Map<string, File>();
  if (type.startsWith('application/json'))
    return { fields: call.raw.length ? (JSON.parse(call.raw.toString('utf8')) as Record<string, unknown>) : {}, files };
  if (type.startsWith('application/x-www-form-urlencoded'))
    return { fields: Object.fromEntries(new URLSearchParams(call.raw.toString('utf8'))), files };
  const fields: Record<string, unknown> = {};
  if (type.startsWith('multipart/form-data')) {
    const form = await new Request('http://fake.test/', { method: 'POST', headers: { 'content-type': type }, body: call.raw }).formData();
    for (const [name, value] of form) {
      if (typeof value === 'string') fields[name] = field(value);
      else files.set(name, value);
    }
  }
  return { fields, files };
}

/** Writes `reply`: its body as JSON (a string as is; none when absent, then without a content type) with `contentType` unless its headers name one. */
export function sendReply(res: http.ServerResponse, reply: FakeReply, contentType = 'application/json'): void {
  res.writeHead(reply.status, { ...(reply.body !== undefined && { 'content-type': contentType }), ...reply.headers });
  res.end(reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
}

/** Cuts a server's open connections (hanging answers too) and stops it listening. */
export async function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * Starts a fake on a free loopback port. Each request is recorded, then routed by `handle`; a
 * handler that throws answers 500 with the error. `contentType` is that of its replies.
 */
export async function startFakeHttp(handle: FakeHandler, options: { contentType?: string } = {}): Promise<FakeHttp> {
  const calls: FakeCall[] = [];
  const fake: FakeHttp = {
    url: '',
    server: http.createServer((req, res) => {
      void (async () => {
        const url = new URL(req.url ?? '/', fake.url);
        const call: FakeCall = { method: req.method ?? 'GET', url, path: url.pathname, headers: req.headers, raw: await readBody(req) };
        calls.push(call);
        const reply = await handle(call, res);
        if (reply) sendReply(res, reply, options.contentType);
      })().catch((error: unknown) => {
        if (!res.headersSent) sendReply(res, { status: 500, body: { error: String(error) } });
      });
    }),
    calls,
    close: () => closeServer(fake.server),
  };
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
}

/**
 * Answers a test puts ahead of a fake's own routing: `next` answers, used once each in order,
 * then `on` rules, each asked in turn for every request until `reset` (a rule returns undefined
 * to let a request through).
 */
export class ScriptedAnswers<C, A = FakeReply> {
  #queue: A[] = [];
  #rules: Array<(call: C) => A | undefined> = [];

  /** The next requests get these answers, in order. */
  next(...answers: A[]): void {
    this.#queue.push(...answers);
  }

  /** Every request the rule answers until `reset`. */
  on(rule: (call: C) => A | undefined): void {
    this.#rules.push(rule);
  }

  reset(): void {
    this.#queue.length = 0;
    this.#rules = [];
  }

  /** The scripted answer to `call`, if any. */
  take(call: C): A | undefined {
    const queued = this.#queue.shift();
    if (queued !== undefined) return queued;
    for (const rule of this.#rules) {
      const answer = rule(call);
      if (answer !== undefined) return answer;
    }
    return undefined;
  }
}

/**
 * The base of every platform fake: started on a free loopback port, every request recorded,
 * its own routing in `serve` (a page of routes), and the answers a test installs with `on`
 * (until `reset`) asked first, through `scripted`. `serve` answers with a reply, or with
 * nothing when it answered `res` itself or means never to (a hang, a cut connection).
 */
export abstract class FakeHttpServer<C, A extends FakeReply = FakeReply> {
  url = '';
  protected readonly scripted = new ScriptedAnswers<C, A>();
  #http: FakeHttp | undefined;

  protected abstract serve(call: FakeCall, res: http.ServerResponse): A | void | Promise<A | void>;

  /** Answers every request the rule matches (it returns undefined to let a request through) until reset. */
  on(rule: (call: C) => A | undefined): void {
    this.scripted.on(rule);
  }

  reset(): void {
    this.scripted.reset();
  }

  /** Every request so far, in order of arrival. */
  get received(): FakeCall[] {
    return this.#http?.calls ?? [];
  }

  async start(): Promise<this> {
    this.#http = await startFakeHttp((call, res) => this.serve(call, res));
    this.url = this.#http.url;
    return this;
  }

  async stop(): Promise<void> {
    await this.#http?.close();
  }
}
