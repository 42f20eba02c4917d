import type { Db } from '../db/database.ts';
import { lockWorkspace } from '../db/dialect.ts';
import { AppError, BadRequestError, ConflictError, NotFoundError, PaymentRequiredError } from '../errors.ts';
import { findGroup } from '../groups/groups.repository.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import type { OutboundClient } from '../net/outbound.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { ProviderError } from '../providers/provider.ts';
import { getProvider, isProviderIdentifier, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
import { z } from 'zod';
import { findWorkspace } from '../workspaces/workspaces.repository.ts';
import * as repo from './channels.repository.ts';

export type Channel = {
  id: string;
  workspaceId: string;
  provider: string;
  name: string;
  picture: string | null;
  profile: string | null;
  disabled: boolean;
  disabledReason: string | null;
  group: { id: string; name: string } | null;
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
    if (refused) throw new BadRequestError(`The ${provider} configuration's ${field} cannot be used: ${refused.message}`, { code: 'outbound_refused' });
  }
}

export type NewChannel = {
  provider: string;
  name: string;
  profile?: string | null | undefined;
  picture?: string | null | undefined;
  groupId?: string | null | undefined;
  config?: Record<string, unknown> | undefined;
};

export class ChannelsService {
  constructor(private readonly deps: { db: Db; clock: Clock; secretBox: SecretBox; outbound: OutboundClient; notifications: NotificationsService }) {}

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
      created_at: now,
      updated_at: now,
    };
    // Counted and inserted in one transaction, the workspace locked: concurrent creations cannot overshoot the plan.
    await db.transaction().execute(async (trx) => {
      if (workspace.plan_channels === null) return repo.insertChannel(trx, row);
      await lockWorkspace(trx, workspaceId);
      const { n } = await repo.countChannels(trx, workspaceId);
      if (Number(n) >= Number(workspace.plan_channels)) {
        throw new PaymentRequiredError(`The workspace's plan allows ${workspace.plan_channels} channels and all are in use.`);
      }
      return repo.insertChannel(trx, row);
    });
    if (workspace.plan_channels !== null) await this.warnNearChannelQuota(workspaceId, Number(workspace.plan_channels));
    return this.get(workspaceId, id);
  }

  private async warnNearChannelQuota(workspaceId: string, limit: number): Promise<void> {
    const used = Number((await repo.countChannels(this.deps.db, workspaceId)).n);
    if (limit === 0 || used < Math.ceil(limit * 0.8)) return;
    const full = used >= limit;
    await this.deps.notifications.notify(workspaceId, {
      kind: 'limit_warning',
      message: full ? `All ${limit} channels of the plan are in use; no more can be connected.` : `${used} of the ${limit} channels the plan allows are in use.`,
      dedupeKey: `channels-${limit}-${full ? 100 : 80}`,
    });
  }

  /** Channels of a workspace; `channelIds` narrows to what a channel-limited key may see. */
  async list(workspaceId: string, filter: { groupId?: string | undefined; channelIds?: readonly string[] | null } = {}): Promise<Channel[]> {
    const rows = await repo.listChannels(this.deps.db, workspaceId, filter);
    return rows.map(toChannel);
  }

  async get(workspaceId: string, id: string): Promise<Channel> {
    const row = await repo.findChannel(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No channel ${id} in this workspace.`);
    return toChannel(row);
  }

  /** The operator turns a channel off: its posts are not published until it is enabled (or reconnected). */
  async disableByOperator(workspaceId: string, id: string): Promise<Channel> {
    await this.get(workspaceId, id);
    await repo.updateChannel(this.deps.db, workspaceId, id, { disabled: 1, disabled_reason: 'disabled_by_operator', updated_at: this.deps.clock.now().toISOString() });
    return this.get(workspaceId, id);
  }

  /** Lets a disabled channel post again, keeping its configuration. */
  async enable(workspaceId: string, id: string): Promise<Channel> {
    await this.get(workspaceId, id);
    await repo.updateChannel(this.deps.db, workspaceId, id, { disabled: 0, disabled_reason: null, updated_at: this.deps.clock.now().toISOString() });
    return this.get(workspaceId, id);
  }

  /**
   * Deletes a channel with its posts (drafts and history). Refused while posts wait to be
   * published on it: delete those first, or disable the channel to keep them.
   */
  async delete(workspaceId: string, id: string): Promise<Channel> {
    const channel = await this.get(workspaceId, id);
    const waiting = Number((await repo.countWaitingPosts(this.deps.db, id)).n);
    if (waiting > 0) {
      throw new ConflictError(`Channel ${id} has ${waiting} post(s) scheduled or publishing; delete them first (DELETE /public/v1/posts/:id), or disable the channel to keep them.`, {
        code: 'channel_has_scheduled_posts',
      });
    }
    await repo.deleteChannel(this.deps.db, workspaceId, id);
    return channel;
  }

  /** Marks a channel as unable to post (e.g. `needs_reconnect`); true when this call changed it. */
  async disable(id: string, reason: string): Promise<boolean> {
    const result = await repo.disableChannel(this.deps.db, id, reason, this.deps.clock.now().toISOString());
    return Number(result.numUpdatedRows) === 1;
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
    await repo.updateChannel(this.deps.db, workspaceId, id, {
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

  /** A channel row read with its sealed credentials (by the engine, with its claim), opened. */
  open(row: ChannelRow & { credentials: string | null }): { channel: Channel; config: Record<string, unknown> } {
    const config = row.credentials ? (JSON.parse(this.deps.secretBox.open(row.credentials)) as Record<string, unknown>) : {};
    return { channel: toChannel(row), config };
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
      media: { ...provider.mediaRules, mimeTypes: [...provider.mediaRules.mimeTypes] },
      tools: Object.entries(provider.tools).map(([name, tool]) => ({
        name,
        description: tool.description,
        inputSchema: z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
      })),
      idempotentWrites: provider.idempotentWrites,
      connect: provider.connectHelp,
    };
  }

  /** Runs one of the channel's tools with `data` checked against the tool's input schema. */
  async trigger(workspaceId: string, id: string, methodName: string, data: Record<string, unknown>): Promise<unknown> {
    const channel = await this.get(workspaceId, id);
    const provider = getProvider(channel.provider);
    const tool = Object.hasOwn(provider.tools, methodName) ? provider.tools[methodName] : undefined;
    if (!tool) {
      const names = Object.keys(provider.tools);
      throw new BadRequestError(`Unknown methodName "${methodName}". ${provider.name} channels have: ${names.length ? names.join(', ') : 'no tools'}.`, {
        code: 'unknown_tool',
        details: { tools: names },
      });
    }
    const parsed = tool.input.safeParse(data);
    if (!parsed.success) {
      throw new BadRequestError(`Invalid data for ${methodName}: ${parsed.error.issues.map((i) => `${['data', ...i.path.map(String)].join('.')}: ${i.message}`).join('; ')}.`, {
        code: 'invalid_tool_input',
      });
    }
    const ctx = { channel: { id: channel.id, workspaceId, name: channel.name, profile: channel.profile }, config: await this.config(workspaceId, id), outbound: this.deps.outbound };
    try {
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
