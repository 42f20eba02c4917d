import {
  createMcpHandler,
  McpServer,
  originValidationResponse,
  hostHeaderValidationResponse,
  type CallToolResult,
} from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireScope } from '../auth/access.service.ts';
import { mcpScopeFor } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import { readShoworg } from '../http/showorg.ts';
import type { Clock } from '../lib/clock.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { Services } from '../services.ts';
import { MCP_INSTRUCTIONS, TOOLS, type ToolContext } from './mcp.tools.ts';

export type McpEndpoint = {
  handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>;
  close(): Promise<void>;
};

type EndpointDeps = {
  baseUrl: string;
  clock: Clock;
  services: Services;
  limit: (request: FastifyRequest, tool: string) => Promise<void>;
};

/** What one HTTP request hands the server it is answered by (through the SDK's `authInfo`). */
type RequestCall = { request: FastifyRequest; principal: Principal };

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '1.0.0' };

/** A tool's failure as the client sees it: an error result carrying the API's own sentence, never a transport error. */
function toolError(error: unknown, request: FastifyRequest): CallToolResult {
  if (error instanceof AppError && error.statusCode < 500) {
    return {
      isError: true,
      content: [{ type: 'text', text: error.message }],
      _meta: { 'herald/error': { status: error.statusCode, code: error.code, ...error.details } },
    };
  }
  if (error instanceof AppError) request.log.error({ err: error.cause ?? error }, error.message);
  else request.log.error({ err: error }, 'MCP tool failed');
  const message = error instanceof AppError ? error.message : 'Internal server error. It has been logged; retry later.';
  return { isError: true, content: [{ type: 'text', text: message }], _meta: { 'herald/error': { status: 500, code: 'internal' } } };
}

/** Builds the server for one request: every tool bound to the request's credential. */
function serverFor(deps: EndpointDeps, call: RequestCall): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: MCP_INSTRUCTIONS });
  const ctx: ToolContext = { services: deps.services, baseUrl: deps.baseUrl, clock: deps.clock, principal: call.principal };
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          await deps.limit(call.request, tool.name);
          let access = null;
          if (tool.scope !== null) {
            const selected = typeof args.workspace === 'string' ? args.workspace : readShoworg(call.request);
            access = await deps.services.access.select(call.principal, selected);
            // As the REST route would: the scope within the owner's role, asked for by its MCP name first.
            requireScope(access, mcpScopeFor(tool.scope));
            requireScope(access, tool.scope);
          }
          const output = tool.output.parse(await tool.run(ctx, access, args)) as Record<string, unknown>;
          call.request.log.debug({ tool: tool.name }, 'MCP tool call');
          return { content: [{ type: 'text', text: tool.summary(output) }], structuredContent: output };
        } catch (error) {
          call.request.log.debug({ tool: tool.name, err: error instanceof AppError ? error.code : 'internal' }, 'MCP tool call failed');
          return toolError(error, call.request);
        }
      },
    );
  }
  return server;
}

/** Hostnames a request may name (Host) or come from (Origin): BASE_URL's and loopback's, against DNS rebinding. */
function allowedHostnames(baseUrl: string): string[] {
  return [...new Set([new URL(baseUrl).hostname, 'localhost', '127.0.0.1', '[::1]'])];
}

/** The request as the SDK's web-standard handler takes it; the body Fastify already parsed is passed beside it. */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  const url = new URL(request.url, `${request.protocol}://${request.host || 'localhost'}`);
  return new Request(url, { method: request.method, headers });
}

export function createMcpEndpoint(deps: EndpointDeps): McpEndpoint {
  const hosts = allowedHostnames(deps.baseUrl);
  const handler = createMcpHandler(
    (context) => {
      const call = context.authInfo?.extra?.call as RequestCall | undefined;
      if (!call) throw new Error('MCP request without a verified credential');
      return serverFor(deps, call);
    },
    { legacy: 'stateless' },
  );
  return {
    async handle(request, reply) {
      const webRequest = toWebRequest(request);
      const rejected = hostHeaderValidationResponse(webRequest, hosts) ?? originValidationResponse(webRequest, hosts);
      if (rejected) return reply.send(rejected);
      const principal = request.principal!;
      const response = await handler.fetch(webRequest, {
        ...(request.body !== undefined && { parsedBody: request.body }),
        authInfo: {
          token: principal.keyId,
          clientId: principal.keyId,
          scopes: [...principal.scopes],
          extra: { call: { request, principal } satisfies RequestCall },
        },
      });
      return reply.send(response);
    },
    close: () => handler.close(),
  };
}
