import { randomBytes } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';
import { secretMatches } from '../keys/key-format.ts';
import { MCP_SCOPES, REST_SCOPES } from '../auth/scopes.ts';
import type { Db } from '../db/database.ts';
import { html } from '../web/html.ts';
import { layout, pageHeaders } from '../web/layout.ts';
import type { OutboundClient } from '../net/outbound.ts';
import type { OAuthKeys } from './oauth-keys.ts';
import { clientMetadataDocuments } from './client-metadata-document.ts';
import { OAuthStore } from './oauth-store.ts';
import { ACCESS_TOKEN_PREFIX, oauthResources, REFRESH_TOKEN_PREFIX } from './oauth.service.ts';
import { acceptableRedirectUri, CLI_CLIENT_ID, CLIENT_LIMITS, clientFacts, firstPartyName, registrationProblem } from './client-rules.ts';
import { clientIdentity } from './oauth-pages.html.ts';

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

type PageContext = {
  type: string;
  body: string;
  set(headers: Record<string, string>): void;
  params?: Record<string, string>;
  cookies: {
    get(name: string, options: { signed: boolean }): string | undefined;
    set(name: string, value: string, options: Record<string, unknown>): void;
  };
  oidc: {
    route?: string;
    params?: { user_code?: unknown };
    client?: { clientId: string; clientName?: string; metadata(): Record<string, unknown> };
    deviceCode?: { userCode?: string };
    entities: { Interaction?: { uid: string } };
    provider: Provider;
  };
};

/**
 * The browser that confirmed a user code (Continue, or Cancel, on the confirmation page) keeps it,
 * with its consent page's id after Continue, in this signed cookie: on a reload (or the code typed
 * again) that browser, and no other, is shown what became of the code. Anyone else typing the code
 * learns only what they learned before: not valid now.
 */
const DEVICE_COOKIE = 'herald_device';

/** The library's user code normalisation: upper case, letters and digits only. */
function normalizeUserCode(code: string): string {
  return code.toUpperCase().replace(/\W/g, '');
}

type CodeState = { state: 'connected' | 'denied' | 'ended' | 'expired' } | { state: 'waiting'; uid: string };

/** What became of the code this browser confirmed, if the failed request was about that code. */
async function confirmedCodeState(ctx: PageContext, err: { userCode?: string }): Promise<CodeState | null> {
  const bound = /^([A-Z0-9]{1,20})\.([A-Za-z0-9_-]{0,64})$/.exec(ctx.cookies.get(DEVICE_COOKIE, { signed: true }) ?? '');
  if (!bound) return null;
  const [, userCode, uid] = bound as unknown as [string, string, string];
  const typed = err.userCode ?? ctx.oidc.params?.user_code;
  const sameCode = typeof typed === 'string' && normalizeUserCode(typed) === userCode;
  const sameResume = uid !== '' && ctx.oidc.route === 'device_resume' && ctx.params?.uid === uid;
  if (!sameCode && !sameResume) return null;
  const code = await ctx.oidc.provider.DeviceCode.findByUserCode(userCode, { ignoreExpiration: true });
  // The store forgets a code once it expires.
  if (!code || code.isExpired) return { state: 'expired' };
  if (code.accountId) return { state: 'connected' };
  if (code.error) return { state: code.error === 'access_denied' ? 'denied' : 'ended' };
  return code.inFlight ? { state: 'waiting', uid } : null;
}

/** The page for a code this browser confirmed: what became of it, and what to do next. */
function codeStatePage(ctx: PageContext, found: CodeState): void {
  const again = html`<p>To try again, run <code>herald login</code> in your terminal: it shows a new code.</p>`;
  const pages = {
    connected: [
      'Device connected',
      html`<h1 id="device-state" data-state="connected">This device is already connected</h1><p>You allowed it with this code. You can close this page and go back to your terminal.</p><p><a href="/account/apps">Apps you allowed</a></p>`,
    ],
    denied: [
      'Request denied',
      html`<h1 id="device-state" data-state="denied">You turned this request down</h1><p>The device was not connected, and your terminal has been told.</p>${again}`,
    ],
    ended: [
      'Request ended',
      html`<h1 id="device-state" data-state="ended">This request has ended</h1><p>The device was not connected.</p>${again}`,
    ],
    expired: [
      'Code expired',
      html`<h1 id="device-state" data-state="expired">This code has expired</h1><p>A code works for ${OAUTH_TTL.DeviceCode / 60} minutes.</p>${again}`,
    ],
    waiting: [
      'Waiting for your answer',
      html`<h1 id="device-state" data-state="waiting">Your terminal is waiting for your answer</h1><p>You confirmed this code; the device is connected once you allow it.</p><div class="actions"><a class="button" id="device-consent" href="${found.state === 'waiting' ? `/oauth/interaction/${found.uid}` : ''}">Allow or deny</a></div>`,
    ],
  } as const;
  const [title, body] = pages[found.state];
  render(ctx, title, body);
}

