import { setTimeout as sleep } from 'node:timers/promises';
import { ApiRefusal, NetworkFailure } from './errors.ts';
import type { Session } from './credentials.ts';

type Query = Record<string, string | number | undefined>;

export type RequestOptions = {
  query?: Query;
  /** A JSON body, or a factory of a raw body (made again for each attempt). */
  json?: unknown;
  raw?: () => { body: AsyncIterable<Uint8Array>; contentType: string; length: number };
  headers?: Record<string, string>;
  /** Whether a server failure or a lost connection may be retried (reads, or writes with an Idempotency-Key). */
  retry?: boolean;
};

/** Tells the person what the client is waiting for (on standard error). */
export type Notice = (sentence: string) => void;

const MAX_ATTEMPTS = 3;
const MAX_RATE_LIMIT_WAITS = 5;

/** A client of the public API (`/public/v1`): authentication, workspace, rate limits and retries. */
export class Api {
  /** Base of the backoff between retries of server failures, in milliseconds. */
  backoffMs = 500;

  constructor(
    readonly session: Pick<Session, 'url' | 'key' | 'workspace'>,
    private readonly notice: Notice,
  ) {}

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>('GET', path, { query, retry: true });
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(`${this.session.url}/public/v1${path}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    let failures = 0;
    let waits = 0;
    for (;;) {
      let response: Response;
      try {
        response = await fetch(url, this.init(method, options));
      } catch (error) {
        failures += 1;
        const reason = (error as { cause?: { code?: string; message?: string } }).cause;
        const sentence = `Could not reach ${this.session.url} (${reason?.code ?? reason?.message ?? (error as Error).message}).`;
        if (!options.retry || failures >= MAX_ATTEMPTS) throw new NetworkFailure(sentence);
        await this.backoff(sentence, failures);
        continue;
      }
      const body = await readBody(response);
      if (response.ok) return body as T;
      if (response.status === 429 && waits < MAX_RATE_LIMIT_WAITS) {
        waits += 1;
        const seconds = retryAfter(response.headers.get('retry-after'));
        this.notice(`Rate limited by the server: waiting ${seconds} s (Retry-After) before trying again.`);
        await sleep(seconds * 1000);
        continue;
      }
      const busy = response.status === 409 && (body as { code?: string } | null)?.code === 'idempotency_in_progress';
      if ((response.status >= 500 || busy) && options.retry && failures + 1 < MAX_ATTEMPTS) {
        failures += 1;
        await this.backoff(
          busy ? 'The same request is still running on the server.' : `The server failed (HTTP ${response.status}).`,
          failures,
        );
        continue;
      }
      throw new ApiRefusal(response.status, body);
    }
  }

  private init(method: string, options: RequestOptions): RequestInit & { duplex?: 'half' } {
    const { key, workspace } = this.session;
    const headers: Record<string, string> = {
      accept: 'application/json',
      // An API key is the whole header; an OAuth access token is a bearer token.
      authorization: key.startsWith('svco_') ? `Bearer ${key}` : key,
      ...(workspace && { showorg: workspace }),
      ...options.headers,
    };
    if (options.raw) {
      const raw = options.raw();
      headers['content-type'] = raw.contentType;
      headers['content-length'] = String(raw.length);
      return { method, headers, body: raw.body as unknown as RequestInit['body'], duplex: 'half' };
    }
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      return { method, headers, body: JSON.stringify(options.json) };
    }
    return { method, headers };
  }

  private async backoff(sentence: string, attempt: number): Promise<void> {
    const ms = this.backoffMs * 2 ** (attempt - 1);
    this.notice(`${sentence} Trying again in ${(ms / 1000).toFixed(1)} s.`);
    await sleep(ms);
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}

/** Seconds to wait from a Retry-After header (seconds or an HTTP date); 1 s when absent or unreadable. */
function retryAfter(value: string | null): number {
  if (!value) return 1;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(Math.max(Math.ceil(seconds), 0), 3600);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.min(Math.max(Math.ceil((date - Date.now()) / 1000), 0), 3600) : 1;
}
