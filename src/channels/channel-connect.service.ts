import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { sha256 } from '../accounts/tokens.ts';
import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import { storedPrincipal, type CredentialStanding } from '../auth/credential-standing.ts';
import type { Db } from '../db/database.ts';
import { AppError, BadRequestError, ForbiddenError, NotFoundError } from '../errors.ts';
import { findGroup } from '../groups/groups.repository.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { Clock } from '../lib/clock.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import { callFailure } from '../providers/platform-call.ts';
import type { PlatformApps } from '../providers/platform-apps.ts';
import {
  ProviderError,
  type ConnectedAccount,
  type OAuthAppStore,
  type Provider,
  type SignInChoice,
  type SignInContext,
  type SignInResult,
  withGeneratedSecret,
} from '../providers/provider.ts';
import { getProvider, isProviderIdentifier, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import * as repo from './channels.repository.ts';
import { usableChannel, type Channel, type ChannelsService } from './channels.service.ts';

/** How long a browser sign-in may take between the connect call and the platform's callback. */
export const CONNECT_STATE_TTL_MS = 15 * 60_000;

/** Who asked for a connection: the credential (an API key, an app's access or a browser session) and the workspace it acted in. */
type Requester = { principal: Principal; workspaceId: string; channelIds: readonly string[] | null };

function requesterOf(access: WorkspaceAccess): Requester {
  return { principal: access.principal, workspaceId: access.workspace.id, channelIds: access.channelIds };
}

/** A sign-in that ends with the person choosing what to connect (a page of theirs): the state of that step and the options. */
export type ConnectChoice = { kind: 'choose'; state: string; prompt: string; options: Array<{ id: string; label: string }> };

/** A connection's outcome; `secret` is one Herald generated for the channel (none was given), shown this once. */
export type ConnectResult =
  { kind: 'redirect'; url: string } | { kind: 'connected'; channel: Channel; reconnected: boolean; secret?: string };

/** The redirect URI a provider's browser sign-in comes back to. */
export function callbackUrl(baseUrl: string, provider: string): string {
  return `${baseUrl.replace(/\/$/, '')}/integrations/callback/${provider}`;
}

/** A platform the operator has not set up answers 400 with what to set, before anything else is tried. */
function checkAvailable(provider: Provider, platformApps: PlatformApps): void {
  const reason = provider.unavailable?.(platformApps);
  if (reason) throw new BadRequestError(reason, { code: 'provider_unavailable' });
}

function stateId(state: string): string {
  return sha256(state);
}

function issues(error: z.ZodError, prefix: string): string {
  return error.issues.map((i) => `${[prefix, ...i.path.map(String)].filter(Boolean).join('.') || 'body'}: ${i.message}`).join('; ');
}

/** Fields a strict platform schema does not know; they are refused rather than silently dropped. */
function unknownFields(schema: z.ZodType, fields: Record<string, unknown>): string[] {
  if (!(schema instanceof z.ZodObject)) return [];
  const known = new Set(Object.keys(schema.shape));
  return Object.keys(fields).filter((f) => !known.has(f));
}

/**
 * A failed check with the platform, worded as what happened (one reading for every platform,
 * `callFailure`): the outbound policy refused the address (400 `outbound_refused`), the platform
 * could not be reached (502 `platform_unreachable`), it refused the credentials or the request
 * (400 `platform_refused`), it asks to wait (502 `platform_rate_limited`), or it failed (502
 * `platform_transient`). Nothing is stored in any case.
 */
function connectFailure(provider: Provider, error: unknown): never {
  if (!(error instanceof ProviderError)) throw error;
  const name = provider.name;
  const failure = callFailure(error);
  const cause = { cause: error };
  switch (failure.cause) {
    case 'policy':
      throw new BadRequestError(`Herald did not call ${name}: its outbound policy refused the address. ${failure.reason}`, {
        code: 'outbound_refused',
        ...cause,
      });
    case 'unreachable':
      throw new AppError(
        502,
        'platform_unreachable',
        `${name} could not be reached: ${failure.reason}. Check the address, then try again.`,
        cause,
      );
    case 'credentials':
      throw new BadRequestError(`${name} refused the credentials: ${error.message}`, { code: 'platform_refused', ...cause });
    case 'refused':
      throw new BadRequestError(`${name} cannot be connected: ${error.message}`, { code: 'platform_refused', ...cause });
    case 'answered':
      if (failure.status < 500)
        throw new BadRequestError(`${name} refused the request: ${error.message}`, { code: 'platform_refused', ...cause });
      break;
  }
  const headers: Record<string, string> = error.options.retryAfterMs
    ? { 'retry-after': String(Math.ceil(error.options.retryAfterMs / 1000)) }
    : {};
  if (failure.cause === 'rate_limited')
    throw new AppError(502, 'platform_rate_limited', `${name} is limiting requests; try again later: ${error.message}`, {
      ...cause,
      headers,
    });
  const what = failure.cause === 'answered' ? 'answered with a server error' : 'could not check the connection right now';
  throw new AppError(502, 'platform_transient', `${name} ${what}: ${error.message}`, { ...cause, headers });
}

/**
 * Connects channels for API clients: checks token credentials live and stores the channel, or
 * runs a browser sign-in (start → platform → callback). A second connection of the same
 * platform account in a workspace reconnects its channel, keeping the channel id.
 */
export class ChannelConnectService {
  readonly #apps: OAuthAppStore;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      secretBox: SecretBox;
      outbound: OutboundClient;
      channels: ChannelsService;
      credentials: CredentialStanding;
      baseUrl: string;
    },
  ) {
    const { db, secretBox, clock } = deps;
    this.#apps = {
      async get(provider, host, redirectUri) {
        const row = await repo.findOAuthApp(db, provider, host, redirectUri);
        return row ? { clientId: row.client_id, clientSecret: secretBox.open(row.client_secret) } : null;
      },
      async put(provider, host, redirectUri, app) {
        await repo.insertOAuthApp(db, {
          provider,
          host,
          redirect_uri: redirectUri,
          client_id: app.clientId,
          client_secret: secretBox.seal(app.clientSecret),
          created_at: clock.now().toISOString(),
        });
        return (await this.get(provider, host, redirectUri))!;
      },
      async remove(provider, host, redirectUri) {
        await repo.deleteOAuthApp(db, provider, host, redirectUri);
      },
    };
  }

  #signInContext(provider: string): SignInContext {
    return {
      outbound: this.deps.outbound,
      platformApps: this.deps.channels.platformApps,
      apps: this.#apps,
      redirectUri: callbackUrl(this.deps.baseUrl, provider),
    };
  }

  /** POST /integrations/connect: `fields` are the platform's (credentials, or what the sign-in needs). */
  async connect(
    access: WorkspaceAccess,
    input: { provider: string; name?: string | undefined; group?: string | undefined; fields: Record<string, unknown> },
  ): Promise<ConnectResult> {
    requireScope(access, 'channels:write');
    const requester = requesterOf(access);
    if (!isProviderIdentifier(input.provider)) {
      const unavailable = PROVIDER_IDENTIFIERS.filter((id) => getProvider(id).unavailable?.(this.deps.channels.platformApps));
      const note = unavailable.length ? `; not available on this server until the operator sets their app: ${unavailable.join(', ')}` : '';
      throw new BadRequestError(`Unknown provider "${input.provider}". Providers: ${PROVIDER_IDENTIFIERS.join(', ')}${note}.`, {
        code: 'unknown_provider',
      });
    }
    if (requester.channelIds !== null) {
      throw new ForbiddenError('A key limited to certain channels cannot connect new ones; use a key without a channel limit.', {
        code: 'channel_limited_key',
      });
    }
    const provider = getProvider(input.provider);
    checkAvailable(provider, this.deps.channels.platformApps);
    if (input.group !== undefined && !(await findGroup(this.deps.db, requester.workspaceId, input.group))) {
      throw new NotFoundError(`No client group ${input.group} in this workspace.`);
    }
    if (provider.signIn && !provider.configSchema.safeParse(input.fields).success) {
      const url = await this.#startSignIn(requester, provider, input.fields, { channelId: null, groupId: input.group ?? null });
      return { kind: 'redirect', url };
    }
    if (!provider.connectAccount) {
      throw new BadRequestError(
        `${provider.name} channels are connected by the operator (\`herald admin channel create\`). ${provider.connectHelp}`,
        { code: 'connect_not_supported' },
      );
    }
    const { fields, secret } = withGeneratedSecret(provider, input.fields);
    const { config, account } = await this.#checkLive(provider, this.#checkedConfig(provider, fields), secret !== null);
    const shown = secret === null ? {} : { secret };
    const existing = await this.deps.channels.findByAccount(requester.workspaceId, provider.identifier, account.internalId);
    if (existing) {
      const channel = await this.deps.channels.reconnectAccount(requester.workspaceId, existing.id, { config, account });
      return { kind: 'connected', channel, reconnected: true, ...shown };
    }
    const channel = await this.deps.channels.create(requester.workspaceId, {
      provider: provider.identifier,
      name: input.name ?? account.name,
      profile: account.handle,
      picture: account.picture && /^https?:\/\//.test(account.picture) ? account.picture : null,
      groupId: input.group ?? null,
      config,
      internalId: account.internalId,
    });
    return { kind: 'connected', channel, reconnected: false, ...shown };
  }

  /**
   * POST /integrations/:id/reconnect: new credentials for the same account (checked live), or
   * a browser sign-in that must come back with the same account. The channel id stays.
   */
  async reconnect(access: WorkspaceAccess, id: string, fields: Record<string, unknown>): Promise<ConnectResult> {
    usableChannel(access, id, 'channels:write');
    const requester = requesterOf(access);
    const { channel, config: stored } = await this.deps.channels.withConfig(requester.workspaceId, id);
    const provider = getProvider(channel.provider);
    checkAvailable(provider, this.deps.channels.platformApps);
    const merged: Record<string, unknown> = { ...stored };
    for (const [field, value] of Object.entries(fields)) {
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    if (provider.signIn && unknownFields(provider.signIn.startSchema, fields).length === 0) {
      // No credentials given: sign in again, starting from what the channel has (e.g. its instance).
      const start = { ...pickKnown(provider.signIn.startSchema, stored), ...fields };
      const url = await this.#startSignIn(requester, provider, start, { channelId: id, groupId: null });
      return { kind: 'redirect', url };
    }
    if (!provider.connectAccount) {
      return { kind: 'connected', channel: await this.deps.channels.reconnect(requester.workspaceId, id, fields), reconnected: true };
    }
    const { config, account } = await this.#checkLive(provider, this.#checkedConfig(provider, merged, { allowUnknown: true }));
    if (channel.internalId && channel.internalId !== account.internalId) {
      throw new BadRequestError(
        `These credentials belong to another ${provider.name} account (${account.handle ?? account.name}); connect it as a new channel instead.`,
        {
          code: 'different_account',
        },
      );
    }
    return {
      kind: 'connected',
      channel: await this.deps.channels.reconnectAccount(requester.workspaceId, id, { config, account }),
      reconnected: true,
    };
  }

  #checkedConfig(provider: Provider, fields: Record<string, unknown>, options: { allowUnknown?: boolean } = {}): Record<string, unknown> {
    const unknown = options.allowUnknown ? [] : unknownFields(provider.configSchema, fields);
    if (unknown.length) {
      throw new BadRequestError(`Unknown field(s) for ${provider.identifier}: ${unknown.join(', ')}. ${provider.connectHelp}`, {
        code: 'invalid_config',
      });
    }
    const parsed = provider.configSchema.safeParse(fields);
    if (!parsed.success)
      throw new BadRequestError(`The ${provider.identifier} credentials are invalid: ${issues(parsed.error, '')}.`, {
        code: 'invalid_config',
      });
    const config = parsed.data as Record<string, unknown>;
    for (const field of provider.configUrls) {
      const value = config[field];
      if (typeof value !== 'string') continue;
      const refused = this.deps.outbound.refusal(value);
      if (refused)
        throw new BadRequestError(`The ${provider.identifier} configuration's ${field} cannot be used: ${refused.message}`, {
          code: 'outbound_refused',
        });
    }
    return config;
  }

  /** Checks the credentials with the platform; the configuration to store comes back with the account. */
  async #checkLive(
    provider: Provider,
    config: Record<string, unknown>,
    secretGenerated = false,
  ): Promise<{ config: Record<string, unknown>; account: ConnectedAccount }> {
    const ctx = { config, outbound: this.deps.outbound, platformApps: this.deps.channels.platformApps, secretGenerated };
    try {
      const account = await provider.connectAccount!(ctx);
      return { account, config: provider.completeConfig ? await provider.completeConfig(ctx, account) : config };
    } catch (error) {
      connectFailure(provider, error);
    }
  }

  async #startSignIn(
    requester: Requester,
    provider: Provider,
    fields: Record<string, unknown>,
    target: { channelId: string | null; groupId: string | null },
  ): Promise<string> {
    const signIn = provider.signIn!;
    const parsed = signIn.startSchema.safeParse(fields);
    if (!parsed.success)
      throw new BadRequestError(`To connect ${provider.name}: ${issues(parsed.error, '')}. ${provider.connectHelp}`, {
        code: 'invalid_config',
      });
    const state = randomBytes(32).toString('base64url');
    let started: { url: string; pending: Record<string, unknown> };
    try {
      started = await signIn.start(this.#signInContext(provider.identifier), { start: parsed.data as Record<string, unknown>, state });
    } catch (error) {
      connectFailure(provider, error);
    }
    const now = this.deps.clock.now();
    await repo.purgeConnectStates(this.deps.db, now.toISOString());
    await repo.insertConnectState(this.deps.db, {
      id: stateId(state),
      workspace_id: requester.workspaceId,
      key_id: requester.principal.keyId,
      principal: storedPrincipal(requester.principal),
      provider: provider.identifier,
      channel_id: target.channelId,
      client_group_id: target.groupId,
      pending: this.deps.secretBox.seal(JSON.stringify(started.pending)),
      expires_at: new Date(now.getTime() + CONNECT_STATE_TTL_MS).toISOString(),
      created_at: now.toISOString(),
    });
    return started.url;
  }

  /**
   * The platform's callback: takes the state once, checks that it has not expired and that the
   * credential that asked may still connect channels in its workspace, exchanges the code, and creates
   * the channel (or reconnects the one the account already has, or the one being reconnected).
   */
  async finish(
    providerId: string,
    input: { state: string; code?: string | undefined; error?: string | undefined },
  ): Promise<{ channel: Channel; reconnected: boolean } | ConnectChoice> {
    const { row, provider } = await this.#takeState(providerId, input.state);
    if (input.error || !input.code) {
      throw new BadRequestError(`${provider.name} did not grant access${input.error ? ` (${input.error})` : ''}; nothing was connected.`, {
        code: 'access_denied',
      });
    }
    let result: SignInResult | SignInChoice;
    try {
      result = await provider.signIn!.finish(this.#signInContext(providerId), {
        code: input.code,
        pending: JSON.parse(this.deps.secretBox.open(row.pending)) as Record<string, unknown>,
      });
    } catch (error) {
      connectFailure(provider, error);
    }
    if ('choose' in result) {
      // One more single-use step, bound to the same key, workspace and target as the sign-in.
      const state = randomBytes(32).toString('base64url');
      const now = this.deps.clock.now();
      await repo.insertConnectState(this.deps.db, {
        ...row,
        id: stateId(state),
        pending: this.deps.secretBox.seal(JSON.stringify(result.choose.pending)),
        expires_at: new Date(now.getTime() + CONNECT_STATE_TTL_MS).toISOString(),
        created_at: now.toISOString(),
      });
      return { kind: 'choose', state, prompt: result.choose.prompt, options: result.choose.options };
    }
    return this.#complete(row, provider, result);
  }

  /** The person's choice after a sign-in that asked for one (POST from the choice page). */
  async choose(providerId: string, input: { state: string; choice: string }): Promise<{ channel: Channel; reconnected: boolean }> {
    const { row, provider } = await this.#takeState(providerId, input.state);
    if (!provider.signIn?.choose)
      throw new BadRequestError('This sign-in has nothing to choose; start connecting again.', { code: 'invalid_state' });
    let result: SignInResult;
    try {
      result = await provider.signIn.choose(this.#signInContext(providerId), {
        choice: input.choice,
        pending: JSON.parse(this.deps.secretBox.open(row.pending)) as Record<string, unknown>,
      });
    } catch (error) {
      connectFailure(provider, error);
    }
    return this.#complete(row, provider, result);
  }

  /** Takes a sign-in state once; it must be this provider's, unexpired, and its credential must still be allowed. */
  async #takeState(providerId: string, state: string) {
    const row = await repo.takeConnectState(this.deps.db, stateId(state));
    if (!row || row.provider !== providerId)
      throw new BadRequestError('This sign-in link is unknown or was already used; start connecting again.', { code: 'invalid_state' });
    if (Date.parse(row.expires_at) <= this.deps.clock.now().getTime()) {
      throw new BadRequestError('This sign-in took too long and expired; start connecting again.', { code: 'state_expired' });
    }
    await this.#checkRequesterStillAllowed(row);
    const provider = getProvider(providerId);
    checkAvailable(provider, this.deps.channels.platformApps);
    return { row, provider };
  }

  /** Creates the channel, or reconnects the one the account already has, or the one being reconnected. */
  async #complete(
    row: { workspace_id: string; channel_id: string | null; client_group_id: string | null; provider: string },
    provider: Provider,
    result: SignInResult,
  ): Promise<{ channel: Channel; reconnected: boolean }> {
    const done = await this.#store(row, provider, result);
    if (!result.preferredSettings) return done;
    const channel = await this.deps.channels.choosePreferredSettings(row.workspace_id, done.channel.id, result.preferredSettings);
    return { ...done, channel };
  }

  async #store(
    row: { workspace_id: string; channel_id: string | null; client_group_id: string | null; provider: string },
    provider: Provider,
    result: SignInResult,
  ): Promise<{ channel: Channel; reconnected: boolean }> {
    const providerId = provider.identifier;
    const { config, account } = result;
    if (row.channel_id) {
      const target = await this.deps.channels.get(row.workspace_id, row.channel_id);
      if (target.internalId && target.internalId !== account.internalId) {
        throw new BadRequestError(
          `You signed in as another ${provider.name} account (${account.handle ?? account.name}) than the channel's; nothing was changed.`,
          { code: 'different_account' },
        );
      }
      return {
        channel: await this.deps.channels.reconnectAccount(row.workspace_id, row.channel_id, { config, account }),
        reconnected: true,
      };
    }
    const existing = await this.deps.channels.findByAccount(row.workspace_id, providerId, account.internalId);
    if (existing)
      return { channel: await this.deps.channels.reconnectAccount(row.workspace_id, existing.id, { config, account }), reconnected: true };
    const groupId =
      row.client_group_id && (await findGroup(this.deps.db, row.workspace_id, row.client_group_id)) ? row.client_group_id : null;
    const channel = await this.deps.channels.create(row.workspace_id, {
      provider: providerId,
      name: account.name,
      profile: account.handle,
      picture: account.picture && /^https?:\/\//.test(account.picture) ? account.picture : null,
      groupId,
      config,
      internalId: account.internalId,
    });
    return { channel, reconnected: false };
  }

  /**
   * A credential revoked or narrowed (an API key, an app's access, a browser session ended), or
   * whose user left the workspace or lost the role, since the sign-in started connects nothing:
   * it must still hold `channels:write` there, and, to reconnect a channel, be allowed that channel
   * (a key limited to some channels connects no new one), as when it started.
   */
  async #checkRequesterStillAllowed(row: { principal: string | null; workspace_id: string; channel_id: string | null }): Promise<void> {
    const refused = new ForbiddenError(
      'The API key, app or browser session that started this sign-in can no longer connect channels in its workspace; nothing was connected.',
      { code: 'requester_revoked' },
    );
    if (row.principal === null) {
      throw new BadRequestError('This sign-in was started before an upgrade of the server; start connecting again.', {
        code: 'invalid_state',
      });
    }
    let access: WorkspaceAccess;
    try {
      access = await this.deps.credentials.access(JSON.parse(row.principal) as Principal, row.workspace_id);
    } catch (error) {
      if (error instanceof AppError) throw refused;
      throw error;
    }
    if (!access.scopes.has('channels:write')) throw refused;
    if (row.channel_id === null ? access.channelIds !== null : !mayUseChannel(access, row.channel_id)) throw refused;
  }
}

/** The stored values a sign-in's start schema knows (e.g. a Mastodon channel's `instance`). */
function pickKnown(schema: z.ZodType, stored: Record<string, unknown>): Record<string, unknown> {
  if (!(schema instanceof z.ZodObject)) return {};
  return Object.fromEntries(
    Object.keys(schema.shape)
      .filter((k) => k in stored)
      .map((k) => [k, stored[k]]),
  );
}
