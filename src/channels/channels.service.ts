import { mayUseChannel, requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { EventRecord, WebhookOutbox } from '../webhooks/webhook-outbox.ts';
import type { Db } from '../db/database.ts';
import { lockWorkspace } from '../db/sql.ts';
import { AppError, BadRequestError, ConflictError, NotFoundError, PaymentRequiredError } from '../errors.ts';
import { findGroup } from '../groups/groups.repository.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { PlatformApps } from '../providers/platform-apps.ts';
import { ProviderError, withGeneratedSecret, type Provider } from '../providers/provider.ts';
import { getProvider, isProviderIdentifier, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import * as z from 'zod';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import { parseJsonOr } from '../lib/json.ts';
import type { PostTransitions } from '../posts/post-transitions.ts';
import { partialSettings } from '../posts/readiness.ts';
import * as repo from './channels.repository.ts';
import { CredentialRenewals } from './credential-renewal.ts';
import type { DisabledReason } from './channels.table.ts';

export type Channel = {
  id: string;
  workspaceId: string;
  provider: string;
  name: string;
  picture: string | null;
  profile: string | null;
  disabled: boolean;
  disabledReason: DisabledReason | null;
  group: { id: string; name: string } | null;
  /** The platform's id for the account, when known. */
  internalId: string | null;
  /** Post settings used when a post gives none of its own. */
  preferredSettings: Record<string, unknown> | null;
};

type ChannelRow = Awaited<ReturnType<typeof repo.listChannels>>[number];

function toChannel(row: ChannelRow): Channel {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    provider: row.provider,
    name: row.name,
    picture: row.picture,
    profile: row.profile,
    disabled: Number(row.disabled) === 1,
    disabledReason: row.disabled_reason,
    group: row.client_group_id ? { id: row.client_group_id, name: row.client_group_name ?? '' } : null,
    internalId: row.internal_id,
    preferredSettings: row.preferred_settings ? parseJsonOr<Record<string, unknown> | null>(row.preferred_settings, null) : null,
  };
}

/** The provider's own check of a channel configuration; a 400 listing every problem. */
function validConfig(provider: string, config: Record<string, unknown>): Record<string, unknown> {
  const checked = getProvider(provider).configSchema.safeParse(config);
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${i.path.join('.') || 'config'}: ${i.message}`).join('; ');
    throw new BadRequestError(`The ${provider} configuration is invalid: ${problems}.`);
  }
  return checked.data as Record<string, unknown>;
}

/** Refuses a configuration URL that the outbound policy would never let a publish reach. */
function checkConfigUrls(provider: string, config: Record<string, unknown>, outbound: OutboundClient): void {
  for (const field of getProvider(provider).configUrls) {
    const value = config[field];
    if (typeof value !== 'string') continue;
    const refused = outbound.refusal(value);
    if (refused)
      throw new BadRequestError(`The ${provider} configuration's ${field} cannot be used: ${refused.message}`, {
        code: 'outbound_refused',
      });
  }
}

export type NewChannel = {
  provider: string;
  name: string;
  profile?: string | null | undefined;
  picture?: string | null | undefined;
  groupId?: string | null | undefined;
  config?: Record<string, unknown> | undefined;
  /** The platform's id for the account (from a live check), so a later sign-in finds this channel. */
  internalId?: string | null | undefined;
};

export type ChannelFilter = { groupId?: string | undefined; channelIds?: readonly string[] | null };

/** Workspaces whose channel list is kept, at most; the oldest goes first. */
const MAX_CACHED_LISTS = 1_000;

/** Kept channels are shared by requests: none may change one. */
function freezeChannel(channel: Channel): Channel {
  if (channel.group) Object.freeze(channel.group);
  return Object.freeze(channel);
}

/** The picture of a channel that has none of its own. */
export function defaultChannelPicture(baseUrl: string): string {
  return `${baseUrl}/assets/channel.svg`;
}

/** A channel as the API shows it. */
export type ChannelView = ReturnType<typeof presentChannel>;

