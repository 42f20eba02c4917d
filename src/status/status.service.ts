import { MCP_SCOPES, REST_SCOPES } from '../auth/scopes.ts';
import type { Clock } from '../lib/clock.ts';
import type { PlatformApps } from '../providers/platform-apps.ts';
import { getProvider, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import type { Status } from './status.schema.ts';

export const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

/** Every absolute address the service publishes, built from BASE_URL. */
export function publicUrls(baseUrl: string) {
  return {
    api: `${baseUrl}/public/v1`,
    developers: `${baseUrl}/developers`,
    deprecationPolicy: `${baseUrl}/developers#deprecation-policy`,
    signUp: `${baseUrl}/account/sign-in`,
    developerSettings: `${baseUrl}/account/keys`,
    openapi: `${baseUrl}/public/v1/openapi.json`,
    openapiMirror: `${baseUrl}/openapi.json`,
    swaggerUi: `${baseUrl}/docs`,
    llms: `${baseUrl}/llms.txt`,
    oauthMetadata: `${baseUrl}/.well-known/oauth-protected-resource`,
    oauthIssuer: baseUrl,
    oauthServerMetadata: `${baseUrl}/.well-known/oauth-authorization-server`,
    mcp: `${baseUrl}/mcp-oauth`,
    mcpOauthMetadata: `${baseUrl}/.well-known/oauth-protected-resource/mcp-oauth`,
  };
}

export function buildStatus(baseUrl: string, clock: Clock, platformApps: PlatformApps): Status {
  const urls = publicUrls(baseUrl);
  return {
    name: 'Herald',
    status: 'ok',
    version: 'v1',
    time: clock.now().toISOString(),
    documentation: {
      developers: urls.developers,
      openapi: urls.openapi,
      openapiMirror: urls.openapiMirror,
      swaggerUi: urls.swaggerUi,
      llms: urls.llms,
    },
    authentication: {
      apiKey: { header: 'Authorization', format: 'svc_<key>, sent as the whole header value (no "Bearer")', selfServe: true },
      oauth2: {
        resource: urls.api,
        metadata: urls.oauthMetadata,
        issuer: urls.oauthIssuer,
        authorizationServerMetadata: urls.oauthServerMetadata,
        mcpResource: urls.mcp,
        mcpMetadata: urls.mcpOauthMetadata,
        tokenPrefix: 'svco_',
        header: 'Authorization: Bearer <token>',
      },
      signUp: urls.signUp,
      salesContactRequired: false,
    },
    mcp: { endpoint: urls.mcp, transport: 'streamable-http' },
    scopes: { rest: [...REST_SCOPES], mcp: [...MCP_SCOPES] },
    rateLimits: { headers: RATE_LIMIT_HEADERS },
    versioning: { scheme: 'url-path', current: 'v1' },
    platforms: PROVIDER_IDENTIFIERS.map((identifier) => {
      const provider = getProvider(identifier);
      const unavailable = provider.unavailable?.(platformApps) ?? null;
      return { identifier, name: provider.name, available: unavailable === null, ...(unavailable !== null && { unavailable }) };
    }),
  };
}
