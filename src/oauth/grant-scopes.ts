import { isScope, type Scope } from '../auth/scopes.ts';

/**
 * The scopes an OAuth grant holds, over every resource it was given (a grant for the MCP server
 * holds `mcp:write`, which stands for the REST scopes: see grantedScopes). `payload` is the
 * grant's stored record.
 */
export function grantScopes(payload: string): Scope[] {
  const resources = (JSON.parse(payload) as { resources?: Record<string, string> }).resources ?? {};
  return Object.values(resources)
    .flatMap((scope) => scope.split(' '))
    .filter(isScope);
}

/** The grant an OAuth principal's access token belongs to (its key id is `oauth:<grant id>`); null for an API key or a token of no grant. */
export function grantIdOfPrincipal(keyId: string): string | null {
  if (!keyId.startsWith('oauth:')) return null;
  const grantId = keyId.slice('oauth:'.length);
  return grantId && grantId !== 'none' ? grantId : null;
}