/** A page of the authorization server in Herald's layout, with the account pages' headers (and CSP). */
function render(ctx: PageContext, title: string, body: ReturnType<typeof html>): void {
  ctx.set(pageHeaders());
  ctx.type = 'html';
  ctx.body = layout(title, body);
}

function errorPage(ctx: PageContext, out: Record<string, string>): void {
  render(
    ctx,
    'Authorization failed',
    html`<h1>The app's request cannot be completed</h1><p>${out.error_description ?? out.error ?? 'Unknown error.'}</p><p class="muted">Error: <code>${out.error ?? 'server_error'}</code></p><p><a href="/account">Back to your account</a></p>`,
  );
}

/** The library escapes the code it puts in its form; the page escapes it again. */
function unescapeHtml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|#x27);/g,
    (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[name]!,
  );
}

/** The library's device forms carry an inline handler the pages' CSP refuses: only their action and anti-forgery token are kept. */
function formParts(form: string): { action: string; xsrf: string; code: string } {
  return {
    action: /action="([^"]*)"/.exec(form)?.[1] ?? '',
    xsrf: /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '',
    code: /value="([^"]*)"[^>]*name="user_code"/.exec(form)?.[1] ?? '',
  };
}

/** Step 1 of the device flow (RFC 8628): the person types the code their device shows. */
async function userCodeInputPage(ctx: PageContext, form: string, _out: unknown, err?: { userCode?: string; name?: string }): Promise<void> {
  const found = err ? await confirmedCodeState(ctx, err) : null;
  if (found) return codeStatePage(ctx, found);
  const { action, xsrf, code } = formParts(form);
  const problem = err
    ? err.userCode || err.name === 'NoCodeError'
      ? 'That code is not right, or it has expired. Check it and try again.'
      : err.name === 'AbortedError'
        ? 'The sign-in was cancelled.'
        : 'Something went wrong; try again.'
    : null;
  render(
    ctx,
    'Connect a device',
    html`<h1>Connect a device</h1>
<p class="muted">Enter the code your device or terminal shows (for example after <code>herald login</code>).</p>
${problem ? html`<div class="banner bad" role="alert">${problem}</div>` : ''}
<form method="post" action="${action}">
  <input type="hidden" name="xsrf" value="${xsrf}">
  <label for="user-code">Code</label>
  <input id="user-code" class="code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required maxlength="20" value="${err?.userCode ?? unescapeHtml(code)}">
  <div class="actions"><button type="submit">Continue</button></div>
</form>`,
  );
}

/** Step 2: the person checks the code and the app before going on to the consent page. */
function userCodeConfirmPage(ctx: PageContext, form: string, _client: unknown, _deviceInfo: unknown, userCode: string): void {
  const { action, xsrf } = formParts(form);
  const client = ctx.oidc.client ? clientFacts(ctx.oidc.client.clientId, ctx.oidc.client.metadata()) : undefined;
  const hidden = html`<input type="hidden" name="xsrf" value="${xsrf}"><input type="hidden" name="user_code" value="${userCode}">`;
  render(
    ctx,
    'Confirm the device',
    html`<h1>Is this your device?</h1>
<p><strong id="device-client">${client?.name ?? 'An app'}</strong> asks to connect.${client ? clientIdentity(client) : ''} Your device should show this code:</p>
<p><code id="device-code" class="code">${userCode}</code></p>
<p class="muted">If you did not start this, or the code differs, cancel.</p>
<div class="actions">
  <form class="inline" method="post" action="${action}">${hidden}<input type="hidden" name="confirm" value="yes"><button type="submit" id="device-confirm">Continue</button></form>
  <form class="inline" method="post" action="${action}">${hidden}<input type="hidden" name="abort" value="yes"><button type="submit" class="secondary">Cancel</button></form>
</div>`,
  );
}

function deviceSuccessPage(ctx: PageContext): void {
  const client = ctx.oidc.client;
  render(
    ctx,
    'Device connected',
    html`<h1 id="device-done">Device connected</h1><p>${client?.clientName ?? 'The app'} can now act for you as you allowed. You can close this page and go back to your device.</p><p><a href="/account/apps">Apps you allowed</a></p>`,
  );
}

/**
 * The OAuth 2.1 authorization server: oidc-provider, configured for Herald. Tokens are opaque,
 * bound to one resource (the REST API or the MCP server), their values start with Herald's
 * prefixes, and everything is stored in the database. Loaded on the first OAuth request only.
 */
