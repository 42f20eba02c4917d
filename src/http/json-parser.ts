import type { FastifyInstance } from 'fastify';

/** Keys that could reach an object's prototype when a body is merged into another object. */
const FORBIDDEN_KEY = 'the key "__proto__" (or "constructor" holding "prototype") is not allowed anywhere in a body';

class BodyError extends Error {
  readonly statusCode = 400;
}

/** Parses a JSON body, refusing prototype-poisoning keys with a sentence that names them. */
export function parseJsonBody(text: string): unknown {
  let forbidden = false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, function (this: unknown, key, value: unknown) {
      if (
        key === '__proto__' ||
        (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype'))
      )
        forbidden = true;
      return value;
    });
  } catch (error) {
    throw new BodyError(
      `Body is not valid JSON (${(error as Error).message}); send a JSON document with "Content-Type: application/json".`,
    );
  }
  if (forbidden) throw new BodyError(`Body refused: ${FORBIDDEN_KEY}.`);
  return parsed;
}

/**
 * JSON bodies as usual, but an empty body is "no body": many clients send
 * `Content-Type: application/json` on GET and DELETE without one. Plain text is not taken:
 * a JSON route sent `text/plain` (or no type) gets a 415 saying the body must be JSON.
 */
export function registerJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as BodyError, undefined);
    }
  });
}
