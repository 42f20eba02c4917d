import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { requireScope, type AccessService } from '../auth/access.service.ts';
import type { Scope } from '../auth/scopes.ts';
import { AppError, BadRequestError } from '../errors.ts';
import type { ApiKeysService } from '../keys/api-keys.service.ts';
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
};

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

  async function count(request: FastifyRequest, reply: FastifyReply, quota: NonNullable<Plan['quota']>): Promise<void> {
    const key = `${quota.route}|${request.principal ? `key:${request.principal.keyId}` : `ip:${request.ip}`}`;
    const hit = counter.hit(key, windowMs);
    const { current, ttl } = hit instanceof Promise ? await hit : hit;
    const reset = Math.ceil(ttl / 1000);
    reply.header('ratelimit-limit', quota.limit);
    reply.header('ratelimit-remaining', Math.max(0, quota.max - current));
    reply.header('ratelimit-reset', reset);
    reply.header('ratelimit-policy', quota.policy);
    if (current > quota.max) {
      throw new AppError(429, 'rate_limited', `Too many requests to ${quota.route}: the quota is ${quota.max} per ${windowSeconds} s. Retry in ${reset} s.`, {
        headers: { 'Retry-After': String(reset) },
      });
    }
  }

  function hookFor(plan: Plan): onRequestHookHandler {
    const { auth, scope, quota } = plan;
    return async function guard(request, reply) {
      if (auth !== 'none') {
        if (repeatedAuthorization(request)) {
          request.credentialError = new BadRequestError('The request has more than one Authorization header; send the credential once.', { code: 'invalid_credential' });
        } else {
          try {
            request.principal = await options.apiKeys.authenticate(request.headers.authorization, auth === 'mcp' ? 'mcp' : 'rest');
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            const header = request.headers.authorization;
            const challenge = plan.challenge ?? (header === undefined || /^[ \t]*bearer[ \t]/i.test(header) ? options.restChallenge : undefined);
            if (error.statusCode === 401 && challenge) {
              error.headers['WWW-Authenticate'] = header === undefined ? challenge : `${challenge}, error="invalid_token"`;
            }
            request.credentialError = error;
          }
        }
      }

      if (quota) await count(request, reply, quota);

      if (auth === 'none') return;
      if (request.credentialError) throw request.credentialError;
      if (auth === 'key' || auth === 'mcp' || !request.principal) return;

      request.access = await options.access.select(request.principal, readShoworg(request));
      if (scope) requireScope(request.access, scope);
    };
  }

  /** The hook for one method of a route, or null when the route is neither guarded nor counted. */
  function routeHook(route: RouteOptions, method: string): onRequestHookHandler | null {
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
        let hook: onRequestHookHandler | null;
        if (methods.length === 1) {
          hook = routeHook(route, methods[0]!);
        } else {
          const byMethod = new Map(methods.map((method) => [method, routeHook(route, method)]));
          hook = async function guardByMethod(this: FastifyInstance, request, reply) {
            await byMethod.get(request.method)?.call(this, request, reply, () => {});
          };
        }
        if (!hook) return;
        // A new array: Fastify's HEAD twin of a GET route starts from a copy of the same options.
        route.onRequest = [...(route.onRequest ? [route.onRequest].flat() : []), hook];
      });
    },
    { name: 'herald-guard' },
  );

  return { plugin, notFound: hookFor({ auth: 'none', scope: undefined, challenge: undefined, quota: quotaFor('unknown route', undefined) }) };
}
