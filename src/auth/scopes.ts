import * as z from 'zod';

export const REST_SCOPES = [
  'posts:read',
  'posts:draft',
  'posts:publish',
  'channels:read',
  'channels:write',
  'media:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
] as const;
export const MCP_SCOPES = ['mcp:read', 'mcp:write'] as const;

export type RestScope = (typeof REST_SCOPES)[number];
export type McpScope = (typeof MCP_SCOPES)[number];
export type Scope = RestScope | McpScope;

export const ROLES = ['owner', 'admin', 'editor', 'contributor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES).describe("A member's role in a workspace.");

const READ: Scope[] = ['posts:read', 'channels:read', 'analytics:read', 'mcp:read'];
const DRAFT: Scope[] = [...READ, 'posts:draft', 'media:write', 'mcp:write'];

/** What each role may do; a key never does more than its owner's role allows. */
export const ROLE_SCOPES: Readonly<Record<Role, ReadonlySet<Scope>>> = {
  owner: new Set<Scope>([...REST_SCOPES, ...MCP_SCOPES]),
  admin: new Set<Scope>([...REST_SCOPES, ...MCP_SCOPES]),
  editor: new Set<Scope>([...DRAFT, 'posts:publish']),
  contributor: new Set<Scope>(DRAFT),
  viewer: new Set<Scope>(READ),
};

/**
 * What a browser session may do through the REST API as a member with `role`: the REST scopes
 * the role allows (a viewer reads only). The same list for every session of a role, so the
 * access checks keep what they derive from it.
 */
export const SESSION_SCOPES: Readonly<Record<Role, readonly Scope[]>> = Object.freeze(
  Object.fromEntries(ROLES.map((role) => [role, Object.freeze(REST_SCOPES.filter((scope) => ROLE_SCOPES[role].has(scope)))])) as Record<
    Role,
    readonly Scope[]
  >,
);

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (REST_SCOPES as readonly string[]).includes(value) || (MCP_SCOPES as readonly string[]).includes(value);
}

/**
 * What an MCP scope lets a key do through the services the REST API shares: `mcp:read` reads,
 * `mcp:write` does everything else. The owner's role still caps the result.
 */
const MCP_GRANTS: Readonly<Record<McpScope, readonly RestScope[]>> = {
  'mcp:read': ['posts:read', 'channels:read', 'analytics:read'],
  'mcp:write': REST_SCOPES,
};

/**
 * The MCP scope an MCP credential needs for what the REST API guards with `scope`: the narrowest
 * one that stands for it (`mcp:read` for the reading scopes, `mcp:write` for the rest).
 */
export function mcpScopeFor(scope: RestScope): McpScope {
  return MCP_SCOPES.find((mcp) => MCP_GRANTS[mcp].includes(scope))!;
}

/** A key's own scopes, with the REST scopes its MCP scopes stand for. */
export function grantedScopes(keyScopes: readonly Scope[]): Set<Scope> {
  const granted = new Set<Scope>(keyScopes);
  for (const scope of keyScopes) if (scope in MCP_GRANTS) for (const rest of MCP_GRANTS[scope as McpScope]) granted.add(rest);
  return granted;
}

/** The scopes a key may use in a workspace: its own (with what its MCP scopes stand for), within its owner's role there. */
export function effectiveScopes(keyScopes: readonly Scope[], role: Role): Set<Scope> {
  const allowed = ROLE_SCOPES[role];
  return new Set([...grantedScopes(keyScopes)].filter((scope) => allowed.has(scope)));
}
