import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch, type Dispatcher } from 'undici';
import { AppError } from '../errors.ts';
import { checkAddress } from './address-policy.ts';

/** A server-side fetch that the outbound policy refused; answers 400 with the reason. */
export class OutboundRefusedError extends AppError {
  constructor(reason: string) {
    super(400, 'outbound_refused', `Refused to connect: ${reason}. Only public internet addresses can be fetched.`);
  }
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

export type OutboundInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRedirects?: number;
};

/** Every server-side request Herald makes goes through one of these. */
export interface OutboundClient {
  /**
   * Fetches `url` over http(s): the name is resolved once, every address is checked against
   * the policy, the connection goes to the checked address (no second lookup), and every
   * redirect is checked again. Throws OutboundRefusedError for a refused target.
   */
  fetch(url: string | URL, init?: OutboundInit): Promise<Response>;
  close(): Promise<void>;
}

const defaultLookup: LookupFunction = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function createOutboundClient(options: OutboundOptions = {}): OutboundClient {
  const lookup = options.lookup ?? defaultLookup;
  const connectTimeout = options.connectTimeoutMs ?? 5_000;
  const base = options.connector ?? buildConnector({ timeout: connectTimeout });
  const policy = { allowLoopback: options.allowLoopback ?? false };

  const guardedConnect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const connectTo = (address: string) => base({ ...opts, hostname: address, servername: opts.servername ?? (isIP(host) ? undefined : host) }, callback);
    if (isIP(host)) {
      const verdict = checkAddress(host, policy);
      if (!verdict.allowed) return callback(new OutboundRefusedError(verdict.reason), null);
      return connectTo(host);
    }
    lookup(host).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), null);
        // Every address the name resolves to must be allowed, so a name cannot mix a public and a private one.
        for (const { address } of addresses) {
          const verdict = checkAddress(address, policy);
          if (!verdict.allowed) return callback(new OutboundRefusedError(`${host} resolves to ${verdict.reason}`), null);
        }
        connectTo(addresses[0]!.address);
      },
      (error: unknown) => callback(error as Error, null),
    );
  };

  const agent: Dispatcher = new Agent({ connect: guardedConnect, connectTimeout, headersTimeout: options.timeoutMs ?? 15_000, bodyTimeout: options.timeoutMs ?? 15_000 });

  async function fetchOnce(url: URL, init: OutboundInit, signal: AbortSignal): Promise<Response> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundRefusedError(`the scheme "${url.protocol}" is not http or https`);
    if (url.username || url.password) throw new OutboundRefusedError('URLs with credentials are not fetched');
    try {
      return (await undiciFetch(url, {
        method: init.method ?? 'GET',
        ...(init.headers && { headers: init.headers }),
        ...(init.body !== undefined && { body: init.body }),
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

  return {
    async fetch(input, init = {}) {
      const timeout = AbortSignal.timeout(init.timeoutMs ?? options.timeoutMs ?? 15_000);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      let url = new URL(String(input));
      let method = init.method ?? 'GET';
      let body = init.body;
      const maxRedirects = init.maxRedirects ?? options.maxRedirects ?? 3;
      for (let hop = 0; ; hop++) {
        const response = await fetchOnce(url, { ...init, method, ...(body !== undefined ? { body } : { body: undefined }) }, signal);
        const location = response.headers.get('location');
        if (response.status < 300 || response.status >= 400 || response.status === 304 || !location) return response;
        await response.body?.cancel();
        if (hop >= maxRedirects) throw new AppError(502, 'too_many_redirects', `Gave up after ${maxRedirects} redirects.`);
        const next = new URL(location, url);
        if (next.origin !== url.origin && init.headers) {
          // Credentials never follow a redirect to another origin.
          for (const name of Object.keys(init.headers)) if (/^(authorization|cookie)$/i.test(name)) delete init.headers[name];
        }
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
        url = next;
      }
    },
    close: () => agent.close(),
  };
}

/**
 * True when a failed request certainly never reached the server (refused, unresolvable or
 * unreachable, or the connection could not be opened in time), so sending it again cannot
 * duplicate anything. Anything else after the request may have been sent is an unknown outcome.
 */
export function wasNotSent(error: unknown): boolean {
  if (error instanceof OutboundRefusedError) return true;
  const codes = new Set<string>();
  for (let e = error as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string') codes.add(e.code);
  }
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED'].some((c) =>
    codes.has(c),
  );
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