/** A channel as the public API shows it (REST, MCP and webhook events alike). */
export function presentChannel(channel: Channel, defaultPicture: string) {
  return {
    id: channel.id,
    name: channel.name,
    identifier: channel.provider,
    picture: channel.picture ?? defaultPicture,
    disabled: channel.disabled,
    disabledReason: channel.disabledReason,
    profile: channel.profile ?? '',
    customer: channel.group,
  };
}

/** The webhook event of a channel's change of state; `reason` is why it cannot post, when it cannot. */
function channelEvent(workspaceId: string, id: string, type: EventRecord['type'], reason: string | null = null): EventRecord {
  return { workspaceId, type, subjectId: id, details: reason === null ? {} : { reason } };
}

/** A channel outside a channel-limited key is "not found", exactly like another workspace's. */
function visibleChannel(access: Pick<WorkspaceAccess, 'channelIds'>, id: string): void {
  if (!mayUseChannel(access, id)) throw new NotFoundError(`No channel ${id} in this workspace.`);
}

/** The caller's scope first, then the channel limit: what every method acting for a caller on one channel checks. */
export function usableChannel(access: WorkspaceAccess, id: string, scope: 'channels:read' | 'channels:write'): void {
  requireScope(access, scope);
  visibleChannel(access, id);
}

/** What PATCH /integrations/:id changes; a field left out is kept, `null` clears it. */
export type ChannelChanges = {
  name?: string | undefined;
  groupId?: string | null | undefined;
  preferredSettings?: Record<string, unknown> | null | undefined;
};

/** Scheduled posts named in a refused deletion. */
const NAMED_POSTS = 20;
/**
 * Channels whose decrypted configuration is kept, at most, the least recently used dropped first:
 * enough for every channel of a large deployment (a kept configuration is a few hundred bytes), so
 * a burst across thousands of channels opens each once rather than on every publish.
 */
const MAX_OPENED = 10_000;

/** Freezes a parsed JSON value all the way down: a kept configuration is shared by every publish on its channel. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Methods that take a `WorkspaceAccess` act for a caller (REST, MCP, pages) and check its scope
 * and channel limit first; those that take a workspace id are the internal path (the publisher,
 * channel connection, operator commands) and check nothing.
 */
/** A provider's media rules as GET /integration-settings/:id shows them. */
function mediaRulesOf(provider: Provider) {
  const { video, ...rules } = provider.mediaRules;
  return {
    ...rules,
    mimeTypes: [...rules.mimeTypes],
    ...(video && {
      video: {
        ...(video.sidePixels && { sidePixels: [...video.sidePixels] as [number, number] }),
        ...(video.seconds && { seconds: [...video.seconds] as [number, number] }),
      },
    }),
  };
}

export class ChannelsService {
  /** Channel lists by workspace, with the channels version they were read at. */
  readonly #lists = new Map<string, { version: string; channels: readonly Channel[] }>();
  /** The kept lists as the API shows them, made once for each. */
  readonly #shown = new WeakMap<readonly Channel[], readonly ChannelView[]>();

  /**
   * Decrypted configurations by channel, with the stored (sealed) value each came from: a
   * channel's configuration is decrypted and parsed once per stored value. Any change of the
   * credentials stores a new sealed value (a fresh IV each time), which misses here.
   */
  readonly #opened = new Map<string, { workspaceId: string; sealed: string; config: Readonly<Record<string, unknown>> }>();

  /** Renews channels' credentials once at a time per channel, across processes. */
  readonly renewals: CredentialRenewals;

