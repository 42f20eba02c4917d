import type { FastifyPluginAsync } from 'fastify';
import { MCP_SCOPES, REST_SCOPES } from '../auth/scopes.ts';
import { publicUrls } from '../status/status.service.ts';
import { pageHeaders } from '../web/layout.ts';
import { CHANNEL_AVATAR_SVG, developersHtml, llmsTxt } from './docs.content.ts';

/** Machine- and human-facing documentation outside the versioned API, plus the OpenAPI document. */
export const docsRoutes: FastifyPluginAsync<{ baseUrl: string }> = async (app, { baseUrl }) => {
  const page = { auth: 'none', rateLimited: false } as const;
  const hidden = { hide: true };
  const urls = publicUrls(baseUrl);
  const developers = developersHtml(baseUrl);
  const llms = llmsTxt(baseUrl);
  // The page loads nothing but the stylesheet, and has no script and no form.
  const developersHeaders = pageHeaders({ script: null, formAction: "'none'" });

  // `/` is the web app's (src/web/app-pages.routes.ts): the app when signed in, this guide otherwise.
  app.get('/developers', { config: page, schema: hidden }, async (_request, reply) => reply.headers(developersHeaders).send(developers));
  app.get('/llms.txt', { config: page, schema: hidden }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(llms));
  app.get('/assets/channel.svg', { config: page, schema: hidden }, async (_request, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(CHANNEL_AVATAR_SVG),
  );
  app.get('/.well-known/oauth-protected-resource', { config: page, schema: hidden }, async () => ({
    resource: urls.api,
    authorization_servers: [urls.oauthIssuer],
    scopes_supported: [...REST_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: urls.developers,
  }));
  // RFC 9728: the metadata of the resource at /mcp-oauth lives at the well-known path followed by the resource's path.
  app.get('/.well-known/oauth-protected-resource/mcp-oauth', { config: page, schema: hidden }, async () => ({
    resource: urls.mcp,
    authorization_servers: [urls.oauthIssuer],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Herald MCP server',
    resource_documentation: urls.developers,
  }));
  app.get('/openapi.json', { config: page, schema: hidden }, async () => app.openapiDocument());
  app.get('/public/v1/openapi.json', { config: { auth: 'none' }, schema: hidden }, async () => app.openapiDocument());
};
