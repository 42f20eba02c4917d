import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, onRequestHookHandler } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { isUnavailable } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { isRedisUnavailable } from '../lib/redis-errors.ts';

/** The request-validation shape of the public API: `{statusCode, message, error}`. */
export function validationBody(statusCode: number, message: string | string[]) {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error' };
}

/** The 415 answer: what the route takes, rather than a bare "Unsupported Media Type". */
function unsupportedMediaType(contentType: string | undefined, takesMultipart: boolean) {
  const sent = contentType ? `"${contentType.split(';')[0]!.trim()}"` : 'no Content-Type';
  const wanted = takesMultipart
    ? 'send the file as multipart/form-data'
    : 'the body must be JSON, sent with "Content-Type: application/json"';
  return validationBody(415, `Unsupported Media Type: the request has ${sent}; ${wanted}.`);
}

function sendAppError(reply: FastifyReply, error: AppError) {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply.status(error.statusCode).send({ msg: error.message, code: error.code, ...error.details });
}

/**
 * One place maps every error to the API's two error shapes; a 5xx never shows its cause.
 * `notFound` runs first for a request no route matches (the guard's rate limit).
 */
export function registerErrorHandling(app: FastifyInstance, notFound?: { onRequest: onRequestHookHandler }): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error.cause ?? error }, error.message);
      return sendAppError(reply, error);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'request';
      const messages = error.validation.map((issue) => {
        const path = issue.instancePath.split('/').filter(Boolean).join('.');
        return `${where}${path ? `.${path}` : ''}: ${issue.message}`;
      });
      return reply.status(400).send(validationBody(400, messages));
    }
    if (isUnavailable(error) || isRedisUnavailable(error)) {
      request.log.error({ err: error }, isUnavailable(error) ? 'database unavailable' : 'redis unavailable');
      reply.header('retry-after', '5');
      return reply.status(503).send({ msg: 'The service is temporarily unavailable; retry shortly.', code: 'unavailable' });
    }
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      const consumes = (request.routeOptions.schema as { consumes?: string[] } | undefined)?.consumes ?? [];
      return reply.status(415).send(unsupportedMediaType(request.headers['content-type'], consumes.includes('multipart/form-data')));
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send(validationBody(status, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ msg: 'Internal server error. It has been logged; retry later.', code: 'internal' });
  });

  app.setNotFoundHandler({ ...(notFound && { onRequest: notFound.onRequest }) } as object, (request, reply) => {
    reply.status(404).send(validationBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });
}
