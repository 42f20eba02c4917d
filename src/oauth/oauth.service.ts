import { sha256 } from '../accounts/tokens.ts';
import { isScope, type Scope } from '../auth/scopes.ts';
import type { Db } from '../db/database.ts';
import { AppError, BadRequestError, NotFoundError, UnauthorizedError } from '../errors.ts';
import type { ClockedQuota } from '../http/rate-limit-store.ts';
import { hashSecret, newSecret, type KeyKind } from '../keys/key-format.ts';
import type { Clock } from '../lib/clock.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { publicUrls } from '../status/status.service.ts';
import type Provider from 'oidc-provider';
import * as repo from './oauth.repository.ts';
import {
  acceptableRedirectUri,
  CLIENT_LIMITS,
  clientFacts,
  REGISTRATIONS_PER_HOUR,
  reservedName,
  RESERVED_NAME_MESSAGE,
  type ClientFacts,
} from './client-rules.ts';
import { deploymentKeys, keysRotatedAt, rotateKeys, type RotationResult } from './oauth-keys.ts';

const HOUR_MS = 60 * 60 * 1000;

/** How often (at most) a process checks whether the authorization server's keys were rotated. */
export const KEYS_CHECK_INTERVAL_MS = 30_000;

/** How often a device polls the token endpoint in the device flow, in seconds: RFC 8628's default. */
export const DEVICE_POLL_SECONDS = 5;

/** Access tokens start with the contract's OAuth prefix; refresh tokens have their own. */
export const ACCESS_TOKEN_PREFIX = 'svco_';
export const REFRESH_TOKEN_PREFIX = 'svcr_';

/** The two protected resources (RFC 8707 indicators) and the scopes each takes. */
export function oauthResources(baseUrl: string): Record<KeyKind, string> {
  const urls = publicUrls(baseUrl);
  return { rest: urls.api, mcp: urls.mcp };
}

/** Splits the authorization server's account id: the user and the workspace chosen on the consent page. */
export function parseAccountId(accountId: unknown): { userId: string; workspaceId: string } | null {
  if (typeof accountId !== 'string') return null;
  const at = accountId.indexOf(':');
  return at > 0 && at < accountId.length - 1 ? { userId: accountId.slice(0, at), workspaceId: accountId.slice(at + 1) } : null;
}

export function accountIdOf(userId: string, workspaceId: string): string {
  return `${userId}:${workspaceId}`;
}

export type OAuthPrincipal = {
  keyId: string;
  credential: 'oauth';
  userId: string;
  kind: KeyKind;
  scopes: Scope[];
  channelIds: null;
  workspaceId: string;
  accessVersion?: string;
  channelsVersion?: string;
};

/**
 * Checks OAuth access tokens on the REST API and the MCP server. Only the database is read (the
 * token's hash finds its row): the protocol library is never loaded to serve an API request.
 * What the token allows is decided after, like a key's: its scopes within the user's current
 * role in the workspace the user chose when allowing the app.
 */
export class OAuthService {
  readonly #resources: Record<KeyKind, string>;

  #provider: Promise<Provider> | undefined;

