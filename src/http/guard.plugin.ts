import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { requireScope, type AccessService } from '../auth/access.service.ts';
import { SESSION_SCOPES, type Scope } from '../auth/scopes.ts';
import type { SessionsService } from '../accounts/sessions.service.ts';
import { sameHash } from '../accounts/tokens.ts';
import { AppError, BadRequestError, ForbiddenError, UnauthorizedError } from '../errors.ts';
import { CSRF_HEADER, sessionCsrfToken } from '../web/csrf.ts';
import type { ApiKeysService, Principal } from '../keys/api-keys.service.ts';
import { andThen, type MaybePromise } from '../lib/maybe-promise.ts';
import type { RouteAuth } from './route-config.ts';
import { LocalRequestCounter, RedisRequestCounter, type RequestCounter } from './rate-limit-store.ts';
import { readShoworg } from './showorg.ts';

export type GuardOptions = {
  apiKeys: ApiKeysService;
  access: AccessService;
  rateLimit: { max: number; windowSeconds: number; routes: Record<string, number> };
  /** Shared counter store for several API processes; in-process counters when absent. */
  redis?: Redis | undefined;
  /**
   * The REST API's `WWW-Authenticate` challenge (RFC 9728: where its protected-resource metadata
   * is), sent on a 401 to a request without credentials or with a bearer token.
   */
  restChallenge?: string;
  /**
   * Browser sessions: a REST request without an Authorization header is authenticated by the
   * `herald_session` cookie (with the CSRF header) when given.
   */
  sessions?: SessionsService | undefined;
};

const SESSION_COOKIE_PATTERN = /(?:^|;)[ \t]*herald_session=([0-9A-Za-z_-]{1,200})[ \t]*(?:;|$)/;

/** The session cookie's token, if the request carries one. */
function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  return header === undefined ? undefined : SESSION_COOKIE_PATTERN.exec(header)?.[1];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate-limit counters the guard counts with (the MCP server counts tool calls with them too). */
    requestCounter: RequestCounter;
  }
}

/** What the guard does for one route and method, worked out once when the route is declared. */
type Plan = {
  auth: RouteAuth;
  scope: Scope | undefined;
  challenge: string | undefined;
  /** The quota counted against (HEAD counts as the GET it mirrors), or null when not rate limited. */
  quota: { route: string; max: number; limit: string; policy: string } | null;
};

/** The guard's `onRequest` hook: callback style, so it can finish synchronously. */
type GuardHook = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/** Node keeps only the first of repeated Authorization headers; a request that sends two is refused instead. */
function repeatedAuthorization(request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') seen += 1;
  return seen > 1;
}

/**
 * Every request passes here first, in this order: read the credential, count it against
 * the route's quota (per key, or per client address without a valid one), then enforce
 * the credential, the workspace selection and the route's scope. Counting before refusing
 * means failed credentials are rate limited too, and every answer carries the headers.
 *
 * Each route gets its own `onRequest` hook, built when the route is declared from its
 * configuration (auth, scope, quota), so a request does no lookup to find out what applies;
 * `notFound` is the hook of requests no route matches (give it to the not-found handler).
 */
