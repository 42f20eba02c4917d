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
 */
export type RouteAuth = 'none' | 'key' | 'workspace';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    scope?: Scope;
    /** This route's quota per window, unless RATE_LIMIT_ROUTES overrides it. */
    quota?: number;
    /** Routes outside the public API (pages, docs assets) skip the per-route rate limit. */
    rateLimited?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    credentialError: AppError | null;
    access: WorkspaceAccess | null;
  }
}
