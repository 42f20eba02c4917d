import { AccessService } from './auth/access.service.ts';
import { ChannelsService } from './channels/channels.service.ts';
import type { Db } from './db/database.ts';
import { GroupsService } from './groups/groups.service.ts';
import { ApiKeysService } from './keys/api-keys.service.ts';
import type { Clock } from './lib/clock.ts';
import type { SecretBox } from './lib/secret-box.ts';
import type { OutboundClient } from './net/outbound.ts';
import { NotificationsService } from './notifications/notifications.service.ts';
import type { MediaLookup } from './posts/media-lookup.ts';
import { PostsService } from './posts/posts.service.ts';
import type { JobQueue } from './publishing/job-queue.ts';
import { ShortLinksService } from './short-links/short-links.service.ts';
import { UsersService } from './users/users.service.ts';
import { WorkspacesService } from './workspaces/workspaces.service.ts';

export type ServiceDeps = {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  /** Where new and changed posts are announced to the workers. */
  queue: JobQueue;
  /** The one guarded client for every server-side request. */
  outbound: OutboundClient;
  baseUrl: string;
};

// Replaced by the media feature: until then no library file can be found.
const emptyLibrary: MediaLookup = {
  findByPaths: async () => new Map(),
  read: async () => {
    throw new Error('no media library');
  },
};

/** Every service, built once per process and shared by the REST API, the CLI and the MCP server. */
export function createServices(deps: ServiceDeps) {
  const channels = new ChannelsService(deps);
  const notifications = new NotificationsService(deps);
  const media = emptyLibrary;
  return {
    users: new UsersService(deps),
    workspaces: new WorkspacesService(deps),
    groups: new GroupsService(deps),
    channels,
    apiKeys: new ApiKeysService(deps),
    access: new AccessService(deps),
    notifications,
    shortLinks: new ShortLinksService(deps),
    media,
    posts: new PostsService({ ...deps, channels, media, notifications }),
  };
}

export type Services = ReturnType<typeof createServices>;
