import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { buildConnector, Dispatcher } from 'undici';
import { AppError } from '../errors.ts';
import { checkAddress } from './address-policy.ts';
import { CallLimit, dispatchWhole } from './whole-request.ts';

/**
 * A server-side fetch that the outbound policy refused; answers 400 with the reason. A loopback
 * target names the setting that allows it, for local development.
 */
export class OutboundRefusedError extends AppError {
  constructor(reason: string, options: { loopback?: boolean } = {}) {
    super(
      400,
      'outbound_refused',
      `Refused to connect: ${reason}. Only public internet addresses can be fetched${options.loopback ? ' (for local development, OUTBOUND_ALLOW_LOOPBACK=true lets loopback addresses through)' : ''}.`,
    );
  }
}

/** Host names that always mean this machine (RFC 6761), whatever a resolver says. */
function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What the outbound policy refuses in `url` before any lookup: a scheme other than http(s),
 * credentials in the URL, an address literal outside the allowed ranges, and `localhost` names
 * (unless loopback is allowed). Other names are checked when they are resolved, at each
 * connection. Null when nothing is refused yet; throws a 400 (`invalid_url`) for a URL that does
 * not parse.
 */
export function refusedTarget(url: string, policy: { allowLoopback: boolean }): OutboundRefusedError | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new AppError(400, 'invalid_url', `"${url.slice(0, 200)}" is not a valid URL.`, { cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return new OutboundRefusedError(`the scheme "${parsed.protocol}" is not http or https`);
  if (parsed.username || parsed.password) return new OutboundRefusedError('URLs with credentials are not fetched');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const verdict = checkAddress(host, policy);
    return verdict.allowed ? null : new OutboundRefusedError(verdict.reason, { loopback: verdict.loopback });
  }
  if (isLocalhostName(host) && !policy.allowLoopback)
    return new OutboundRefusedError(`${host} is this machine, a loopback address`, { loopback: true });
  return null;
}

/** The whole body was larger than allowed. */
export class OutboundTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'too_large', `The remote resource is larger than ${limit} bytes.`);
  }
}

export type LookupFunction = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export type OutboundOptions = {
  /** Let loopback through (tests and local development only); private and public ranges are unaffected. */
  allowLoopback?: boolean;
  /** The name resolver; tests inject one so no real lookup happens. */
  lookup?: LookupFunction;
  /** The connector that opens sockets to the checked address; tests inject one that records. */
  connector?: buildConnector.connector;
  /** Time to open a connection before it counts as not sent. */
  connectTimeoutMs?: number;
  /** Whole-request time limit, unless a call sets its own. */
  timeoutMs?: number;
  /** Redirects followed per call, each checked again. */
  maxRedirects?: number;
};

/** The `lookup` option of net.connect (and of clients built on it, such as `ws`). */
export type SocketLookup = (
  hostname: string,
  options: { all?: boolean; family?: number | string },
  callback: (error: NodeJS.ErrnoException | null, address: string | Array<{ address: string; family: number }>, family?: number) => void,
) => void;

export type OutboundInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRedirects?: number;
};

/** The header lookup of an answer read whole (`Headers.get`'s contract: names case-insensitive, null when absent). */
export type AnswerHeaders = { get(name: string): string | null };

/** An answer read whole by `OutboundClient.request`. */
export type OutboundAnswer = {
  status: number;
  headers: AnswerHeaders;
  /** The body; null when it could not be read whole (larger than the limit, or the connection failed while reading it). */
  body: Buffer | null;
};

