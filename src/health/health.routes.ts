import type { FastifyInstance } from 'fastify';
import '../http/route-config.ts';
import { runChecks, type ReadinessCheck } from './readiness.ts';

export type HealthOptions = { checks: readonly ReadinessCheck[]; timeoutMs?: number };

const open = { auth: 'none', rateLimited: false } as const;

/**
 * For load balancers and orchestrators, outside the public API and its rate limits:
 * `/healthz` answers while the process runs; `/readyz` answers 200 only when every dependency
 * (database, Redis when configured, the media store) does, and names the ones that do not.
 */
export async function healthRoutes(app: FastifyInstance, { checks, timeoutMs = 3000 }: HealthOptions): Promise<void> {
  app.get('/healthz', { config: open, schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: open, schema: { hide: true } }, async (request, reply) => {
    const results = await runChecks(checks, timeoutMs, (name, error) =>
      request.log.warn({ err: error, dependency: name }, 'readiness check failed'),
    );
    const down = results.filter((r) => !r.ok).map((r) => r.name);
    const body = {
      status: down.length ? 'unavailable' : 'ok',
      checks: Object.fromEntries(results.map((r) => [r.name, r.ok ? 'ok' : 'down'])),
    };
    if (down.length === 0) return body;
    reply.header('retry-after', '5');
    return reply.status(503).send({ ...body, msg: `Not ready: ${down.join(', ')} unreachable.` });
  });
}
