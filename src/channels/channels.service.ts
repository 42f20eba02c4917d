import type { Db } from '../db/database.ts';
import { BadRequestError, NotFoundError, PaymentRequiredError } from '../errors.ts';
import { findGroup } from '../groups/groups.repository.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { SecretBox } from '../lib/secret-box.ts';
import { isProviderIdentifier, PROVIDER_IDENTIFIERS } from '../providers/registry.ts';
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

export type NewChannel = {
  provider: string;
  name: string;
  profile?: string | null | undefined;
  picture?: string | null | undefined;
  groupId?: string | null | undefined;
  config?: Record<string, unknown> | undefined;
};

export class ChannelsService {
  constructor(private readonly deps: { db: Db; clock: Clock; secretBox: SecretBox }) {}

  async create(workspaceId: string, input: NewChannel): Promise<Channel> {
    const { db } = this.deps;
    if (!isProviderIdentifier(input.provider)) {
      throw new BadRequestError(`Unknown provider "${input.provider}". Providers: ${PROVIDER_IDENTIFIERS.join(', ')}.`);
    }
    const name = input.name.trim();
    if (!name) throw new BadRequestError('A channel needs a name.');
    if (input.picture != null && !/^https?:\/\//.test(input.picture)) throw new BadRequestError('The picture must be an http(s) URL.');
    const workspace = await findWorkspace(db, workspaceId);
    if (!workspace) throw new NotFoundError(`No workspace ${workspaceId}.`);
    if (workspace.plan_channels !== null) {
      const { n } = await repo.countChannels(db, workspaceId);
      if (Number(n) >= Number(workspace.plan_channels)) {
        throw new PaymentRequiredError(`The workspace's plan allows ${workspace.plan_channels} channels and all are in use.`);
      }
    }
    if (input.groupId && !(await findGroup(db, workspaceId, input.groupId))) {
      throw new NotFoundError(`No client group ${input.groupId} in this workspace.`);
    }
    const now = this.deps.clock.now().toISOString();
    const id = newId();
    await repo.insertChannel(db, {
      id,
      workspace_id: workspaceId,
      provider: input.provider,
      name,
      picture: input.picture ?? null,
      profile: input.profile?.replace(/^@/, '') ?? null,
      disabled: 0,
      disabled_reason: null,
      client_group_id: input.groupId ?? null,
      credentials: input.config ? this.deps.secretBox.seal(JSON.stringify(input.config)) : null,
      created_at: now,
      updated_at: now,
    });
    return this.get(workspaceId, id);
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

  /** The provider configuration stored for a channel, decrypted. */
  async config(workspaceId: string, id: string): Promise<Record<string, unknown>> {
    const row = await repo.findChannel(this.deps.db, workspaceId, id);
    if (!row) throw new NotFoundError(`No channel ${id} in this workspace.`);
    return row.credentials ? (JSON.parse(this.deps.secretBox.open(row.credentials)) as Record<string, unknown>) : {};
  }
}
