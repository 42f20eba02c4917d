import type { FastifyInstance } from 'fastify';

/**
 * JSON bodies as usual, but an empty body is "no body": many clients send
 * `Content-Type: application/json` on GET and DELETE without one.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    parse(request, body as string, done);
  });
}
