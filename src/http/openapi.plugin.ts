import type { IncomingHttpHeaders } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { DOCS_CSP, DOCS_ICON_SVG, DOCS_THEME_CSS, DOCS_THEME_JS } from '../docs/docs-theme.ts';
import { createJsonSchemaTransformObject, jsonSchemaTransform } from 'fastify-type-provider-zod';
import { publicUrls } from '../status/status.service.ts';
import { MULTIPART_BODY } from './operation-route.ts';
import { zodSchemaController } from './schema-compilers.ts';

export const OPENAPI_INFO = {
  title: 'Herald public API',
  version: '1.0.0',
  description: [
    'Schedule and publish posts to connected channels, keep a media library and read the publishing calendar.',
    '',
    'Authenticate with an API key sent as the whole `Authorization` header value (`Authorization: svc_…`, no `Bearer`), or with an OAuth access token as `Authorization: Bearer svco_…`.',
    'When a key spans several workspaces, send `showorg: <workspace id>`; without it every route but `/status` and `/workspaces` answers 403.',
    '',
    'Every response carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (seconds) and `RateLimit-Policy` (`<quota>;w=<seconds>`), counted per route and per key (per client address without a valid key); a 429 adds `Retry-After`.',
    'Every response carries `Link: <…>; rel="sunset"` pointing at the deprecation policy; a route being retired adds `Deprecation: true` and `Sunset`, at least 180 days ahead.',
    '',
    "Errors: business rules answer `{msg, code}`; request validation answers `{statusCode, message, error}`. Another workspace's object is a 404, exactly like a missing one.",
  ].join('\n'),
};

const componentsTransform = createJsonSchemaTransformObject({});

/**
 * Tidies the generated components: drops the `$schema`/`$id` keywords Zod writes into each
 * one, and the `…Input` twins that no operation refers to (response-only shapes).
 */
const transformObject: typeof componentsTransform = (input) => {
  const document = componentsTransform(input) as { components?: { schemas?: Record<string, Record<string, unknown>> } };
  const schemas = document.components?.schemas;
  if (!schemas) return document as ReturnType<typeof componentsTransform>;
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  const referenced = (name: string) => {
    const { [name]: _self, ...rest } = schemas;
    return JSON.stringify({ ...document, components: { ...document.components, schemas: rest } }).includes(
      `"#/components/schemas/${name}"`,
    );
  };
  let removed = true;
  while (removed) {
    removed = false;
    for (const name of Object.keys(schemas)) {
      if (name.endsWith('Input') && schemas[name.slice(0, -'Input'.length)] && !referenced(name)) {
        delete schemas[name];
        removed = true;
      }
    }
  }
  return document as ReturnType<typeof componentsTransform>;
};

type Transform = typeof jsonSchemaTransform;

/**
 * The routes' schemas as the document shows them; a route that also takes a form
 * (`MULTIPART_BODY`) lists it as the multipart/form-data content of its request body, beside the
 * JSON one.
 */
const transform: Transform = (input) => {
  const { [MULTIPART_BODY]: form, ...schema } = input.schema as Record<string, unknown>;
  const out = jsonSchemaTransform({ ...input, schema } as Parameters<Transform>[0]);
  if (!form) return out;
  const formOut = jsonSchemaTransform({ ...input, schema: { body: form } } as Parameters<Transform>[0]);
  // Each body as a media type's schema, without the identifiers Zod writes (the document would show them as titles).
  const bare = (schema: unknown) => {
    const { $id: _id, $schema: _schema, ...rest } = schema as Record<string, unknown>;
    return rest;
  };
  const body = bare((out.schema as { body?: unknown }).body);
  const formBody = bare((formOut.schema as { body?: unknown }).body);
  return {
    ...out,
    schema: {
      ...out.schema,
      body: { content: { 'application/json': { schema: body }, 'multipart/form-data': { schema: formBody } } },
    },
  } as ReturnType<Transform>;
};

declare module 'fastify' {
  interface FastifyInstance {
    /** The OpenAPI document of this app's routes, built the first time it is asked for. */
    openapiDocument(): Promise<Record<string, unknown>>;
  }
}

type Documented = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>;

/**
 * Generates the OpenAPI 3.1 document from the routes' Zod schemas and serves it with Swagger UI.
 * Nothing of it is loaded at start-up: the routes are noted as they are declared, and the first
 * request for the document (or Swagger UI) declares them again, with their schemas and no
 * handlers, in a private Fastify instance where @fastify/swagger (and the YAML library it brings)
 * generates the document.
 */
