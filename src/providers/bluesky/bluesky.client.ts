import { createHash } from 'node:crypto';
import type { Agent, AtpSessionData, CredentialSession, XRPCError } from '@atproto/api';
import { OutboundRefusedError, readLimited } from '../../net/outbound.ts';
import { failureKind, msUntil, noAnswerFailure, retryAfterMs as secondsToMs } from '../platform-call.ts';
import { ProviderError, type ProviderContext } from '../provider.ts';
import { atproto } from './atproto.ts';
import { normalizeHandle, type BlueskyConfig } from './bluesky.schema.ts';

/**
 * What a call does, which decides how a failure without an answer is reported: a `write`
 * (creating the post record) may have been applied, anything else can simply be repeated.
 */
export type CallKind = 'login' | 'read' | 'write';

type CachedSession = { key: string; session: AtpSessionData; pdsUrl: string | undefined };

/** Sessions by channel id; `key` is a hash of the configuration they were created with. */
const sessions = new Map<string, CachedSession>();

/** Error names with which Bluesky says the credentials or the account, not the request, are the problem. */
const AUTH_ERRORS = new Set([
  'AuthenticationRequired',
  'ExpiredToken',
  'InvalidToken',
  'AccountTakedown',
  'AccountDeactivated',
  'AuthFactorTokenRequired',
  'AuthMissing',
]);

/** No XRPC answer Herald asks for comes near this; a bigger body is not read into memory. */
const RESPONSE_LIMIT = 2 * 1024 * 1024;

/**
 * The fetch @atproto/api calls, sent through the channel's guarded outbound client. The body is
 * read here, within the request's time limit and a size limit, before the library sees it.
 */
function outboundFetch(ctx: ProviderContext): typeof globalThis.fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const signal = ctx.signal ? AbortSignal.any([request.signal, ctx.signal]) : request.signal;
    const response = await ctx.outbound.fetch(request.url, {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      ...(body && { body }),
      signal,
    });
    const bytes = await readLimited(response, RESPONSE_LIMIT);
    const headers = new Headers(response.headers);
    // The body is now decoded bytes: the wire's length and encoding no longer describe it.
    for (const name of ['content-encoding', 'content-length', 'transfer-encoding']) headers.delete(name);
    const empty = [101, 204, 205, 304].includes(response.status);
    return new Response(empty ? null : bytes, { status: response.status, statusText: response.statusText, headers });
  };
}

/** How long to wait, from Bluesky's rate-limit headers (RateLimit-Reset in epoch seconds, or Retry-After). */
export function retryAfterMs(headers: Record<string, string | undefined> | undefined, now = Date.now()): number | undefined {
  const reset = Number(headers?.['ratelimit-reset']);
  if (headers?.['ratelimit-reset'] && Number.isFinite(reset) && reset >= 0) {
    // Bluesky sends an instant; a small number is a delay in seconds (the IETF draft's reading).
    return reset > 1e9 ? Math.max(0, reset * 1000 - now) : reset * 1000;
  }
  const retryAfter = headers?.['retry-after'];
  return secondsToMs(retryAfter) ?? msUntil(retryAfter, now);
}

function findCause<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof type) return e;
  }
  return undefined;
}

/**
 * An XRPC error that carries the server's answer, not a network failure or an unreadable body.
 * The generated client re-wraps known errors (AccountTakedown, RecordNotFound…) around the original.
 */
function isAnswer(error: unknown): error is XRPCError {
  if (!(error instanceof atproto().XRPCError) || error.status < 100) return false;
  return error.cause === undefined || isAnswer(error.cause);
}

