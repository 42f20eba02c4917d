import type { WorkspaceAccess } from '../auth/access.service.ts';
import type { Scope } from '../auth/scopes.ts';
import type { AppError } from '../errors.ts';
import type { Principal } from '../keys/api-keys.service.ts';

/**
 * How a route is guarded:
 * - `none`: anyone; rate limited per client address.
 * - `key`: a valid REST credential, no workspace needed (e.g. /workspaces).
 * - `workspace` (the default): a valid credential acting on one selected workspace,
 *   holding `scope` when one is named.
 * - `mcp`: a valid MCP credential (MCP key or OAuth token); the workspace and scope are
 *   checked per tool call.
 */
export type RouteAuth = 'none' | 'key' | 'workspace' | 'mcp';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    scope?: Scope;
    /** This route's quota per window, unless RATE_LIMIT_ROUTES overrides it. */
    quota?: number;
    /** Routes outside the public API (pages, docs assets) skip the per-route rate limit. */
    rateLimited?: boolean;
    /** The `WWW-Authenticate` value sent with this route's 401 answers. */
    challenge?: string;
  }
  interface FastifyRequest {
    principal: Principal | null;
    credentialError: AppError | null;
    access: WorkspaceAccess | null;
  }
}