async function openapi(app: FastifyInstance, { baseUrl }: { baseUrl: string }) {
  const urls = publicUrls(baseUrl);
  const routes: Documented[] = [];
  app.addHook('onRoute', (route) => {
    // Fastify's HEAD twins of GET routes are not documented; hidden routes (pages, /docs) neither.
    if (route.method === 'HEAD' || (route.schema as { hide?: boolean } | undefined)?.hide) return;
    routes.push({ method: route.method, url: route.url, schema: route.schema, config: route.config });
  });

  let documenting: Promise<FastifyInstance> | undefined;
  const documentApp = () =>
    (documenting ??= (async () => {
      const { default: swagger } = await import('@fastify/swagger');
      const instance = Fastify({ logger: false, schemaController: zodSchemaController, exposeHeadRoutes: false });
      await instance.register(swagger, {
        openapi: {
          openapi: '3.1.0',
          info: OPENAPI_INFO,
          servers: [{ url: urls.api }],
          components: {
            securitySchemes: {
              apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'An API key (svc_…) as the whole header value.' },
              oauth: { type: 'http', scheme: 'bearer', description: 'An OAuth access token (svco_…).' },
              cookieSession: {
                type: 'apiKey',
                in: 'cookie',
                name: 'herald_session',
                description:
                  "The browser session of a person signed in on this site, for browser apps served from the same origin (Herald's own web app is one). Used only when the request has no Authorization header. The request acts as that member in the session's current workspace, with the scopes the member's role allows (a viewer only reads). Every such request, reads included, must also send the header `X-Herald-CSRF` with the page's CSRF token (the `content` of `<meta name=\"herald-csrf\">` on /app); without it the answer is 403 `csrf_required`. Upload links cannot be made this way.",
              },
            },
          },
          security: [{ apiKey: [] }, { oauth: [] }, { cookieSession: [] }],
          externalDocs: { url: urls.developers, description: "Developers' guide" },
        },
        transform,
        transformObject,
      });
      for (const route of routes) instance.route({ ...route, handler: async () => null } as RouteOptions);
      await instance.ready();
      return instance;
    })().catch((error: unknown) => {
      documenting = undefined;
      throw error;
    }));
  app.decorate('openapiDocument', async () => (await documentApp()).swagger() as unknown as Record<string, unknown>);

  const ui = swaggerUiOnDemand(documentApp);
  const open = { auth: 'none', rateLimited: false } as const;
  app.get('/docs', { config: open, schema: { hide: true } }, ui);
  app.get('/docs/*', { config: open, schema: { hide: true } }, ui);
}

/** Headers of the inner answer that describe its transfer, not its content; Fastify sets its own. */
const HOP_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * Swagger UI (its plugin, a static file server and a megabyte of assets) is loaded the first
 * time someone opens /docs, not at start-up: a private Fastify instance holding only the
 * Swagger UI plugin answers the /docs requests, in memory, with this app's OpenAPI document.
 */
function swaggerUiOnDemand(documentApp: () => Promise<FastifyInstance>) {
  let inner: Promise<FastifyInstance> | undefined;
  const load = async () => {
    const [{ default: swaggerUi }, app] = await Promise.all([import('@fastify/swagger-ui'), documentApp()]);
    const instance = Fastify({ logger: false, schemaController: zodSchemaController });
    // Swagger UI asks for @fastify/swagger; the document is this app's.
    await instance.register(
      fp(
        async (scope) => {
          scope.decorate('swagger', ((options?: { yaml?: boolean }) =>
            app.swagger(options as { yaml: true })) as FastifyInstance['swagger']);
        },
        { name: '@fastify/swagger' },
      ),
    );
    await instance.register(swaggerUi, {
      routePrefix: '/docs',
      // Herald's name and look (src/docs/docs-theme.ts); its own header replaces Swagger's top bar.
      uiConfig: { layout: 'BaseLayout', deepLinking: false }, // deep links put a link inside each operation's button (nested controls)
      logo: { type: 'image/svg+xml', content: Buffer.from(DOCS_ICON_SVG), href: '/docs', target: '_self' },
      theme: {
        title: 'Herald API reference',
        favicon: [{ filename: 'herald.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(DOCS_ICON_SVG) }],
        css: [{ filename: 'herald.css', content: DOCS_THEME_CSS }],
        js: [{ filename: 'herald.js', content: DOCS_THEME_JS }],
      },
    });
    await instance.ready();
    return instance;
  };
  return async (request: FastifyRequest, reply: FastifyReply) => {
    inner ??= load().catch((error: unknown) => {
      inner = undefined;
      throw error;
    });
    const answer = await (await inner).inject({ method: 'GET', url: request.url, headers: request.headers as IncomingHttpHeaders });
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    reply.header('content-security-policy', DOCS_CSP).header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff');
    return reply.status(answer.statusCode).send(answer.rawPayload);
  };
}

export const openapiPlugin = fp(openapi, { name: 'herald-openapi' });
