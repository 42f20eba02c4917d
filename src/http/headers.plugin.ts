import type { FastifyInstance, onSendHookHandler } from 'fastify';
import fp from 'fastify-plugin';

export type Deprecation = { sunset: string; since?: string | undefined };

export type HeadersOptions = {
  /** Where the deprecation policy is published; sent as `Link: <…>; rel="sunset"` on every response. */
  policyUrl: string;
  /** Routes being retired, by "METHOD /path". */
  deprecations: Record<string, Deprecation>;
  now: () => Date;
};

/** The shortest notice between the first Deprecation header and the sunset (spec, section 9). */
export const MIN_NOTICE_DAYS = 180;
const DAY_MS = 86_400_000;

/** Checks the notice period; throws a message naming the route when it is too short. */
export function checkDeprecations(deprecations: Record<string, Deprecation>, now: Date): void {
  for (const [route, { sunset, since }] of Object.entries(deprecations)) {
    const sunsetAt = Date.parse(sunset);
    const noticeFrom = since ? Date.parse(since) : now.getTime();
    if (Number.isNaN(sunsetAt) || Number.isNaN(noticeFrom)) throw new Error(`DEPRECATIONS: "${route}" has an invalid date.`);
    if (sunsetAt - noticeFrom < MIN_NOTICE_DAYS * DAY_MS) {
      throw new Error(
        `DEPRECATIONS: the sunset of "${route}" (${new Date(sunsetAt).toISOString()}) is closer than ${MIN_NOTICE_DAYS} days to its first deprecation notice (${new Date(noticeFrom).toISOString()}).`,
      );
    }
  }
}

async function headers(app: FastifyInstance, options: HeadersOptions) {
  checkDeprecations(options.deprecations, options.now());
  const link = `<${options.policyUrl}>; rel="sunset"`;
  const retiring = new Map(
    Object.entries(options.deprecations).map(([route, d]) => [
      route,
      { sunset: new Date(d.sunset).toUTCString(), since: d.since ? Date.parse(d.since) : 0 },
    ]),
  );
  const seen = new Set<string>();
  // A deprecated route gets its own onSend hook; every other answer only gets the Link header.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    for (const method of methods) seen.add(`${method} ${route.url}`);
    const deprecated = new Map(
      methods.flatMap((method) => {
        const deprecation = retiring.get(`${method} ${route.url}`);
        return deprecation ? [[method, deprecation] as const] : [];
      }),
    );
    if (deprecated.size === 0) return;
    const announce: onSendHookHandler = (request, reply, payload, done) => {
      const deprecation = deprecated.get(request.method);
      if (deprecation && options.now().getTime() >= deprecation.since) {
        reply.header('Deprecation', 'true');
        reply.header('Sunset', deprecation.sunset);
      }
      done(null, payload);
    };
    // A new array: Fastify's HEAD twin of a GET route starts from a copy of the same options.
    route.onSend = [...(route.onSend ? [route.onSend].flat() : []), announce];
  });
  app.addHook('onReady', async () => {
    const unknown = [...retiring.keys()].filter((route) => !seen.has(route));
    if (unknown.length > 0) throw new Error(`DEPRECATIONS names routes that do not exist: ${unknown.join(', ')}`);
  });

  // Set as the request arrives, so a reply a route writes itself (the OAuth library's) has it too.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('Link', link);
    done();
  });
}

export const headersPlugin = fp(headers, { name: 'herald-headers' });
