import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import { requireScope, type AccessService } from '../auth/access.service.ts';
import { AppError, BadRequestError } from '../errors.ts';
import type { ApiKeysService } from '../keys/api-keys.service.ts';
import './route-config.ts';
import { sharedRateLimitStore } from './rate-limit-store.ts';
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

type Limiter = (request: FastifyRequest) => Promise<{ isAllowed: boolean; max?: number; remaining?: number; ttlInSeconds?: number; isExceeded?: boolean }>;

/** The quota a request counts against: its route, with HEAD counted as the GET it mirrors. */
function routeKey(request: FastifyRequest): string {
  if (request.is404) return 'unknown route';
  return `${request.method === 'HEAD' ? 'GET' : request.method} ${request.routeOptions.url}`;
}

/** Node keeps only the first of repeated Authorization headers; a request that sends two is refused instead. */
function repeatedAuthorization(request: FastifyRequest): boolean {
  const raw = request.raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') seen += 1;
  return seen > 1;
}

/**
 * Every request passes here first, in this order: read the credential, count it against
 * the route's quota (per key, or per client address without a valid one), then enforce
 * the credential, the workspace selection and the route's scope. Counting before refusing
 * means failed credentials are rate limited too, and every answer carries the headers.
 */
async function guard(app: FastifyInstance, options: GuardOptions) {
  await app.register(rateLimit, {
    global: false,
    ...(options.redis ? { store: sharedRateLimitStore(options.redis) } : { cache: 100_000 }),
    skipOnError: false,
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('credentialError', null);
  app.decorateRequest('access', null);

  const limiters = new Map<string, { limiter: Limiter; max: number }>();
  function limiterFor(request: FastifyRequest) {
    const key = routeKey(request);
    let entry = limiters.get(key);
    if (!entry) {
      const max = options.rateLimit.routes[key] ?? request.routeOptions.config.quota ?? options.rateLimit.max;
      const limiter = app.createRateLimit({
        max,
        timeWindow: options.rateLimit.windowSeconds * 1000,
        keyGenerator: (req: FastifyRequest) => `${key}|${req.principal ? `key:${req.principal.keyId}` : `ip:${req.ip}`}`,
      }) as Limiter;
      entry = { limiter, max };
      limiters.set(key, entry);
    }
    return entry;
  }

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    const auth = request.is404 ? 'none' : (config.auth ?? 'workspace');

    if (auth !== 'none' && repeatedAuthorization(request)) {
      request.credentialError = new BadRequestError('The request has more than one Authorization header; send the credential once.', { code: 'invalid_credential' });
    } else if (auth !== 'none') {
      try {
        request.principal = await options.apiKeys.authenticate(request.headers.authorization, auth === 'mcp' ? 'mcp' : 'rest');
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const header = request.headers.authorization;
        const challenge = config.challenge ?? (header === undefined || /^[ \t]*bearer[ \t]/i.test(header) ? options.restChallenge : undefined);
        if (error.statusCode === 401 && challenge) {
          error.headers['WWW-Authenticate'] = header === undefined ? challenge : `${challenge}, error="invalid_token"`;
        }
        request.credentialError = error;
      }
    }

    if (config.rateLimited !== false) {
      const { limiter, max } = limiterFor(request);
      const result = await limiter(request);
      if (!result.isAllowed) {
        const reset = result.ttlInSeconds ?? options.rateLimit.windowSeconds;
        reply.header('RateLimit-Limit', max);
        reply.header('RateLimit-Remaining', result.remaining ?? 0);
        reply.header('RateLimit-Reset', reset);
        reply.header('RateLimit-Policy', `${max};w=${options.rateLimit.windowSeconds}`);
        if (result.isExceeded) {
          throw new AppError(429, 'rate_limited', `Too many requests to ${routeKey(request)}: the quota is ${max} per ${options.rateLimit.windowSeconds} s. Retry in ${reset} s.`, {
            headers: { 'Retry-After': String(reset) },
          });
        }
      }
    }

    if (auth === 'none') return;
    if (request.credentialError) throw request.credentialError;
    if (auth === 'key' || auth === 'mcp' || !request.principal) return;

    request.access = await options.access.select(request.principal, readShoworg(request));
    if (config.scope) requireScope(request.access, config.scope);
  });
}

export const guardPlugin = fp(guard, { name: 'herald-guard' });