export function createGuard(options: GuardOptions) {
  const counter: RequestCounter = options.redis ? new RedisRequestCounter(options.redis) : new LocalRequestCounter();
  const windowSeconds = options.rateLimit.windowSeconds;
  const windowMs = windowSeconds * 1000;

  function quotaFor(route: string, configured: number | undefined): Plan['quota'] {
    const max = options.rateLimit.routes[route] ?? configured ?? options.rateLimit.max;
    return { route, max, limit: String(max), policy: `${max};w=${windowSeconds}` };
  }

  /** Counts the request against the route's quota and sets the rate-limit headers; refuses beyond it. Synchronous with the in-memory counters, a promise with Redis's. */
  function count(request: FastifyRequest, reply: FastifyReply, quota: NonNullable<Plan['quota']>): MaybePromise<void> {
    const key = `${quota.route}|${request.principal ? `key:${request.principal.keyId}` : `ip:${request.ip}`}`;
    return andThen(counter.hit(key, windowMs), ({ current, ttl }) => {
      const reset = Math.ceil(ttl / 1000);
      reply.header('ratelimit-limit', quota.limit);
      reply.header('ratelimit-remaining', Math.max(0, quota.max - current));
      reply.header('ratelimit-reset', reset);
      reply.header('ratelimit-policy', quota.policy);
      if (current > quota.max) {
        throw new AppError(
          429,
          'rate_limited',
          `Too many requests to ${quota.route}: the quota is ${quota.max} per ${windowSeconds} s. Retry in ${reset} s.`,
          {
            headers: { 'Retry-After': String(reset) },
          },
        );
      }
    });
  }

  /** Keeps a credential's refusal on the request (with the challenge a 401 carries) until the quota is counted. */
  function refused(request: FastifyRequest, plan: Plan, error: unknown): void {
    if (!(error instanceof AppError)) throw error;
    const header = request.headers.authorization;
    const challenge = plan.challenge ?? (header === undefined || /^[ \t]*bearer[ \t]/i.test(header) ? options.restChallenge : undefined);
    if (error.statusCode === 401 && challenge) {
      error.headers['WWW-Authenticate'] = header === undefined ? challenge : `${challenge}, error="invalid_token"`;
    }
    request.credentialError = error;
  }

  /**
   * A REST request with no Authorization header but the browser session's cookie: the signed-in
   * member, acting in the session's current workspace with the scopes of their role there. The
   * `X-Herald-CSRF` header must carry the session's CSRF token on every such request (reads too),
   * which another site can neither read nor compute.
   */
  async function identifyBySession(request: FastifyRequest, sessions: SessionsService, token: string): Promise<void> {
    const session = await sessions.resolve(token);
    if (!session) {
      throw new UnauthorizedError('The browser session has expired or was ended; sign in again (or send an API key).', {
        code: 'invalid_session',
      });
    }
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !/^[0-9a-f]{64}$/.test(sent) || !sameHash(sessionCsrfToken(token), sent)) {
      throw new ForbiddenError(
        'A request authenticated by the browser session must carry the X-Herald-CSRF header with the page\'s CSRF token (the content of <meta name="herald-csrf">).',
        { code: 'csrf_required' },
      );
    }
    const { current } = await sessions.context(session);
    request.principal = {
      keyId: `session:${session.id}`,
      credential: 'session',
      userId: session.userId,
      kind: 'rest',
      scopes: current ? SESSION_SCOPES[current.role] : [],
      channelIds: null,
      workspaceId: current?.workspace.id ?? session.workspaceId,
    };
  }

  /** Reads the credential onto the request (its principal, or why it is refused). */
  function identify(request: FastifyRequest, plan: Plan): MaybePromise<void> {
    if (options.sessions && plan.auth !== 'mcp' && request.headers.authorization === undefined) {
      const token = sessionCookie(request);
      if (token !== undefined)
        return identifyBySession(request, options.sessions, token).catch((error: unknown) => refused(request, plan, error));
    }
    if (repeatedAuthorization(request)) {
      request.credentialError = new BadRequestError('The request has more than one Authorization header; send the credential once.', {
        code: 'invalid_credential',
      });
      return;
    }
    let principal: MaybePromise<Principal>;
    try {
      principal = options.apiKeys.authenticate(request.headers.authorization, plan.auth === 'mcp' ? 'mcp' : 'rest');
    } catch (error) {
      return refused(request, plan, error);
    }
    if (!(principal instanceof Promise)) {
      request.principal = principal;
      return;
    }
    return principal.then(
      (found) => {
        request.principal = found;
      },
      (error: unknown) => refused(request, plan, error),
    );
  }

  /** After the credential and the count: enforce the credential, pick the workspace, check the scope. */
  function authorize(request: FastifyRequest, plan: Plan): MaybePromise<void> {
    const { auth, scope } = plan;
    if (auth === 'none') return;
    if (request.credentialError) throw request.credentialError;
    if (auth === 'key' || auth === 'mcp' || !request.principal) return;
    return andThen(options.access.select(request.principal, readShoworg(request)), (access) => {
      request.access = access;
      if (scope) requireScope(access, scope);
    });
  }

  /**
   * A route's hook. Each step returns at once when it could finish without waiting (on SQLite
   * with the key and memberships kept, counters in memory: every step), and the hook then calls
   * `done` synchronously, without the promises an async hook would cost each request.
   */
  function hookFor(plan: Plan): GuardHook {
    const { auth, quota } = plan;
    const steps = (request: FastifyRequest, reply: FastifyReply): MaybePromise<void> => {
      const identified = auth === 'none' ? undefined : identify(request, plan);
      const counted = quota ? andThen(identified, () => count(request, reply, quota)) : identified;
      return andThen(counted, () => authorize(request, plan));
    };
    return function guard(request, reply, done) {
      let result: MaybePromise<void>;
      try {
        result = steps(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (result instanceof Promise) result.then(() => done(), done);
      else done();
    };
  }

  /** The hook for one method of a route, or null when the route is neither guarded nor counted. */
  function routeHook(route: RouteOptions, method: string): GuardHook | null {
    const config = route.config ?? {};
    const auth = config.auth ?? 'workspace';
    const quota = config.rateLimited === false ? null : quotaFor(`${method === 'HEAD' ? 'GET' : method} ${route.url}`, config.quota);
    if (auth === 'none' && !quota) return null;
    return hookFor({ auth, scope: config.scope, challenge: config.challenge, quota });
  }

  const plugin = fp(
    async (app: FastifyInstance) => {
      app.decorateRequest('principal', null);
      app.decorateRequest('credentialError', null);
      app.decorateRequest('access', null);
      app.decorate('requestCounter', counter);
      app.addHook('onRoute', (route) => {
        const methods = [route.method].flat();
        let hook: GuardHook | null;
        if (methods.length === 1) {
          hook = routeHook(route, methods[0]!);
        } else {
          const byMethod = new Map(methods.map((method) => [method, routeHook(route, method)]));
          hook = function guardByMethod(this: FastifyInstance, request, reply, done) {
            const forMethod = byMethod.get(request.method);
            if (forMethod) forMethod.call(this, request, reply, done);
            else done();
          };
        }
        if (!hook) return;
        // A new array: Fastify's HEAD twin of a GET route starts from a copy of the same options.
        route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), hook];
      });
    },
    { name: 'herald-guard' },
  );

  return {
    plugin,
    notFound: hookFor({ auth: 'none', scope: undefined, challenge: undefined, quota: quotaFor('unknown route', undefined) }),
  };
}
