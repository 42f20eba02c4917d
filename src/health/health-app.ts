import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { RequestLog } from '../http/request-log.ts';
import { zodSchemaController } from '../http/schema-compilers.ts';
import { healthRoutes, type HealthOptions } from './health.routes.ts';

/** The only HTTP a worker process serves: `/healthz` and `/readyz`. */
export async function buildHealthApp(options: HealthOptions & { log?: FastifyBaseLogger }): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.log ? { loggerInstance: options.log } : { logger: false }),
    logController: new RequestLog(),
    return503OnClosing: true,
    forceCloseConnections: true,
    schemaController: zodSchemaController,
  });
  await app.register(healthRoutes, options);
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send({
      statusCode: 404,
      message: `Route ${request.method} ${request.url.split('?')[0]} not found: this is a worker process (only /healthz and /readyz).`,
      error: 'Not Found',
    });
  });
  return app;
}
