import { AccessService } from './auth/access.service.ts';
import { ChannelsService } from './channels/channels.service.ts';
import type { Db } from './db/database.ts';
import { GroupsService } from './groups/groups.service.ts';
import { ApiKeysService } from './keys/api-keys.service.ts';
import type { Clock } from './lib/clock.ts';
import type { SecretBox } from './lib/secret-box.ts';
import { UsersService } from './users/users.service.ts';
import { WorkspacesService } from './workspaces/workspaces.service.ts';

export type ServiceDeps = { db: Db; clock: Clock; secretBox: SecretBox };

/** Every service, built once per process and shared by the REST API, the CLI and the MCP server. */
export function createServices(deps: ServiceDeps) {
  return {
    users: new UsersService(deps),
    workspaces: new WorkspacesService(deps),
    groups: new GroupsService(deps),
    channels: new ChannelsService(deps),
    apiKeys: new ApiKeysService(deps),
    access: new AccessService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;
