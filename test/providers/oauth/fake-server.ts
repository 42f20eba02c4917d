// The plumbing shared by the local servers speaking LinkedIn's, X's and Threads' APIs: a loopback
// HTTP server, request bodies read as JSON, forms or multipart, recorded calls, and overrides a
// test installs to answer a route differently (errors, rate limits).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  json: Record<string, unknown>;
  form: URLSearchParams;
  multipart(): Promise<FormData>;
};
export type FakeAnswer = { status: number; body?: unknown; headers?: Record<string, string> };
export type Override = (req: FakeRequest) => FakeAnswer | undefined;

export abstract class FakeServer {
  url = '';
  readonly calls: FakeRequest[] = [];
  #overrides: Override[] = [];
  #server = http.createServer((req, res) => void this.#serve(req, res));

  protected abstract handle(req: FakeRequest): Promise<FakeAnswer> | FakeAnswer;

  on(override: Override): void {
    this.#overrides.push(override);
  }

  reset(): void {
    this.#overrides = [];
    this.calls.length = 0;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', this.url);
    const type = String(req.headers['content-type'] ?? '');
    let json: Record<string, unknown> = {};
    if (type.startsWith('application/json')) {
      try {
        json = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        json = {};
      }
    }
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      raw,
      json,
      form: new URLSearchParams(type.startsWith('application/x-www-form-urlencoded') ? raw.toString('utf8') : ''),
      multipart: () => new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: raw }).formData(),
    };
    this.calls.push(request);
    let answer: FakeAnswer | undefined;
    for (const override of this.#overrides) {
      answer = override(request);
      if (answer) break;
    }
    try {
      answer ??= await this.handle(request);
    } catch (error) {
      answer = { status: 500, body: { error: String(error) } };
    }
    const headers: Record<string, string> = { ...answer.headers };
    if (answer.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    res.writeHead(answer.status, headers);
    res.end(answer.body === undefined ? undefined : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }
}

/** The bearer token of a request, or null. */
export function bearer(req: FakeRequest): string | null {
  const header = String(req.headers.authorization ?? '');
  return header.startsWith('Bearer ') ? header.slice(7) : null;
}