  /** The operator's platform apps and BASE_URL, which providers read from their contexts. */
  get platformApps(): PlatformApps {
    return this.deps.platformApps;
  }

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      /** The server's public address: a channel without a picture shows the default one from there. */
      baseUrl: string;
      secretBox: SecretBox;
      outbound: OutboundClient;
      /** The operator's platform apps, for every provider context built here and by the callers of this service. */
      platformApps: PlatformApps;
      notifications: NotificationsService;
      /** Where a deletion's scheduled posts are moved to draft and a purge's posts deleted. */
      postTransitions: PostTransitions;
      /** Where channel events are written, in the transaction of the change. */
      webhookOutbox: WebhookOutbox;
      /** Decrypted configurations kept at most (`MAX_OPENED`; tests lower it). */
      maxOpened?: number;
    },
  ) {
    this.renewals = new CredentialRenewals(deps);
  }

  /**
   * `create` for a creator who may leave out the secret the provider generates (a webhook's
   * signing secret; the operator's command): the secret made, if any, comes back this once.
   */
  async createShowingSecret(workspaceId: string, input: NewChannel): Promise<{ channel: Channel; secret: string | null }> {
    const { fields: config, secret } = isProviderIdentifier(input.provider)
      ? withGeneratedSecret(getProvider(input.provider), input.config ?? {})
      : { fields: input.config ?? {}, secret: null };
    return { channel: await this.create(workspaceId, { ...input, config }), secret };
  }

  async create(workspaceId: string, input: NewChannel): Promise<Channel> {
    const { db } = this.deps;
    if (!isProviderIdentifier(input.provider)) {
      throw new BadRequestError(`Unknown provider "${input.provider}". Providers: ${PROVIDER_IDENTIFIERS.join(', ')}.`);
    }
    const config = validConfig(input.provider, input.config ?? {});
    checkConfigUrls(input.provider, config, this.deps.outbound);
    const name = input.name.trim();
    if (!name) throw new BadRequestError('A channel needs a name.');
    if (input.picture != null && !/^https?:\/\//.test(input.picture)) throw new BadRequestError('The picture must be an http(s) URL.');
    const workspace = await findWorkspace(db, workspaceId);
    if (!workspace) throw new NotFoundError(`No workspace ${workspaceId}.`);
    if (input.groupId && !(await findGroup(db, workspaceId, input.groupId))) {
      throw new NotFoundError(`No client group ${input.groupId} in this workspace.`);
    }
    const now = this.deps.clock.now().toISOString();
    const id = newId();
    const row = {
      id,
      workspace_id: workspaceId,
      provider: input.provider,
      name,
      picture: input.picture ?? null,
      profile: input.profile?.replace(/^@/, '') ?? null,
      disabled: 0,
      disabled_reason: null,
      client_group_id: input.groupId ?? null,
      credentials: this.deps.secretBox.seal(JSON.stringify(config)),
      internal_id: input.internalId ?? null,
      preferred_settings: null,
      deleted_at: null,
      renewing_until: null,
      renewing_by: null,
      created_at: now,
      updated_at: now,
    };
    await this.withinChannelQuota(workspaceId, async (trx) => {
      await repo.insertChannel(trx, row);
      await this.deps.webhookOutbox.record(trx, [channelEvent(workspaceId, id, 'channel.connected')]);
    });
    return this.get(workspaceId, id);
  }

  /**
   * Adds a channel in use (a new one, or a deleted one restored) with `add`: counted and added in
   * one transaction, the workspace locked, so concurrent additions cannot overshoot the plan.
   */
  private async withinChannelQuota(workspaceId: string, add: (trx: Db) => Promise<unknown>): Promise<void> {
    const { db } = this.deps;
    const workspace = await findWorkspace(db, workspaceId);
    if (!workspace) throw new NotFoundError(`No workspace ${workspaceId}.`);
    await db.transaction().execute(async (trx) => {
      if (workspace.plan_channels === null) return add(trx);
      await lockWorkspace(trx, workspaceId);
      const { n } = await repo.countChannels(trx, workspaceId);
      if (Number(n) >= Number(workspace.plan_channels)) {
        throw new PaymentRequiredError(`The workspace's plan allows ${workspace.plan_channels} channels and all are in use.`);
      }
      return add(trx);
    });
    if (workspace.plan_channels !== null) await this.warnNearChannelQuota(workspaceId, Number(workspace.plan_channels));
  }

  private async warnNearChannelQuota(workspaceId: string, limit: number): Promise<void> {
    const used = Number((await repo.countChannels(this.deps.db, workspaceId)).n);
    if (limit === 0 || used < Math.ceil(limit * 0.8)) return;
    const full = used >= limit;
    await this.deps.notifications.notify(workspaceId, {
      kind: 'limit_warning',
      message: full
        ? `All ${limit} channels of the plan are in use; no more can be connected.`
        : `${used} of the ${limit} channels the plan allows are in use.`,
      dedupeKey: `channels-${limit}-${full ? 100 : 80}`,
    });
  }

  /**
   * Channels of a workspace; `channelIds` narrows to what a channel-limited key may see.
   * With `version` (the channels version a request read with its key), the workspace's list is
   * kept in this process at that version and read again once it moves: every change to what a
   * list shows moves it (database triggers), in every process at once. Unfiltered, the kept
   * list itself is returned (frozen): the same array for every request at that version.
   */
  async list(workspaceId: string, filter: ChannelFilter = {}, version?: string): Promise<readonly Channel[]> {
    if (version === undefined) return (await repo.listChannels(this.deps.db, workspaceId, filter)).map(toChannel);
    let cached = this.#lists.get(workspaceId);
    if (!cached || cached.version !== version) {
      const channels = Object.freeze((await repo.listChannels(this.deps.db, workspaceId, {})).map((row) => freezeChannel(toChannel(row))));
      cached = { version, channels };
      this.#lists.delete(workspaceId);
      if (this.#lists.size >= MAX_CACHED_LISTS) this.#lists.delete(this.#lists.keys().next().value!);
      this.#lists.set(workspaceId, cached);
    }
    const { groupId, channelIds } = filter;
    if (groupId === undefined && !channelIds) return cached.channels;
    const allowed = channelIds ? new Set(channelIds) : null;
    return cached.channels.filter(
      (channel) => (groupId === undefined || channel.group?.id === groupId) && (allowed === null || allowed.has(channel.id)),
    );
  }

  /**
   * The channels a request may see, optionally of one client group (an unknown group is a 404).
   * A channel-limited key sees only its channels and is never refused for that.
   */
  async visible(access: WorkspaceAccess, groupId: string | undefined): Promise<readonly Channel[]> {
    requireScope(access, 'channels:read');
    const workspaceId = access.workspace.id;
    if (groupId !== undefined && !(await findGroup(this.deps.db, workspaceId, groupId))) {
      throw new NotFoundError(`No client group ${groupId} in this workspace.`);
    }
    return this.list(workspaceId, { groupId, channelIds: access.channelIds }, access.principal.channelsVersion);
  }

  /** A channel as the API shows it. */
  present(channel: Channel): ChannelView {
    return presentChannel(channel, defaultChannelPicture(this.deps.baseUrl));
  }

  /**
   * `visible`, as the API shows it. A kept list (frozen, the same array until a channel changes)
   * is shown by the same frozen array, so a route may write its answer once for all its requests.
   */
  async shown(access: WorkspaceAccess, groupId: string | undefined): Promise<readonly ChannelView[]> {
    const channels = await this.visible(access, groupId);
    if (!Object.isFrozen(channels)) return channels.map((channel) => this.present(channel));
    let shown = this.#shown.get(channels);
    if (shown === undefined) {
      shown = Object.freeze(channels.map((channel) => this.present(channel)));
      this.#shown.set(channels, shown);
    }
    return shown;
  }

  /** `settings` of a channel the request may see. */
  async settingsFor(access: WorkspaceAccess, id: string) {
    usableChannel(access, id, 'channels:read');
    return this.settings(access.workspace.id, id);
  }

  /** `trigger` on a channel the request may see. */
  async triggerFor(access: WorkspaceAccess, id: string, methodName: string, data: Record<string, unknown>): Promise<unknown> {
    usableChannel(access, id, 'channels:read');
    return this.trigger(access.workspace.id, id, methodName, data);
  }

  /** A channel in use; a deleted one is "not found", like one that never existed. */
  async get(workspaceId: string, id: string): Promise<Channel> {
    const row = await repo.findChannel(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No channel ${id} in this workspace.`);
    return toChannel(row);
  }

  /**
   * The channel a post was written for, in use or deleted (`deletedAt` set): a deleted
   * channel's posts stay readable. Null when there is none.
   */
  async getAnyState(workspaceId: string, id: string): Promise<(Channel & { deletedAt: string | null }) | null> {
    const row = await repo.findChannelAnyState(this.deps.db, workspaceId, id);
    return row ? { ...toChannel(row), deletedAt: row.deleted_at } : null;
  }

  /** Whether a channel is deleted (or gone altogether): its posts are never published. */
  isDeleted(id: string): Promise<boolean> {
    return repo.isChannelDeleted(this.deps.db, id);
  }

  /**
   * A channel posts may be written for or scheduled on: as `get`, but a deleted channel is a
   * 409 `channel_deleted` that names it and says how to bring it back.
   */
  async forPosts(workspaceId: string, id: string): Promise<Channel> {
    const row = await repo.findChannel(this.deps.db, workspaceId, id);
    if (row) return toChannel(row);
    const deleted = await repo.findChannelAnyState(this.deps.db, workspaceId, id);
    if (!deleted) throw new NotFoundError(`No channel ${id} in this workspace.`);
    throw new ConflictError(
      `Channel ${id} ("${deleted.name}", ${deleted.provider}) was deleted at ${deleted.deleted_at}; its posts are kept as drafts but cannot be scheduled. Connect the same account again (POST /public/v1/integrations/connect) to restore the channel with the same id.`,
      { code: 'channel_deleted', details: { integration: id } },
    );
  }

  /** The operator turns a channel off: its posts are not published until it is enabled (or reconnected). */
  async disableByOperator(workspaceId: string, id: string): Promise<Channel> {
    await this.get(workspaceId, id);
    await this.#changeState(workspaceId, id, {
      disabled: 1,
      disabled_reason: 'disabled_by_operator',
      updated_at: this.deps.clock.now().toISOString(),
    });
    return this.get(workspaceId, id);
  }

  /** Updates a channel and writes the event its new state means (connected, or disconnected and why), in one transaction. */
  async #changeState(workspaceId: string, id: string, changes: Parameters<typeof repo.updateChannel>[3]): Promise<void> {
    const reason = changes.disabled === 1 ? (changes.disabled_reason ?? null) : null;
    await this.deps.webhookOutbox.recordWith(
      this.deps.db,
      (trx) => repo.updateChannel(trx, workspaceId, id, changes),
      () => [channelEvent(workspaceId, id, reason === null ? 'channel.connected' : 'channel.disconnected', reason)],
    );
  }

  /** Lets a disabled channel post again, keeping its configuration. */
  async enable(workspaceId: string, id: string): Promise<Channel> {
    await this.get(workspaceId, id);
    await this.#changeState(workspaceId, id, {
      disabled: 0,
      disabled_reason: null,
      updated_at: this.deps.clock.now().toISOString(),
    });
    return this.get(workspaceId, id);
  }

  /** DELETE /integrations/:id for a caller: `delete` on a channel the caller may change; never a purge. */
  async deleteFor(access: WorkspaceAccess, id: string, options: { force?: boolean } = {}): Promise<Channel> {
    usableChannel(access, id, 'channels:write');
    return this.delete(access.workspace.id, id, { force: options.force === true });
  }

  /**
   * Deletes a channel. Refused while posts wait to be published on it, naming them; with
   * `force` those are moved to draft (their scheduling stops, so none is published). A post
   * being published right now always refuses it.
   *
   * The channel is marked deleted and its posts stay: drafts and published history remain
   * readable (GET /posts) and deletable, and connecting the same account again restores the
   * channel under the same id. It leaves every channel list and lookup, the plan's channel
   * count and the publisher's work. With `purge` (operators only) the channel, in use or
   * already deleted, is removed for good with all its posts: marked deleted first, then its posts
   * are deleted a page at a time (`PostTransitions.purgeChannel`), then the channel. A purge cut
   * short leaves the channel deleted with the rest of its posts; purging it again finishes the work.
   */
  async delete(workspaceId: string, id: string, options: { force?: boolean; purge?: boolean } = {}): Promise<Channel> {
    const { db, postTransitions } = this.deps;
    const found = options.purge ? await this.getAnyState(workspaceId, id) : await this.get(workspaceId, id);
    if (!found) throw new NotFoundError(`No channel ${id} in this workspace.`);
    const waiting = Number((await repo.countWaitingPosts(db, id)).n);
    if (waiting > 0 && !options.force) {
      const named = await repo.listWaitingPosts(db, id, NAMED_POSTS);
      const list = named.map((p) => p.id).join(', ') + (waiting > named.length ? ` and ${waiting - named.length} more` : '');
      throw new ConflictError(
        `Channel ${id} has ${waiting} post(s) scheduled or publishing: ${list}. Delete them first (DELETE /public/v1/posts/:id), disable the channel to keep them scheduled, or delete with ?force=true to move them to draft (they are kept with the deleted channel).`,
        { code: 'channel_has_scheduled_posts', details: { posts: named.map((p) => p.id) } },
      );
    }
    const publishing = await repo.findPublishingPost(db, id);
    if (publishing) {
      throw new ConflictError(
        `Post ${publishing.id} on channel ${id} is being published right now; delete the channel once it is PUBLISHED or ERROR.`,
        { code: 'post_publishing' },
      );
    }
    if (options.purge) {
      // Marked first (unless it already is), so that nothing is scheduled on it or claimed while its posts go.
      await this.#markDeleted(workspaceId, id);
      await postTransitions.unscheduleChannel(id);
      await postTransitions.purgeChannel(id);
      await repo.deleteChannel(db, workspaceId, id);
      return found;
    }
    // Marked first, so nothing schedules on it or claims its posts from here on; then its scheduled posts become drafts.
    await this.#markDeleted(workspaceId, id);
    await postTransitions.unscheduleChannel(id);
    return found;
  }

  /** Marks a channel deleted and, when this call did, writes `channel.deleted` in the same transaction. */
  async #markDeleted(workspaceId: string, id: string): Promise<void> {
    await this.deps.webhookOutbox.recordWith(
      this.deps.db,
      (trx) => repo.markChannelDeleted(trx, workspaceId, id, this.deps.clock.now().toISOString()),
      // The id beside the channel: an operator's purge may remove the channel before the event is sent.
      (marked) =>
        Number(marked.numUpdatedRows) === 1 ? [{ workspaceId, type: 'channel.deleted', subjectId: id, details: { channelId: id } }] : [],
    );
  }

  /**
   * Merges settings the person chose while connecting (Pinterest's default board) into the
   * channel's preferred settings, over those it had; each must be valid for the platform.
   */
  async choosePreferredSettings(workspaceId: string, id: string, chosen: Record<string, unknown>): Promise<Channel> {
    const channel = await this.get(workspaceId, id);
    const checked = partialSettings(getProvider(channel.provider)).safeParse(chosen);
    if (!checked.success) throw new Error(`${channel.provider} chose settings its own schema refuses: ${checked.error.message}`);
    const merged = { ...channel.preferredSettings, ...(checked.data as Record<string, unknown>) };
    await repo.updateChannel(this.deps.db, workspaceId, id, {
      preferred_settings: JSON.stringify(merged),
      updated_at: this.deps.clock.now().toISOString(),
    });
    return this.get(workspaceId, id);
  }

  /** Renames a channel, files it under a client group, or sets its preferred post settings. */
  async update(access: WorkspaceAccess, id: string, changes: ChannelChanges): Promise<Channel> {
    usableChannel(access, id, 'channels:write');
    const workspaceId = access.workspace.id;
    const channel = await this.get(workspaceId, id);
    const set: Parameters<typeof repo.updateChannel>[3] = { updated_at: this.deps.clock.now().toISOString() };
    if (changes.name !== undefined) {
      const name = changes.name.trim();
      if (!name) throw new BadRequestError('A channel needs a name.');
      set.name = name;
    }
    if (changes.groupId !== undefined) {
      if (changes.groupId !== null && !(await findGroup(this.deps.db, workspaceId, changes.groupId))) {
        throw new NotFoundError(`No client group ${changes.groupId} in this workspace.`);
      }
      set.client_group_id = changes.groupId;
    }
    if (changes.preferredSettings !== undefined) {
      if (changes.preferredSettings === null) set.preferred_settings = null;
      else {
        const { __type: _type, ...rest } = changes.preferredSettings;
        const checked = getProvider(channel.provider).settingsSchema.safeParse(rest);
        if (!checked.success) {
          const problems = checked.error.issues
            .map((i) => `${['preferredSettings', ...i.path.map(String)].join('.')}: ${i.message}`)
            .join('; ');
          throw new BadRequestError(`Invalid preferred settings for ${channel.provider}: ${problems}.`);
        }
        set.preferred_settings = JSON.stringify(checked.data);
      }
    }
    await repo.updateChannel(this.deps.db, workspaceId, id, set);
    return this.get(workspaceId, id);
  }

  /**
   * Stores new credentials for the channel's account (found again by a sign-in or checked
   * live), refreshes its name, handle and picture, and enables it again. The id stays.
   */
  async reconnectAccount(
    workspaceId: string,
    id: string,
    input: {
      config: Record<string, unknown>;
      account: { internalId: string; name: string; handle: string | null; picture: string | null };
    },
  ): Promise<Channel> {
    const channel = await this.getAnyState(workspaceId, id);
    if (!channel) throw new NotFoundError(`No channel ${id} in this workspace.`);
    const config = validConfig(channel.provider, input.config);
    checkConfigUrls(channel.provider, config, this.deps.outbound);
    const changes = {
      credentials: this.deps.secretBox.seal(JSON.stringify(config)),
      internal_id: input.account.internalId,
      picture: input.account.picture && /^https?:\/\//.test(input.account.picture) ? input.account.picture : channel.picture,
      profile: input.account.handle?.replace(/^@/, '') ?? channel.profile,
      updated_at: this.deps.clock.now().toISOString(),
    };
    if (channel.deletedAt !== null) {
      // A deleted channel comes back as it was (name, client group, preferred settings, posts), counted against the plan again.
      await this.withinChannelQuota(workspaceId, async (trx) => {
        await repo.restoreChannel(trx, workspaceId, id, changes);
        await this.deps.webhookOutbox.record(trx, [channelEvent(workspaceId, id, 'channel.connected')]);
      });
    } else {
      await this.#changeState(workspaceId, id, { ...changes, disabled: 0, disabled_reason: null });
    }
    return this.get(workspaceId, id);
  }

  /**
   * The workspace's channel for a platform account, if one exists: one in use, else the most
   * recently deleted one (which `reconnectAccount` restores).
   */
  async findByAccount(workspaceId: string, provider: string, internalId: string): Promise<{ id: string; deleted: boolean } | null> {
    const row = await repo.findChannelByAccount(this.deps.db, workspaceId, provider, internalId);
    return row ? { id: row.id, deleted: row.deleted_at !== null } : null;
  }

  /** Marks a channel as unable to post (e.g. `needs_reconnect`); true when this call changed it. */
  async disable(id: string, reason: DisabledReason): Promise<boolean> {
    return this.deps.db.transaction().execute(async (trx) => {
      const result = await repo.disableChannel(trx, id, reason, this.deps.clock.now().toISOString());
      if (Number(result.numUpdatedRows) !== 1) return false;
      const channel = await repo.findChannelWorkspace(trx, id);
      if (channel) {
        const type = reason === 'needs_reconnect' ? 'channel.needs_reconnect' : 'channel.disconnected';
        await this.deps.webhookOutbox.record(trx, [channelEvent(channel.workspace_id, id, type, reason)]);
      }
      return true;
    });
  }

  /**
   * Reconnects a channel: `changes` are merged into the stored configuration (a field given as
   * null is removed, as in a JSON merge patch), so a secret that cannot be read back is kept
   * unless replaced; then the channel is enabled again.
   */
  async reconnect(workspaceId: string, id: string, changes: Record<string, unknown> = {}): Promise<Channel> {
    const { channel, config: stored } = await this.withConfig(workspaceId, id);
    const merged: Record<string, unknown> = { ...stored };
    for (const [field, value] of Object.entries(changes)) {
      if (value === null) delete merged[field];
      else merged[field] = value;
    }
    const config = validConfig(channel.provider, merged);
    checkConfigUrls(channel.provider, config, this.deps.outbound);
    await this.#changeState(workspaceId, id, {
      credentials: this.deps.secretBox.seal(JSON.stringify(config)),
      disabled: 0,
      disabled_reason: null,
      updated_at: this.deps.clock.now().toISOString(),
    });
    return this.get(workspaceId, id);
  }

  /** The provider configuration stored for a channel, decrypted. */
  async config(workspaceId: string, id: string): Promise<Record<string, unknown>> {
    return (await this.withConfig(workspaceId, id)).config;
  }

  /** The channel and its decrypted configuration, in one read (what a publish needs). */
  async withConfig(workspaceId: string, id: string): Promise<{ channel: Channel; config: Record<string, unknown> }> {
    const row = await repo.findChannel(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No channel ${id} in this workspace.`);
    return this.open(row);
  }

  /**
   * A channel row read with its sealed credentials (by the engine, with its claim), opened. The
   * configuration is frozen: the same object for every open of the same stored value.
   */
  open(row: ChannelRow & { credentials: string | null }): { channel: Channel; config: Record<string, unknown> } {
    return { channel: toChannel(row), config: row.credentials ? this.#configOf(row.id, row.workspace_id, row.credentials) : {} };
  }

  #configOf(id: string, workspaceId: string, sealed: string): Record<string, unknown> {
    const kept = this.#opened.get(id);
    // Taken out and put back last: the Map's order is the order of use.
    this.#opened.delete(id);
    if (kept && kept.sealed === sealed && kept.workspaceId === workspaceId) {
      this.#opened.set(id, kept);
      return kept.config;
    }
    const config = deepFreeze(JSON.parse(this.deps.secretBox.open(sealed)) as Record<string, unknown>);
    if (this.#opened.size >= (this.deps.maxOpened ?? MAX_OPENED)) this.#opened.delete(this.#opened.keys().next().value!);
    this.#opened.set(id, { workspaceId, sealed, config });
    return config;
  }

  /** The channel's platform rules: settings as JSON Schema, text limit, media rules, tools. */
  async settings(workspaceId: string, id: string) {
    const channel = await this.get(workspaceId, id);
    const provider = getProvider(channel.provider);
    return {
      integration: channel.id,
      identifier: provider.identifier,
      name: provider.name,
      settings: z.toJSONSchema(provider.settingsSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
      textLimit: provider.textLimit,
      media: mediaRulesOf(provider),
      tools: Object.entries(provider.tools).map(([name, tool]) => ({
        name,
        description: tool.description,
        inputSchema: z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
      })),
      idempotentWrites: provider.idempotentWrites,
      connect: provider.connectHelp,
      metrics: { post: [...(provider.metrics?.reports.post ?? [])], account: [...(provider.metrics?.reports.account ?? [])] },
      preferredSettings: channel.preferredSettings,
    };
  }

  /** Runs one of the channel's tools with `data` checked against the tool's input schema. */
  async trigger(workspaceId: string, id: string, methodName: string, data: Record<string, unknown>): Promise<unknown> {
    const channel = await this.get(workspaceId, id);
    const provider = getProvider(channel.provider);
    const tool = Object.hasOwn(provider.tools, methodName) ? provider.tools[methodName] : undefined;
    if (!tool) {
      const names = Object.keys(provider.tools);
      throw new BadRequestError(
        `Unknown methodName "${methodName}". ${provider.name} channels have: ${names.length ? names.join(', ') : 'no tools'}.`,
        {
          code: 'unknown_tool',
          details: { tools: names },
        },
      );
    }
    const parsed = tool.input.safeParse(data);
    if (!parsed.success) {
      throw new BadRequestError(
        `Invalid data for ${methodName}: ${parsed.error.issues.map((i) => `${['data', ...i.path.map(String)].join('.')}: ${i.message}`).join('; ')}.`,
        {
          code: 'invalid_tool_input',
        },
      );
    }
    const ref = { id: channel.id, workspaceId, name: channel.name, profile: channel.profile };
    const opened = {
      channel: ref,
      config: await this.config(workspaceId, id),
      outbound: this.deps.outbound,
      platformApps: this.platformApps,
    };
    try {
      // A tool reads the platform with the channel's token: one that expires soon is renewed (and stored) first, as before a publish.
      const ctx = await this.renewals.live(provider, opened, !channel.disabled);
      return await tool.run(ctx, parsed.data);
    } catch (error) {
      if (error instanceof ProviderError) {
        const status = error.kind === 'rejected' ? 400 : 502;
        throw new AppError(status, `platform_${error.kind}`, `${provider.name} answered: ${error.message}`, { cause: error });
      }
      throw error;
    }
  }
}
