import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type * as z from 'zod';
import type { Operation } from '../operations/operation.ts';
import { idempotencyHeaders, showorgHeader } from './common.schema.ts';

type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * The key of a route's schema that holds the form it also takes as multipart/form-data: the
 * OpenAPI document lists it beside the JSON body (see openapi.plugin.ts); validation ignores it.
 */
export const MULTIPART_BODY = 'x-herald-multipart-body';

/**
 * Declares the REST route of an operation: its scope, its schemas (for validation and the OpenAPI
 * document), and the service call. An answer the service keeps (frozen, the same object until
 * what it shows changes, such as a workspace's channel list) is written to JSON once.
 */
export function operationRoute<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodObject, R>(
  app: App,
  op: Operation<P, Q, B, R>,
  options: {
    /** Runs before validation: a route that also takes another content type (multipart) turns it into the body the schema checks. */
    preValidation?: (request: FastifyRequest) => Promise<void>;
    /** The form such a route also takes as multipart/form-data, for the OpenAPI document (see `MULTIPART_BODY`). */
    multipartBody?: z.ZodObject;
  } = {},
): void {
  const { preValidation, multipartBody } = options;
  const { method, url, tags, summary, description, response, status = 200, errors } = op.rest;
  const written = new WeakMap<object, string>();
  app.route({
    method,
    url,
    config: { scope: op.scope },
    ...(preValidation && { preValidation }),
    schema: {
      tags,
      summary,
      ...(description !== undefined && { description }),
      headers: op.idempotencyKey ? idempotencyHeaders : showorgHeader,
      ...(op.params && { params: op.params }),
      ...(op.query && { querystring: op.query }),
      ...(op.body && { body: op.body }),
      response: { [status]: response, ...errors },
      ...(multipartBody && { [MULTIPART_BODY]: multipartBody }),
    },
    handler: async (request, reply) => {
      const input = {
        ...(request.params as object),
        ...(request.query as object),
        ...(request.body as object),
        ...(op.idempotencyKey && { idempotencyKey: request.headers['idempotency-key'] as string | undefined }),
      } as Parameters<typeof op.call>[2];
      const result = await op.call(app.services, request.access!, input);
      if (op.rest.serialize)
        return reply
          .status(status)
          .type('application/json; charset=utf-8')
          .send(await op.rest.serialize(result));
      reply.status(status);
      if (typeof result !== 'object' || result === null || !Object.isFrozen(result)) return reply.send(result);
      let body = written.get(result);
      if (body === undefined) written.set(result, (body = reply.serialize(result) as string));
      // Already JSON, written by the route's own serializer: sent as it is.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  });
}