/** Every server-side request Herald makes goes through one of these. */
export interface OutboundClient {
  /**
   * Fetches `url` over http(s): the name is resolved once, every address is checked against
   * the policy, the connection goes to a checked address (no second lookup), and every
   * redirect is checked again. Throws OutboundRefusedError for a refused target, and a 400
   * AppError (`invalid_url`) for a URL that does not parse.
   */
  fetch(url: string | URL, init?: OutboundInit): Promise<Response>;
  /**
   * `fetch` under the same policy (checked addresses, checked redirects, the bad ports of the
   * Fetch standard refused), for an answer read whole, at most `limit` bytes of body. Without
   * the Fetch API's streams and request objects: about a third of what a `fetch` costs the
   * CPU, which is most of what a publish costs. Throws what `fetch` throws before an answer.
   */
  request(url: string | URL, init: OutboundInit & { limit: number }): Promise<OutboundAnswer>;
  /** What this client's policy refuses in `url` without a lookup (see `refusedTarget`). */
  refusal(url: string): OutboundRefusedError | null;
  /**
   * A `lookup` for sockets Herald opens itself (WebSocket clients): the same resolver and the
   * same address checks as `fetch`, so a name that resolves to a refused address never
   * connects. Address literals are not looked up by Node: check them with `refusal` first.
   */
  socketLookup: SocketLookup;
  /**
   * Loads the HTTP client (about a hundred modules, loaded with the first request otherwise) in
   * the background, when requests are expected soon; nothing happens if it is loaded.
   */
  prepare(): void;
  close(): Promise<void>;
}

const defaultLookup: LookupFunction = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Connection errors after which the next checked address of the same name is worth trying. */
const TRY_NEXT_ADDRESS = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT']);

/** Headers that carry credentials; they never follow a redirect to another origin. */
const CREDENTIAL_HEADERS = /^(authorization|cookie|proxy-authorization)$/i;

const DEFAULT_TIMEOUT_MS = 15_000;

/** What one hop sends (redirects may change it). */
type OutboundRequest = { method: string; headers: Record<string, string>; body: string | Uint8Array | undefined };

/** Ports the Fetch standard never fetches ("bad ports"); `request` refuses them as `fetch` does. */
const BAD_PORTS = new Set(
  '1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080'.split(
    ' ',
  ),
);

/**
 * A body as sent, decoded if its Content-Encoding is one that `fetch` would have decoded (gzip,
 * deflate, br); null when it decodes to more than `limit` bytes or does not decode at all.
 */
async function decoded(body: Buffer, coding: string, limit: number): Promise<Buffer | null> {
  const zlib = await import('node:zlib');
  const options = { maxOutputLength: limit };
  return new Promise((resolve) => {
    const done = (error: Error | null, result: Buffer) => resolve(error ? null : result);
    if (coding === 'gzip' || coding === 'x-gzip') zlib.gunzip(body, options, done);
    else if (coding === 'deflate') zlib.inflate(body, options, done);
    else if (coding === 'br') zlib.brotliDecompress(body, options, done);
    else resolve(null);
  });
}

/** Refuses what neither `fetch` nor `request` ever sends: a scheme other than http(s), or credentials in the URL. */
function refuseUnfetchable(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundRefusedError(`the scheme "${url.protocol}" is not http or https`);
  if (url.username || url.password) throw new OutboundRefusedError('URLs with credentials are not fetched');
}

/** The headers of one `request` hop, with what fetch would send when the caller does not say (names compared case-insensitively). */
function withDefaults(given: Record<string, string>): Record<string, string> {
  let accept = false;
  let userAgent = false;
  let acceptEncoding = false;
  for (const name in given) {
    const lower = name.toLowerCase();
    if (lower === 'accept') accept = true;
    else if (lower === 'user-agent') userAgent = true;
    else if (lower === 'accept-encoding') acceptEncoding = true;
  }
  const headers = { ...given };
  if (!accept) headers.accept = '*/*';
  if (!userAgent) headers['user-agent'] = 'node';
  // Answers are read whole into memory: ask for them uncompressed (decoded if a server compresses anyway).
  if (!acceptEncoding) headers['accept-encoding'] = 'identity';
  return headers;
}

/** What `request` throws for an error before an answer, as `fetch` would: a refusal as itself, anything else as "fetch failed". */
function requestFailure(error: Error): Error {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof OutboundRefusedError) return cause;
  if (error instanceof OutboundRefusedError) return error;
  return new TypeError('fetch failed', { cause: error });
}

