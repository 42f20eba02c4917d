import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { errors, type InteractionDetails } from 'oidc-provider';
import { sha256 } from '../accounts/tokens.ts';
import { MCP_SCOPES, REST_SCOPES } from '../auth/scopes.ts';
import type { Db } from '../db/database.ts';
import { html } from '../web/html.ts';
import { layout } from '../web/layout.ts';
import * as repo from './oauth.repository.ts';
import { OAuthStore } from './oauth-store.ts';
import { ACCESS_TOKEN_PREFIX, oauthResources, REFRESH_TOKEN_PREFIX } from './oauth.service.ts';

/** Lifetimes, in seconds. */
export const OAUTH_TTL = {
  AccessToken: 60 * 60,
  RefreshToken: 30 * 24 * 60 * 60,
  AuthorizationCode: 60,
  DeviceCode: 10 * 60,
  Interaction: 60 * 60,
  Session: 14 * 24 * 60 * 60,
  Grant: 365 * 24 * 60 * 60,
} as const;

/** The first-party command-line client (`herald login`): public, device flow. */
export const CLI_CLIENT_ID = 'herald-cli';

export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  registration: '/oauth/register',
  device_authorization: '/oauth/device/auth',
  code_verification: '/oauth/device',
  jwks: '/oauth/jwks',
  end_session: '/oauth/logout',
  userinfo: '/oauth/userinfo',
  introspection: '/oauth/introspect',
  pushed_authorization_request: '/oauth/par',
} as const;

type Keys = { jwk: Record<string, unknown>; cookieKeys: string[] };

/** The signing key and cookie keys, made once per deployment and shared by every process. */
async function deploymentKeys(db: Db): Promise<Keys> {
  const idHash = sha256('keys');
  const existing = await repo.findRecord(db, 'HeraldKeys', idHash);
  if (existing) return JSON.parse(existing.payload) as Keys;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'ES256', use: 'sig' };
  const keys: Keys = { jwk, cookieKeys: [randomBytes(32).toString('base64url')] };
  await repo.insertRecordIfAbsent(db, {
    model: 'HeraldKeys', id_hash: idHash, payload: JSON.stringify(keys), grant_id: null, uid: null, user_code_hash: null, user_id: null, workspace_id: null, client_id: null, expires_at: null, consumed_at: null,
  });
  return JSON.parse((await repo.findRecord(db, 'HeraldKeys', idHash))!.payload) as Keys;
}

/** A redirect URI an MCP client or native app may register: https, or http on a loopback address. */
export function acceptableRedirectUri(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost');
}

function errorPage(_ctx: unknown, out: Record<string, string>): string {
  return layout('Authorization failed', html`<h1>The app's request cannot be completed</h1><p>${out.error_description ?? out.error ?? 'Unknown error.'}</p><p class="muted">Error: <code>${out.error ?? 'server_error'}</code></p><p><a href="/account">Back to your account</a></p>`);
}

/**
 * The OAuth 2.1 authorization server: oidc-provider, configured for Herald. Tokens are opaque,
 * bound to one resource (the REST API or the MCP server), their values start with Herald's
 * prefixes, and everything is stored in the database. Loaded on the first OAuth request only.
 */
export async function createProvider(options: { db: Db; baseUrl: string; trustProxy: boolean }): Promise<Provider> {
  const { db, baseUrl } = options;
  const keys = await deploymentKeys(db);
  const resources = oauthResources(baseUrl);
  const secure = baseUrl.startsWith('https:');
  const resourceScopes: Record<string, string> = {
    [resources.rest]: REST_SCOPES.join(' '),
    [resources.mcp]: MCP_SCOPES.join(' '),
  };

  const provider = new Provider(baseUrl, {
    adapter: (name: string) => new OAuthStore(name, db),
    clients: [
      {
        client_id: CLI_CLIENT_ID,
        client_name: 'Herald command line',
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientBasedCORS: () => true,
    cookies: {
      keys: keys.cookieKeys,
      long: { httpOnly: true, sameSite: 'lax', signed: true, secure },
      short: { httpOnly: true, sameSite: 'lax', signed: true, secure },
    },
    jwks: { keys: [keys.jwk] },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      deviceFlow: { enabled: true },
      registration: {
        enabled: true,
        // Anyone may register (RFC 7591), as MCP clients do; such apps are public and use loopback or https redirects.
        idFactory: () => `app_${randomBytes(12).toString('base64url')}`,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resources.rest,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          const scope = resourceScopes[resource];
          if (scope === undefined) throw new errors.InvalidTarget!(`Unknown resource; use ${resources.rest} or ${resources.mcp}.`);
          return { scope, audience: resource, accessTokenFormat: 'opaque', accessTokenTTL: OAUTH_TTL.AccessToken };
        },
      },
    },
    extraClientMetadata: {
      properties: ['herald_owner'],
    },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oauth/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Every authorization asks the signed-in user again (the page is where the workspace is
    // chosen): only the grant the consent page just made is used, never one remembered.
    loadExistingGrant: async (ctx: { oidc: { result?: { consent?: { grantId?: string } }; provider: Provider } }) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    pkce: { required: () => true },
    responseTypes: ['code'],
    routes: OAUTH_ROUTES,
    // The API's scopes belong to its two resources (getResourceServerInfo), not to the server itself.
    scopes: ['offline_access'],
    ttl: { ...OAUTH_TTL },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = errorPage(ctx, out);
    },
  });
  provider.proxy = options.trustProxy;
  // Opaque token values are their stored ids: give them Herald's prefixes.
  for (const [Model, prefix] of [[provider.AccessToken, ACCESS_TOKEN_PREFIX], [provider.RefreshToken, REFRESH_TOKEN_PREFIX]] as const) {
    const original = Model.prototype.generateTokenId;
    Model.prototype.generateTokenId = function prefixed(this: unknown) {
      return `${prefix}${original.call(this)}`;
    };
  }
  return provider;
}

/** The resource an authorization asks for (the REST API when it names none). */
export function requestedResource(details: InteractionDetails, baseUrl: string): string | string[] {
  return details.params.resource ?? oauthResources(baseUrl).rest;
}
