import type { AdapterPayload } from 'oidc-provider';
import type { OutboundClient } from '../net/outbound.ts';
import { acceptableRedirectUri, CLIENT_LIMITS, reservedName } from './client-rules.ts';

/** Documents larger than this are refused. */
const MAX_DOCUMENT_BYTES = 16 * 1024;

/**
 * Client ID Metadata Documents (as MCP clients use them): a client whose id is an https URL
 * publishes its metadata there. The document is fetched through the guarded outbound client
 * (no private addresses, time limits, no redirects), must name itself as `client_id`, and may only
 * describe a public client with https or loopback redirect URIs. Anything else: no such client.
 */
export function clientMetadataDocuments(outbound: OutboundClient) {
  return async (clientId: string): Promise<AdapterPayload | undefined> => {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'https:' || url.pathname === '/' || url.hash || url.username || url.password || url.href !== clientId)
      return undefined;
    let document: Record<string, unknown>;
    try {
      const response = await outbound.fetch(url, { headers: { accept: 'application/json' }, timeoutMs: 5000, maxRedirects: 0 });
      const text = await response.text();
      if (!response.ok || text.length > MAX_DOCUMENT_BYTES) return undefined;
      document = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return undefined;
    }
    if (typeof document !== 'object' || document === null || document.client_id !== clientId) return undefined;
    const method = document.token_endpoint_auth_method ?? 'none';
    const uris = document.redirect_uris;
    if (method !== 'none' || 'client_secret' in document) return undefined;
    if (
      !Array.isArray(uris) ||
      uris.length === 0 ||
      uris.length > CLIENT_LIMITS.redirectUris ||
      uris.some((u) => typeof u !== 'string' || !acceptableRedirectUri(u))
    )
      return undefined;
    const name = typeof document.client_name === 'string' ? document.client_name.slice(0, CLIENT_LIMITS.name) : undefined;
    if (name !== undefined && reservedName(name)) return undefined;
    return {
      client_id: clientId,
      ...(name && { client_name: name }),
      redirect_uris: uris as string[],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  };
}
