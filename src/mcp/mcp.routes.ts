import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { MCP_SCOPES } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { publicUrls } from '../status/status.service.ts';
import type { McpEndpoint } from './mcp.server.ts';

export type McpOptions = {
  baseUrl: string;
  clock: Clock;
  /** Calls of one tool per credential and window, like a REST route's quota. */
  rateLimit: { max: number; windowSeconds: number };
};

/**
 * The MCP server at /mcp-oauth: streamable HTTP, stateless, inside this Fastify app (its request
 * log, request ids, credential check, rate limits and graceful stop). The SDK and the tools are
 * loaded on the first request, so a process that never serves MCP never pays for them.
 */
export const mcpRoutes: FastifyPluginAsync<McpOptions> = async (app, options) => {
  const urls = publicUrls(options.baseUrl);
  let loading: Promise<McpEndpoint> | undefined;
  const endpoint = () => {
    loading ??= import('./mcp.server.ts')
      .then((module) => module.createMcpEndpoint({ baseUrl: options.baseUrl, clock: options.clock, services: app.services, limit }))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
    return loading;
  };
  app.addHook('onClose', async () => {
    if (loading) await (await loading).close();
  });

  // One quota per tool and credential, counted on every call (a request may hold a batch of them).
  const windowMs = options.rateLimit.windowSeconds * 1000;
  async function limit(request: FastifyRequest, tool: string): Promise<void> {
    const hit = app.requestCounter.hit(`MCP ${tool}|key:${request.principal?.keyId ?? request.ip}`, windowMs);
    const { current, ttl } = hit instanceof Promise ? await hit : hit;
    if (current > options.rateLimit.max) {
      const reset = Math.ceil(ttl / 1000);
      throw new AppError(
        429,
        'rate_limited',
        `Too many calls of ${tool}: the quota is ${options.rateLimit.max} per ${options.rateLimit.windowSeconds} s for each credential. Retry in ${reset} s.`,
      );
    }
  }

  const config = {
    auth: 'mcp',
    challenge: `Bearer resource_metadata="${urls.mcpOauthMetadata}", scope="${MCP_SCOPES.join(' ')}"`,
  } as const;
  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp-oauth',
    config,
    schema: { hide: true },
    handler: async (request, reply) => (await endpoint()).handle(request, reply),
  });
};