  /** When the running server's keys were rotated, and when that was last compared with the database's. */
  #keys = { rotatedAt: 0, checkedAt: 0 };

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      baseUrl: string;
      quota: ClockedQuota;
      outbound?: OutboundClient;
      oauthDevicePollSeconds?: number;
    },
  ) {
    this.#resources = oauthResources(deps.baseUrl);
  }

  /**
   * Counts a dynamic registration (RFC 7591, open to anyone) from a client address; refuses it
   * (429, before anything is stored) past REGISTRATIONS_PER_HOUR within an hour of the first.
   */
  async countRegistration(address: string): Promise<void> {
    const waitMs = await this.deps.quota.takeFromFirstUse(`POST /oauth/register per hour|ip:${address}`, REGISTRATIONS_PER_HOUR, HOUR_MS);
    if (waitMs === null) return;
    const retry = String(Math.ceil(waitMs / 1000));
    throw new AppError(
      429,
      'rate_limited',
      `Too many app registrations from this address: at most ${REGISTRATIONS_PER_HOUR} an hour. Retry in ${retry} s.`,
      { headers: { 'Retry-After': retry } },
    );
  }

  /**
   * The authorization server, loaded on the first OAuth request (never at start-up), and made
   * again with the new keys once an operator rotated them (checked every KEYS_CHECK_INTERVAL_MS).
   */
  async provider(options: { trustProxy: boolean }): Promise<Provider> {
    const now = this.deps.clock.now().getTime();
    if (this.#provider && now - this.#keys.checkedAt >= KEYS_CHECK_INTERVAL_MS) {
      this.#keys.checkedAt = now;
      if ((await keysRotatedAt(this.deps.db)) !== this.#keys.rotatedAt) this.#provider = undefined;
    }
    this.#provider ??= Promise.all([import('./provider.ts'), deploymentKeys(this.deps.db)])
      .then(([module, keys]) => {
        this.#keys = { rotatedAt: keys.rotatedAt, checkedAt: now };
        return module.createProvider({
          db: this.deps.db,
          now: () => this.deps.clock.now().getTime(),
          baseUrl: this.deps.baseUrl,
          trustProxy: options.trustProxy,
          keys,
          devicePollSeconds: this.deps.oauthDevicePollSeconds ?? DEVICE_POLL_SECONDS,
          ...(this.deps.outbound && { outbound: this.deps.outbound }),
        });
      })
      .catch((error: unknown) => {
        this.#provider = undefined;
        throw error;
      });
    return this.#provider;
  }

  /** A new signing key and cookie key for the authorization server (see rotateKeys); every process picks them up. */
  rotateKeys(): Promise<RotationResult> {
    return rotateKeys(this.deps.db, this.deps.clock.now().getTime());
  }

  async verify(token: string, surface: KeyKind): Promise<OAuthPrincipal> {
    const invalid = () =>
      new UnauthorizedError('The OAuth access token is invalid, has expired or was revoked.', { code: 'invalid_token' });
    if (token.length > 200) throw invalid();
    const row = await repo.findAccessToken(this.deps.db, sha256(token));
    if (!row || row.user_id === null || row.workspace_id === null) throw invalid();
    const payload = JSON.parse(row.payload) as { exp?: number; aud?: string | string[]; scope?: string };
    const exp = Number(row.expires_at ?? payload.exp);
    if (!Number.isFinite(exp) || exp * 1000 <= this.deps.clock.now().getTime()) throw invalid();
    const audience = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
    if (!audience.includes(this.#resources[surface])) {
      const other: KeyKind = surface === 'rest' ? 'mcp' : 'rest';
      throw new UnauthorizedError(
        audience.includes(this.#resources[other])
          ? `This OAuth access token was issued for ${other === 'mcp' ? 'the MCP server' : 'the REST API'} (${this.#resources[other]}); ask for a token with resource=${this.#resources[surface]} to use it here.`
          : `This OAuth access token was not issued for ${this.#resources[surface]}.`,
        { code: 'invalid_token' },
      );
    }
    const scopes = (payload.scope ?? '').split(' ').filter((s): s is Scope => isScope(s));
    return {
      keyId: `oauth:${row.grant_id ?? 'none'}`,
      credential: 'oauth',
      userId: row.user_id,
      kind: surface,
      scopes,
      channelIds: null,
      workspaceId: row.workspace_id,
      ...(row.access_version !== null && row.access_version !== undefined && { accessVersion: String(row.access_version) }),
      ...(row.channels_version !== null && row.channels_version !== undefined && { channelsVersion: String(row.channels_version) }),
    };
  }

  /** The apps a user allowed (their live grants), newest first. */
  async allowedApps(
    userId: string,
  ): Promise<Array<{ grantId: string; clientId: string; clientName: string; workspaceId: string; scopes: string[]; resources: string[] }>> {
    const rows = await repo.listGrantsOfUser(this.deps.db, userId);
    const now = this.deps.clock.now().getTime();
    const apps = [];
    for (const row of rows) {
      if (row.expires_at !== null && Number(row.expires_at) * 1000 <= now) continue;
      const grant = JSON.parse(row.payload) as { clientId?: string; resources?: Record<string, string> };
      const clientId = grant.clientId ?? row.client_id ?? '';
      const resources = Object.keys(grant.resources ?? {});
      const scopes = [
        ...new Set(
          Object.values(grant.resources ?? {})
            .flatMap((s) => s.split(' '))
            .filter(Boolean),
        ),
      ];
      apps.push({
        grantId: row.grant_id!,
        clientId,
        clientName: await this.clientName(clientId),
        workspaceId: row.workspace_id ?? '',
        scopes,
        resources,
      });
    }
    return apps;
  }

  /** A registered client's name as it asked to be shown (its id when it gave none). */
  async clientName(clientId: string): Promise<string> {
    return (await this.clientFacts(clientId)).name;
  }

  /** Who a client is: Herald's own app, or another's with its name, id and registration date. */
  async clientFacts(clientId: string): Promise<ClientFacts> {
    const row = await repo.findRecord(this.deps.db, 'Client', sha256(clientId));
    return clientFacts(clientId, row ? (JSON.parse(row.payload) as Record<string, unknown>) : undefined);
  }

  /** Revokes an app's access: the grant and every code and token of it. Another user's grant is not found. */
  async revokeGrant(userId: string, grantId: string): Promise<boolean> {
    const grant = await repo.findGrantOfUser(this.deps.db, userId, grantId);
    if (!grant) return false;
    await repo.deleteByGrant(this.deps.db, grantId);
    return true;
  }

  /** Apps the user registered in the developer settings (never their secrets). */
  async ownApps(userId: string): Promise<RegisteredApp[]> {
    const rows = await repo.listClientsOfUser(this.deps.db, userId);
    return rows.map((row) => toRegisteredApp(JSON.parse(row.payload) as ClientMetadata));
  }

  /** Registers an app; a confidential one gets a secret, returned this once and stored hashed. */
  async registerApp(
    userId: string,
    input: { name: string; redirectUris: string[]; confidential: boolean },
  ): Promise<{ app: RegisteredApp; secret: string | null }> {
    const name = input.name.trim();
    if (!name || name.length > CLIENT_LIMITS.name)
      throw new BadRequestError(`Give the app a name of 1 to ${CLIENT_LIMITS.name} characters.`);
    if (reservedName(name)) throw new BadRequestError(RESERVED_NAME_MESSAGE, { code: 'reserved_name' });
    const uris = [...new Set(input.redirectUris.map((u) => u.trim()).filter(Boolean))];
    if (uris.length === 0 || uris.length > CLIENT_LIMITS.redirectUris)
      throw new BadRequestError(`Give 1 to ${CLIENT_LIMITS.redirectUris} redirect URIs, one per line.`);
    const bad = uris.find((u) => !acceptableRedirectUri(u));
    if (bad !== undefined)
      throw new BadRequestError(
        `"${bad.slice(0, 100)}" cannot be a redirect URI: use https, or http on 127.0.0.1, [::1] or localhost, without a #fragment.`,
      );
    if ((await repo.listClientsOfUser(this.deps.db, userId)).length >= 50)
      throw new BadRequestError('You have 50 apps already: delete one first.');
    const clientId = `app_${newSecret().slice(0, 20)}`;
    const secret = input.confidential ? `svcs_${newSecret()}` : null;
    const metadata: ClientMetadata = {
      client_id: clientId,
      client_name: name,
      redirect_uris: uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_basic' : 'none',
      ...(secret && { client_secret: hashSecret(secret) }),
      client_id_issued_at: Math.floor(this.deps.clock.now().getTime() / 1000),
      herald_owner: userId,
    };
    await repo.upsertRecord(this.deps.db, clientRow(metadata));
    return { app: toRegisteredApp(metadata), secret };
  }

  async #ownApp(userId: string, clientId: string): Promise<ClientMetadata> {
    const row = await repo.findRecord(this.deps.db, 'Client', sha256(clientId));
    const metadata = row ? (JSON.parse(row.payload) as ClientMetadata) : undefined;
    if (!metadata || metadata.herald_owner !== userId) throw new NotFoundError('No such app among yours.');
    return metadata;
  }

  /** A new secret for a confidential app; the old one stops working at once. */
  async rotateAppSecret(userId: string, clientId: string): Promise<{ app: RegisteredApp; secret: string }> {
    const metadata = await this.#ownApp(userId, clientId);
    if (metadata.token_endpoint_auth_method === 'none') throw new BadRequestError('A public app has no secret to rotate.');
    const secret = `svcs_${newSecret()}`;
    const changed = { ...metadata, client_secret: hashSecret(secret) };
    await repo.upsertRecord(this.deps.db, clientRow(changed));
    return { app: toRegisteredApp(changed), secret };
  }

  /** Deletes an app with every grant, code and token it was given. */
  async deleteApp(userId: string, clientId: string): Promise<void> {
    await this.#ownApp(userId, clientId);
    await repo.deleteByClient(this.deps.db, clientId);
  }
}

type ClientMetadata = {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  client_secret?: string;
  client_id_issued_at: number;
  herald_owner: string;
};

export type RegisteredApp = { clientId: string; name: string; redirectUris: string[]; confidential: boolean; createdAt: string };

function toRegisteredApp(metadata: ClientMetadata): RegisteredApp {
  return {
    clientId: metadata.client_id,
    name: metadata.client_name ?? metadata.client_id,
    redirectUris: metadata.redirect_uris,
    confidential: metadata.token_endpoint_auth_method !== 'none',
    createdAt: new Date(metadata.client_id_issued_at * 1000).toISOString(),
  };
}

function clientRow(metadata: ClientMetadata) {
  return {
    model: 'Client',
    id_hash: sha256(metadata.client_id),
    payload: JSON.stringify(metadata),
    grant_id: null,
    uid: null,
    user_code_hash: null,
    user_id: metadata.herald_owner,
    workspace_id: null,
    client_id: metadata.client_id,
    expires_at: null,
    consumed_at: null,
  };
}