/** undici (about a hundred modules) is loaded with the first server-side request, not at start-up. */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

export function createOutboundClient(options: OutboundOptions = {}): OutboundClient {
  const lookup = options.lookup ?? defaultLookup;
  const connectTimeout = options.connectTimeoutMs ?? 5_000;
  const policy = { allowLoopback: options.allowLoopback ?? false };
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const guardedConnect =
    (base: buildConnector.connector): buildConnector.connector =>
    (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      // The connection goes to the literal address; TLS still verifies the certificate against the name.
      const servername = opts.servername ?? (isIP(host) ? undefined : host);
      const connectTo = (addresses: string[], index: number) => {
        base({ ...opts, hostname: addresses[index]!, servername }, (...args) => {
          const [error] = args;
          const code = (error as { code?: string } | null)?.code;
          if (error && index + 1 < addresses.length && code && TRY_NEXT_ADDRESS.has(code)) return connectTo(addresses, index + 1);
          callback(...args);
        });
      };
      if (isIP(host)) {
        const verdict = checkAddress(host, policy);
        if (!verdict.allowed) return callback(new OutboundRefusedError(verdict.reason, { loopback: verdict.loopback }), null);
        return connectTo([host], 0);
      }
      // The lookup counts towards the connection time, so a resolver that never answers cannot hold a connection (or close()) forever.
      let timer: NodeJS.Timeout | undefined;
      const slowLookup = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              Object.assign(new Error(`Resolving ${host} took longer than ${connectTimeout} ms`), { code: 'EAI_AGAIN', hostname: host }),
            ),
          connectTimeout,
        );
      });
      Promise.race([Promise.resolve().then(() => lookup(host)), slowLookup])
        .finally(() => clearTimeout(timer))
        .then(
          (answers) => {
            if (answers.length === 0)
              return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND', hostname: host }), null);
            // Every address the name resolves to must be allowed, so a name cannot mix a public and a private one.
            for (const { address } of answers) {
              const verdict = checkAddress(address, policy);
              if (!verdict.allowed)
                return callback(
                  new OutboundRefusedError(`${host} resolves to ${address}, ${verdict.range}`, { loopback: verdict.loopback }),
                  null,
                );
            }
            connectTo(
              answers.map((a) => a.address),
              0,
            );
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
        );
    };

  type Loaded = { agent: Dispatcher; fetch: (typeof import('undici'))['fetch'] };
  let client: Promise<Loaded> | undefined;
  /** The loaded client, once it is (the common case skips a wait); none once closing. */
  let ready: Loaded | undefined;
  const connect = () =>
    closing
      ? Promise.reject(new Error('This outbound client is closed.'))
      : (client ??= loadUndici().then(({ Agent, buildConnector, fetch }) => {
          const base = options.connector ?? buildConnector({ timeout: connectTimeout });
          const agent = new Agent({
            connect: guardedConnect(base),
            connectTimeout,
            headersTimeout: defaultTimeout,
            bodyTimeout: defaultTimeout,
          });
          ready = closing ? undefined : { agent, fetch };
          return { agent, fetch };
        }));

  async function fetchOnce(url: URL, request: OutboundRequest, signal: AbortSignal): Promise<Response> {
    refuseUnfetchable(url);
    const { agent, fetch: undiciFetch } = await connect();
    try {
      return (await undiciFetch(url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined && { body: request.body }),
        redirect: 'manual',
        signal,
        dispatcher: agent,
      })) as unknown as Response;
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof OutboundRefusedError) throw cause;
      throw error;
    }
  }

  function parseUrl(input: string, base?: URL): URL {
    try {
      return new URL(input, base);
    } catch (error) {
      if (base)
        throw new AppError(502, 'bad_redirect', `${base.host} redirected to an invalid address ("${input.slice(0, 200)}").`, {
          cause: error,
        });
      throw new AppError(400, 'invalid_url', `"${input.slice(0, 200)}" is not a valid URL.`, { cause: error });
    }
  }

  /** What a hop answered: its status and Location, what the caller gets if it is the last, and how to drop its body. */
  type Hop<T> = { status: number; location: string | null; answer: T; discard(): Promise<void> };

  /**
   * Sends `init` to `input`, following redirects, each hop checked again (credentials dropped
   * across origins), under one time limit: `limitCall(ms)` sets it up, for all hops, and gives
   * what each hop is sent to honour it and what ends it. `fetch` keeps it running while the caller
   * reads the body; `request` has read the answer when this returns, and ends it then.
   */
  async function follow<T, L>(
    input: string | URL,
    init: OutboundInit,
    limitCall: (ms: number) => { token: L; end(): void },
    send: (url: URL, request: OutboundRequest, token: L) => Promise<Hop<T>>,
  ): Promise<T> {
    const url = parseUrl(String(input));
    // The time limit is the remote's: loading the HTTP client (the first request of a process,
    // about a hundred modules, a second or more on a busy machine) does not count towards it.
    if (!ready) await connect();
    const limit = limitCall(init.timeoutMs ?? defaultTimeout);
    try {
      return await hops(url, init, limit.token, send);
    } finally {
      limit.end();
    }
  }

  async function hops<T, L>(
    first: URL,
    init: OutboundInit,
    token: L,
    send: (url: URL, request: OutboundRequest, token: L) => Promise<Hop<T>>,
  ): Promise<T> {
    let url = first;
    // A copy: dropping credentials on a redirect must not change the caller's object.
    const request: OutboundRequest = { method: init.method ?? 'GET', headers: { ...init.headers }, body: init.body };
    const maxRedirects = init.maxRedirects ?? options.maxRedirects ?? 3;
    for (let hop = 0; ; hop++) {
      let response: Hop<T>;
      try {
        response = await send(url, request, token);
      } catch (error) {
        // Fetch never connects to ports reserved for other protocols (the Fetch standard's "bad ports").
        if (!isBadPort(error)) throw error;
        if (hop > 0)
          throw new AppError(502, 'bad_redirect', `A redirect led to port ${url.port} of ${url.hostname}, which is never fetched.`, {
            cause: error,
          });
        throw new AppError(
          400,
          'port_refused',
          `Port ${url.port} (in ${url.host}) is reserved for other protocols and is never fetched; use a URL on an HTTP port (80, 443, 8080…).`,
          { cause: error },
        );
      }
      const location = response.location;
      if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) return response.answer;
      await response.discard();
      if (hop >= maxRedirects) throw new AppError(502, 'too_many_redirects', `Gave up after ${maxRedirects} redirects.`);
      const next = parseUrl(location, url);
      if (next.origin !== url.origin) {
        for (const name of Object.keys(request.headers)) if (CREDENTIAL_HEADERS.test(name)) delete request.headers[name];
      }
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === 'POST')) {
        request.method = 'GET';
        request.body = undefined;
        for (const name of Object.keys(request.headers)) if (/^content-/i.test(name)) delete request.headers[name];
      }
      url = next;
    }
  }

  /** One hop of `request`: undici's dispatcher directly, on the same guarded agent as `fetch`; the body read whole (up to `limit`). */
  async function requestOnce(url: URL, request: OutboundRequest, callLimit: CallLimit, limit: number): Promise<OutboundAnswer> {
    refuseUnfetchable(url);
    if (BAD_PORTS.has(url.port)) throw new TypeError('fetch failed', { cause: new Error('bad port') });
    const { agent } = ready ?? (await connect());
    // As fetch: an abort surfaces as its reason (a TimeoutError for the time limit).
    if (callLimit.aborted) throw callLimit.reason;
    const options = {
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: request.method as Dispatcher.HttpMethod,
      headers: withDefaults(request.headers),
      body: request.body ?? null,
    };
    const whole = await dispatchWhole(agent, options, callLimit, limit, requestFailure);
    const raw = whole.headers;
    const headers: AnswerHeaders = {
      get(name) {
        const value = raw[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    };
    const coding = headers.get('content-encoding')?.trim().toLowerCase();
    const body = whole.body && coding && coding !== 'identity' ? await decoded(whole.body, coding, limit) : whole.body;
    return { status: whole.status, headers, body };
  }

  let closing: Promise<void> | undefined;
  return {
    fetch: (input, init = {}) =>
      follow(
        input,
        init,
        (ms) => {
          const timeout = AbortSignal.timeout(ms);
          return { token: init.signal ? AbortSignal.any([init.signal, timeout]) : timeout, end: () => {} };
        },
        async (url, request, signal) => {
          const response = await fetchOnce(url, request, signal);
          return {
            status: response.status,
            location: response.headers.get('location'),
            answer: response,
            discard: async () => void (await response.body?.cancel()),
          };
        },
      ),
    request: (input, init) =>
      follow(
        input,
        init,
        (ms) => {
          const limit = new CallLimit(ms, init.signal);
          return { token: limit, end: () => limit.clear() };
        },
        async (url, request, limit) => {
          const answer = await requestOnce(url, request, limit, init.limit);
          return { status: answer.status, location: answer.headers.get('location'), answer, discard: async () => {} };
        },
      ),
    refusal: (url) => refusedTarget(url, policy),
    socketLookup: (hostname, lookupOptions, callback) => {
      const host = hostname.replace(/^\[|\]$/g, '');
      Promise.resolve()
        .then(() =>
          isLocalhostName(host) && !policy.allowLoopback
            ? Promise.reject(new OutboundRefusedError(`${host} is this machine, a loopback address`, { loopback: true }))
            : lookup(host),
        )
        .then((answers) => {
          if (answers.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND', hostname: host });
          for (const { address } of answers) {
            const verdict = checkAddress(address, policy);
            if (!verdict.allowed)
              throw new OutboundRefusedError(`${host} resolves to ${address}, ${verdict.range}`, { loopback: verdict.loopback });
          }
          const wanted = Number(lookupOptions.family) || 0;
          const usable = wanted ? answers.filter((a) => a.family === wanted) : answers;
          if (usable.length === 0)
            throw Object.assign(new Error(`${host} has no IPv${wanted} address`), { code: 'ENOTFOUND', hostname: host });
          if (lookupOptions.all) callback(null, usable);
          else callback(null, usable[0]!.address, usable[0]!.family);
        })
        .catch((error: unknown) => callback(error as NodeJS.ErrnoException, ''));
    },
    prepare: () => {
      if (!client && !closing) connect().catch(() => {});
    },
    close: () => {
      ready = undefined;
      return (closing ??= client ? client.then(({ agent }) => agent.close()) : Promise.resolve());
    },
  };
}

function errorCodes(error: unknown): Set<string> {
  const codes = new Set<string>();
  for (let e = error as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') codes.add(e.code);
  }
  return codes;
}

/**
 * True when a failed request certainly never reached the server (refused, unresolvable or
 * unreachable, or the connection could not be opened in time), so sending it again cannot
 * duplicate anything. Anything else after the request may have been sent is an unknown outcome.
 */
export function wasNotSent(error: unknown): boolean {
  if (error instanceof OutboundRefusedError) return true;
  if (error instanceof AppError && (error.code === 'invalid_url' || error.code === 'outbound_refused')) return true;
  const codes = errorCodes(error);
  return [
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
    'ERR_TLS_CERT_ALTNAME_INVALID',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'CERT_HAS_EXPIRED',
  ].some((c) => codes.has(c));
}

function isBadPort(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return cause instanceof Error && cause.message === 'bad port';
}

/** What kind of failure left a request without an answer, read from its error codes. */
type NoAnswerKind = 'timeout' | 'host_not_found' | 'refused' | 'unroutable' | 'tls' | 'closed' | 'other';

function noAnswerKind(error: unknown): NoAnswerKind {
  const name = (error as { name?: string } | undefined)?.name;
  const codes = errorCodes(error);
  const has = (...list: string[]) => list.some((c) => codes.has(c));
  if (name === 'TimeoutError' || has('UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'))
    return 'timeout';
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA')) return 'host_not_found';
  if (has('ECONNREFUSED')) return 'refused';
  if (has('EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL')) return 'unroutable';
  if ([...codes].some((c) => c.startsWith('ERR_TLS') || c.includes('CERT'))) return 'tls';
  if (has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ERR_STREAM_PREMATURE_CLOSE')) return 'closed';
  return 'other';
}

/** A field of the first error in the chain that has it (Node's connection errors carry `address`, `port`, `hostname`). */
function errorField(error: unknown, field: 'address' | 'port' | 'hostname'): string | undefined {
  for (let e = error as Record<string, unknown> | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    const value = e[field];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return undefined;
}

/**
 * Why a request got no answer, in words for a person, lower case, to follow a colon: "the
 * connection to 127.0.0.1:4000 was refused (nothing listens there)", "the name x.example was not
 * found (DNS)", "no answer came in time"… The refusals of the outbound policy keep their message.
 */
export function noAnswerReason(error: unknown): string {
  if (error instanceof AppError) return error.message;
  const address = errorField(error, 'address');
  const port = errorField(error, 'port');
  const at = address ? ` to ${address.includes(':') ? `[${address}]` : address}${port ? `:${port}` : ''}` : '';
  const host = errorField(error, 'hostname');
  switch (noAnswerKind(error)) {
    case 'timeout':
      return 'no answer came in time';
    case 'host_not_found':
      return `the name${host ? ` ${host}` : ''} was not found (DNS)`;
    case 'refused':
      return `the connection${at} was refused (nothing listens there)`;
    case 'unroutable':
      return `there is no route${at} from this server`;
    case 'tls':
      return 'it does not present a valid TLS certificate';
    case 'closed':
      return 'it closed the connection before answering';
    default: {
      const cause = (error as { cause?: unknown } | undefined)?.cause;
      return cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
    }
  }
}

/**
 * Turns whatever a guarded fetch (or reading its body) threw into an AppError with a sentence
 * for a person: a refusal or a bad URL stays a 400, a name that does not resolve is a 400, and a
 * source that cannot be reached, fails or is too slow is a 502. `what` names the resource.
 */
export function explainOutboundFailure(error: unknown, what: string, timeoutMs: number): AppError {
  if (error instanceof AppError) return error;
  switch (noAnswerKind(error)) {
    case 'timeout':
      return new AppError(502, 'upstream_timeout', `${what} did not answer in time (limit ${Math.round(timeoutMs / 1000)} s).`, {
        cause: error,
      });
    case 'host_not_found':
      return new AppError(400, 'host_not_found', `The host of ${what} could not be found.`, { cause: error });
    case 'refused':
      return new AppError(502, 'upstream_unreachable', `${what} refused the connection.`, { cause: error });
    case 'unroutable':
      return new AppError(502, 'upstream_unreachable', `${what} cannot be reached from this server.`, { cause: error });
    case 'tls':
      return new AppError(502, 'upstream_tls', `${what} does not present a valid TLS certificate.`, { cause: error });
    case 'closed':
      return new AppError(502, 'upstream_failed', `${what} closed the connection before the answer was complete.`, { cause: error });
    default:
      return new AppError(502, 'upstream_failed', `Fetching ${what} failed.`, { cause: error });
  }
}

/** Reads a response body as bytes, failing once it passes `limit`. */
export async function readLimited(response: Response, limit: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    throw new OutboundTooLargeError(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limit) throw new OutboundTooLargeError(limit);
      chunks.push(Buffer.from(chunk));
    }
  }
  return Buffer.concat(chunks);
}