export async function createProvider(options: {
  db: Db;
  now: () => number;
  baseUrl: string;
  trustProxy: boolean;
  keys: OAuthKeys;
  devicePollSeconds: number;
  outbound?: OutboundClient;
}): Promise<Provider> {
  const { db, baseUrl, keys } = options;
  const resources = oauthResources(baseUrl);
  const secure = baseUrl.startsWith('https:');
  const resourceScopes: Record<string, string> = {
    [resources.rest]: REST_SCOPES.join(' '),
    [resources.mcp]: MCP_SCOPES.join(' '),
  };

  /** Binds the code this browser just decided on (Continue, or Cancel on the confirmation page) to it: see DEVICE_COOKIE. */
  const rememberDeviceCode = (ctx: PageContext, consentUid: string) => {
    const userCode = ctx.oidc.deviceCode?.userCode;
    if (!userCode) return;
    ctx.cookies.set(DEVICE_COOKIE, `${userCode}.${consentUid}`, {
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: OAUTH_ROUTES.code_verification,
      maxAge: OAUTH_TTL.Interaction * 1000,
    });
  };

  const provider = new Provider(baseUrl, {
    adapter: (name: string) =>
      new OAuthStore(name, db, options.now, name === 'Client' && options.outbound ? clientMetadataDocuments(options.outbound) : undefined),
    // Client ID Metadata Documents: an https client_id is fetched as the client's metadata.
    discovery: { client_id_metadata_document_supported: Boolean(options.outbound) },
    clients: [
      {
        client_id: CLI_CLIENT_ID,
        client_name: firstPartyName(CLI_CLIENT_ID),
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
    // Newest first: the first signs, the older ones still verify (herald admin oauth rotate-keys).
    jwks: { keys: keys.jwks },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      revocation: { enabled: true },
      deviceFlow: {
        enabled: true,
        userCodeInputSource: async (...args: Parameters<typeof userCodeInputPage>) => {
          const [ctx, , , err] = args;
          // Cancelled on the confirmation page: the code is denied, and this browser may see that after a reload.
          if (err?.name === 'AbortedError' && ctx.oidc.route === 'code_verification') rememberDeviceCode(ctx, '');
          return userCodeInputPage(...args);
        },
        userCodeConfirmSource: async (...args: Parameters<typeof userCodeConfirmPage>) => userCodeConfirmPage(...args),
        successSource: async (ctx: PageContext) => deviceSuccessPage(ctx),
      },
      registration: {
        enabled: true,
        // Anyone may register (RFC 7591), as MCP clients do; such apps are public and use loopback or https redirects.
        idFactory: () => `app_${randomBytes(12).toString('base64url')}`,
        // Registrations are neither read back nor managed (RFC 7592): no registration access token
        // is issued, so none is stored for good.
        issueRegistrationAccessToken: false,
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
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    extraClientMetadata: {
      // The user who registered the app in the developer settings; never set by dynamic registration.
      properties: ['herald_owner'],
      validator: (ctx: { oidc?: { route?: string } } | undefined, key: string, value: unknown, metadata: Record<string, unknown>) => {
        if (ctx?.oidc?.route !== 'registration' || key !== 'herald_owner') return;
        const refuse = (description: string) => {
          throw new errors.InvalidClientMetadata!(description);
        };
        if (value !== undefined) refuse('herald_owner cannot be registered.');
        if (metadata.token_endpoint_auth_method !== 'none')
          refuse('Dynamically registered apps are public clients: register with token_endpoint_auth_method "none" (and PKCE).');
        const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
        if (uris.some((uri) => typeof uri !== 'string' || !acceptableRedirectUri(uri)))
          refuse(
            `Redirect URIs must be https, or http on a loopback address (127.0.0.1, [::1], localhost), of at most ${CLIENT_LIMITS.text} characters.`,
          );
        const problem = registrationProblem(metadata);
        if (problem) refuse(problem);
      },
    },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/oauth/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    // Each allowed request is its own grant, whatever the browser: never bound to the library's
    // login session, where a second authorization of the same app (or a second `herald login`)
    // would replace the first grant and hide its tokens (no refresh, a revocation that finds nothing).
    expiresWithSession: async () => false,
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
    renderError: async (ctx: PageContext, out: Record<string, string>) => errorPage(ctx, out),
  });
  provider.proxy = options.trustProxy;
  // Continue on the confirmation page starts the consent step: this browser keeps the code (see DEVICE_COOKIE).
  provider.on('interaction.started', (ctx: PageContext) => {
    const interaction = ctx.oidc.entities.Interaction;
    if (interaction) rememberDeviceCode(ctx, interaction.uid);
  });
  // The library's device authorization response names no interval (devices then poll every 5 s,
  // RFC 8628): the configured one is added before the answer is sent.
  provider.on('device_authorization.success', (_ctx: unknown, body: Record<string, unknown>) => {
    body.interval = options.devicePollSeconds;
  });
  // Client secrets of apps registered in the developer settings are stored hashed.
  provider.Client.prototype.compareClientSecret = async function compare(this: { clientSecret?: string }, actual: string) {
    return (
      typeof this.clientSecret === 'string' &&
      typeof actual === 'string' &&
      actual.length <= 200 &&
      secretMatches(actual, this.clientSecret)
    );
  };
  // Opaque token values are their stored ids: give them Herald's prefixes.
  for (const [Model, prefix] of [
    [provider.AccessToken, ACCESS_TOKEN_PREFIX],
    [provider.RefreshToken, REFRESH_TOKEN_PREFIX],
  ] as const) {
    const original = Model.prototype.generateTokenId;
    Model.prototype.generateTokenId = function prefixed(this: unknown) {
      return `${prefix}${original.call(this)}`;
    };
  }
  return provider;
}
