import * as z from 'zod';

export const statusSchema = z
  .object({
    name: z.string().describe('Service name.'),
    status: z.literal('ok'),
    version: z.literal('v1'),
    time: z.iso.datetime({ precision: 3 }).describe('The server clock, UTC with milliseconds: the authoritative clock for scheduling.'),
    documentation: z.object({
      developers: z.url(),
      openapi: z.url(),
      openapiMirror: z.url(),
      swaggerUi: z.url(),
      llms: z.url(),
    }),
    authentication: z.object({
      apiKey: z.object({
        header: z.literal('Authorization'),
        format: z.string(),
        selfServe: z.boolean(),
      }),
      oauth2: z.object({
        resource: z.url(),
        metadata: z.url().describe('OAuth 2.0 protected resource metadata (RFC 9728).'),
        issuer: z.url().describe('The authorization server (issuer) that grants tokens for this API.'),
        authorizationServerMetadata: z.url().describe('Authorization server metadata (RFC 8414).'),
        mcpResource: z.url().describe('The MCP server, a second resource: tokens are bound to one resource (RFC 8707).'),
        mcpMetadata: z.url().describe('Protected resource metadata of the MCP server (RFC 9728).'),
        tokenPrefix: z.string(),
        header: z.string(),
      }),
      signUp: z.url(),
      salesContactRequired: z.literal(false),
    }),
    mcp: z.object({ endpoint: z.url(), transport: z.literal('streamable-http') }),
    scopes: z.object({ rest: z.array(z.string()), mcp: z.array(z.string()) }),
    rateLimits: z.object({ headers: z.array(z.string()).length(4) }),
    versioning: z.object({ scheme: z.literal('url-path'), current: z.literal('v1') }),
    platforms: z
      .array(
        z.object({
          identifier: z.string().describe('The platform id: `provider` when connecting, `settings.__type` in posts.'),
          name: z.string(),
          available: z.boolean().describe('Whether channels of this platform can be connected on this server.'),
          unavailable: z
            .string()
            .optional()
            .describe("When not available: why, and what the operator must set (e.g. the platform app's variables)."),
        }),
      )
      .describe(
        'The platforms this server publishes to. Those signed in through an OAuth app (LinkedIn, X, Threads, TikTok, Pinterest, Reddit, Facebook, Instagram, YouTube, Google Business Profile) need the app the operator registers with the platform; without it they are listed here as unavailable.',
      ),
  })
  .meta({ id: 'Status', description: 'What this service is, where its documentation lives, and how to authenticate.' });

export type Status = z.infer<typeof statusSchema>;
