// The OAuth platforms' fakes (LinkedIn, X, Threads) on the shared fake-server base: each request
// seen as its query, JSON body, form and multipart form data, recorded in `calls`.
import type http from 'node:http';
import { FakeHttpServer, type FakeCall, type FakeReply } from '../../helpers/fake-http.ts';

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
export type FakeAnswer = FakeReply;

/** A call as a fake's routes see it. */
export function toRequest(call: FakeCall): FakeRequest {
  const type = String(call.headers['content-type'] ?? '');
  let json: Record<string, unknown> = {};
  if (type.startsWith('application/json')) {
    try {
      json = JSON.parse(call.raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      json = {};
    }
  }
  return {
    method: call.method,
    path: call.path,
    query: call.url.searchParams,
    headers: call.headers,
    raw: call.raw,
    json,
    form: new URLSearchParams(type.startsWith('application/x-www-form-urlencoded') ? call.raw.toString('utf8') : ''),
    multipart: () => new Request('http://fake/', { method: 'POST', headers: { 'content-type': type }, body: call.raw }).formData(),
  };
}

export abstract class FakeServer extends FakeHttpServer<FakeRequest, FakeAnswer> {
  readonly calls: FakeRequest[] = [];

  protected abstract handle(req: FakeRequest): Promise<FakeAnswer> | FakeAnswer;

  /** `res` is there for a fake that answers itself or never (a cut connection). */
  protected async serve(call: FakeCall, _res?: http.ServerResponse): Promise<FakeAnswer | void> {
    const request = toRequest(call);
    this.calls.push(request);
    return this.scripted.take(request) ?? (await this.handle(request));
  }

  override reset(): void {
    super.reset();
    this.calls.length = 0;
  }
}

/** The bearer token of a request, or null. */
export function bearer(req: FakeRequest): string | null {
  const header = String(req.headers.authorization ?? '');
  return header.startsWith('Bearer ') ? header.slice(7) : null;
}