/** Maps any failure of a Bluesky call to the kind the publishing engine acts on. */
export function classify(error: unknown, kind: CallKind, what: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const refused = findCause(error, OutboundRefusedError);
  if (refused) {
    return new ProviderError(
      'rejected',
      `Herald will not connect to this channel's Bluesky service: ${refused.message} Reconnect it with the URL of a public PDS.`,
      { cause: error, noAnswer: { kind: 'policy', reason: refused.message } },
    );
  }
  if (isAnswer(error)) {
    const status = error.status;
    const name = error.error ?? '';
    const detail = error.message && error.message !== name ? `${name ? `${name}: ` : ''}${error.message}` : name || `HTTP ${status}`;
    const failure =
      status === 429 || name === 'RateLimitExceeded'
        ? 'rate_limited'
        : AUTH_ERRORS.has(name)
          ? 'auth'
          : status === 501
            ? 'rejected'
            : failureKind(status, [403]);
    if (failure === 'rate_limited') {
      return new ProviderError('rate_limited', `Bluesky is rate-limiting this account (${what}): ${detail}`, {
        status: 429,
        retryAfterMs: retryAfterMs(error.headers),
        cause: error,
      });
    }
    const message =
      failure === 'auth'
        ? kind === 'login'
          ? `Bluesky did not accept the channel's identifier and app password: ${detail}`
          : `Bluesky refused the channel's session (${what}): ${detail}`
        : failure === 'transient'
          ? `Bluesky failed (${what}): ${detail}`
          : `Bluesky refused ${what}: ${detail}`;
    return new ProviderError(failure, message, { status, cause: error });
  }
  return noAnswerFailure(
    error,
    {
      name: 'Bluesky',
      unreachable: (why) => `Could not reach Bluesky (${what}): ${why}`,
      outcome: 'the post may or may not have been created',
    },
    kind === 'write',
  );
}

/** The access token was refused (expired, revoked) and the library could not refresh it. */
function isSessionRejected(error: unknown): boolean {
  return isAnswer(error) && (error.status === 401 || error.error === 'ExpiredToken' || error.error === 'InvalidToken');
}

/**
 * One channel's connection to its PDS for one publish or tool call. Requests go through the
 * channel's outbound client; the session (from an app password) is shared between calls in
 * memory, refreshed by @atproto/api when the access token expires, and created again when
 * the refresh token is refused too.
 */
export class BlueskyClient {
  readonly agent: Agent;
  private readonly credentials: CredentialSession;
  private readonly cacheKey: string;

  constructor(
    private readonly ctx: ProviderContext,
    private readonly config: BlueskyConfig,
  ) {
    this.cacheKey = createHash('sha256')
      .update(JSON.stringify([config.service, config.identifier, config.appPassword]))
      .digest('hex');
    this.credentials = new (atproto().CredentialSession)(new URL(config.service), outboundFetch(ctx), (event, session) =>
      this.remember(event, session),
    );
    this.agent = new (atproto().Agent)(this.credentials);
  }

  /** The account's DID (after the first call). */
  get did(): string {
    const did = this.credentials.did;
    if (!did) throw new Error('BlueskyClient: no session yet');
    return did;
  }

  /** Runs one XRPC call with a session, signing in again once if the session was refused; failures become ProviderErrors. */
  async call<T>(kind: Exclude<CallKind, 'login'>, what: string, fn: (agent: Agent) => Promise<T>): Promise<T> {
    await this.ensureSession();
    try {
      return await fn(this.agent);
    } catch (error) {
      if (!isSessionRejected(error)) throw classify(error, kind, what);
    }
    // Refused with a 401 or ExpiredToken, so nothing was applied: sign in afresh and try once more.
    this.forget();
    await this.login();
    try {
      return await fn(this.agent);
    } catch (error) {
      throw classify(error, kind, what);
    }
  }

  private async ensureSession(): Promise<void> {
    if (this.credentials.hasSession) return;
    const cached = sessions.get(this.ctx.channel.id);
    if (cached?.key === this.cacheKey) {
      this.credentials.session = cached.session;
      this.credentials.pdsUrl = cached.pdsUrl ? new URL(cached.pdsUrl) : undefined;
      return;
    }
    await this.login();
  }

  private async login(): Promise<void> {
    const identifier = this.config.identifier.startsWith('did:') ? this.config.identifier : normalizeHandle(this.config.identifier);
    try {
      await this.credentials.login({ identifier, password: this.config.appPassword });
    } catch (error) {
      throw classify(error, 'login', 'signing in');
    }
  }

  private remember(event: string, session: AtpSessionData | undefined): void {
    if ((event === 'create' || event === 'update') && session) {
      sessions.set(this.ctx.channel.id, { key: this.cacheKey, session, pdsUrl: this.credentials.pdsUrl?.href });
    } else if (event === 'expired' || event === 'create-failed') {
      this.forget();
    }
  }

  private forget(): void {
    if (sessions.get(this.ctx.channel.id)?.key === this.cacheKey) sessions.delete(this.ctx.channel.id);
  }
}

/** Drops every cached session (tests; a channel's configuration change also makes its old session unused). */
export function clearBlueskySessions(): void {
  sessions.clear();
}
