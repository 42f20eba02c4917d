import { MCP_SCOPES, REST_SCOPES, ROLE_SCOPES, type Role, type Scope } from '../auth/scopes.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import { BadRequestError, NotFoundError } from '../errors.ts';
import type { ApiKey, ApiKeysService } from '../keys/api-keys.service.ts';
import type { KeyKind } from '../keys/key-format.ts';

/** A signed-in user acting in one workspace. */
export type KeyOwner = { userId: string; workspaceId: string; role: Role };

/** The scopes of a kind of key that a role allows. */
export function scopesFor(kind: KeyKind, role: Role): Scope[] {
  const all: readonly Scope[] = kind === 'mcp' ? MCP_SCOPES : REST_SCOPES;
  return all.filter((scope) => ROLE_SCOPES[role].has(scope));
}

/**
 * The developer settings: a user's own keys in the workspace they act in. Keys are created
 * limited to that workspace, with scopes the user's role allows; everything else (formats,
 * hashing, rotation, revocation) is the key service's.
 */
export class DeveloperKeysService {
  constructor(private readonly deps: { apiKeys: ApiKeysService; channels: ChannelsService }) {}

  /** The user's live keys that work in the workspace (limited to it, or to none). */
  async list(owner: KeyOwner): Promise<ApiKey[]> {
    const keys = await this.deps.apiKeys.list(owner.userId);
    return keys.filter((key) => key.revokedAt === null && (key.workspaceId === null || key.workspaceId === owner.workspaceId)).reverse();
  }

  async create(
    owner: KeyOwner,
    input: { kind: KeyKind; name: string; scopes: string[]; channelIds: string[] },
  ): Promise<{ key: ApiKey; secret: string }> {
    const allowed: readonly string[] = scopesFor(input.kind, owner.role);
    const refused = input.scopes.filter((scope) => !allowed.includes(scope));
    if (refused.length > 0)
      throw new BadRequestError(`Your role (${owner.role}) does not allow: ${refused.join(', ')}.`, { code: 'scope_not_allowed' });
    if (input.scopes.length === 0) throw new BadRequestError('Choose at least one scope.', { code: 'no_scope' });
    if (input.name.trim().length > 100) throw new BadRequestError('A key name has at most 100 characters.', { code: 'invalid_name' });
    let channelIds: string[] | null = null;
    if (input.channelIds.length > 0) {
      const known = new Set((await this.deps.channels.list(owner.workspaceId)).map((c) => c.id));
      if (input.channelIds.some((id) => !known.has(id)))
        throw new BadRequestError('A chosen channel is not in this workspace.', { code: 'unknown_channel' });
      channelIds = input.channelIds;
    }
    return this.deps.apiKeys.create({
      userId: owner.userId,
      kind: input.kind,
      name: input.name,
      scopes: input.scopes,
      channelIds,
      workspaceId: owner.workspaceId,
    });
  }

  async rotate(owner: KeyOwner, keyId: string): Promise<{ key: ApiKey; secret: string }> {
    await this.#own(owner, keyId);
    return this.deps.apiKeys.rotate(keyId);
  }

  async revoke(owner: KeyOwner, keyId: string): Promise<ApiKey> {
    await this.#own(owner, keyId);
    return this.deps.apiKeys.revoke(keyId);
  }

  /** Another user's key, or one for another workspace, is not found. */
  async #own(owner: KeyOwner, keyId: string): Promise<ApiKey> {
    const key = (await this.list(owner)).find((k) => k.id === keyId);
    if (!key) throw new NotFoundError('No such key.');
    return key;
  }
}
