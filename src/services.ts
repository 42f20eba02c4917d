import { BackgroundWork } from './accounts/background.ts';
import { AnalyticsService } from './analytics/analytics.service.ts';
import { DeveloperKeysService } from './accounts/developer-keys.service.ts';
import type { Mailer } from './accounts/mailer.ts';
import { MembersService } from './accounts/members.service.ts';
import { SessionsService } from './accounts/sessions.service.ts';
import { CredentialStanding } from './auth/credential-standing.ts';
import { SignInService, type SignUpPolicy } from './accounts/sign-in.service.ts';
import { AccessService } from './auth/access.service.ts';
import { ChannelConnectService } from './channels/channel-connect.service.ts';
import { ChannelsService } from './channels/channels.service.ts';
import type { Db } from './db/database.ts';
import { ClockedQuota, LocalRequestCounter, type RequestCounter } from './http/rate-limit-store.ts';
import { GroupsService } from './groups/groups.service.ts';
import { ApiKeysService } from './keys/api-keys.service.ts';
import type { Clock } from './lib/clock.ts';
import type { SecretBox } from './lib/secret-box.ts';
import type { MediaStore } from './media/media-store.ts';
import { MediaService, type MediaLimits } from './media/media.service.ts';
import { UploadLinksService, type UploadLinksOptions } from './media/upload-links.service.ts';
import type { OutboundClient } from './net/outbound.ts';
import { OAuthService } from './oauth/oauth.service.ts';
import { NotificationsService } from './notifications/notifications.service.ts';
import { PostTransitions } from './posts/post-transitions.ts';
import { listUnpublishedPostsUsingMedia } from './posts/posts.repository.ts';
import { PostsService } from './posts/posts.service.ts';
import { ApprovalsService } from './approvals/approvals.service.ts';
import { SchedulesService } from './schedules/schedules.service.ts';
import { SeriesService } from './series/series.service.ts';
import { ImportsService } from './imports/imports.service.ts';
import type { PlatformApps } from './providers/platform-apps.ts';
import type { JobQueue } from './publishing/job-queue.ts';
import { ShortLinksService } from './short-links/short-links.service.ts';
import { UsersService } from './users/users.service.ts';
import { WorkspacesService } from './workspaces/workspaces.service.ts';
import { WebhookDelivery, type WebhookDeliveryDeps } from './webhooks/webhook-delivery.ts';
import { WebhookOutbox } from './webhooks/webhook-outbox.ts';
import { WebhooksService } from './webhooks/webhooks.service.ts';

export type ServiceDeps = {
  db: Db;
  clock: Clock;
  secretBox: SecretBox;
  /** Where new and changed posts are announced to the workers. */
  queue: JobQueue;
  /** The one guarded client for every server-side request. */
  outbound: OutboundClient;
  baseUrl: string;
  /** The operator's platform apps and BASE_URL, handed to providers in their contexts. */
  platformApps: PlatformApps;
  /** Where media bytes are kept. */
  mediaStore: MediaStore;
  mediaLimits?: MediaLimits;
  /** Where sign-in codes and invitations go. */
  mailer: Mailer;
  /** Counters shared by every process (Redis in scale-out mode); this process's own by default. */
  counter?: RequestCounter | undefined;
  /** Who may create an account by e-mail code (SIGNUP). */
  signUpPolicy: SignUpPolicy;
  /** Reports a failure of work done after a request answered (a mail that could not be sent). */
  onBackgroundError?: (error: unknown) => void;
  /** Upload-link limits and test seams (the API's limits by default). */
  uploadLinks?: UploadLinksOptions;
  /** The OAuth device flow's poll interval in seconds (RFC 8628's 5 by default). */
  oauthDevicePollSeconds?: number;
  /** Webhook delivery settings and test seams (see `WebhookDelivery`). */
  webhookDelivery?: WebhookDeliveryDeps['webhookDelivery'];
};

/** Every service, built once per process and shared by the REST API, the CLI and the MCP server. */
export function createServices(deps: ServiceDeps) {
  // Where every change that emits a webhook event writes it, in the change's own transaction.
  const webhookOutbox = new WebhookOutbox(deps);
  const notifications = new NotificationsService({ ...deps, webhookOutbox });
  // The one caller of the statements that write posts and parts, for people's moves and the engine's alike
  // (beside them, only the foreign keys' cascade when a purged channel's row is deleted).
  const postTransitions = new PostTransitions({ ...deps, notifications, webhookOutbox });
  const channels = new ChannelsService({ ...deps, notifications, postTransitions, webhookOutbox });
  const media = new MediaService({
    ...deps,
    webhookOutbox,
    store: deps.mediaStore,
    limits: deps.mediaLimits,
    // A file attached to a post not yet published stays in the library.
    attachments: {
      unpublishedPostsUsing: async (workspaceId: string, mediaId: string, limit: number) =>
        (await listUnpublishedPostsUsingMedia(deps.db, workspaceId, mediaId, limit)).map((row) => row.id),
    },
  });
  const users = new UsersService(deps);
  const workspaces = new WorkspacesService(deps);
  const quota = new ClockedQuota(deps.counter ?? new LocalRequestCounter(), deps.clock);
  const oauth = new OAuthService({ ...deps, quota });
  const apiKeys = new ApiKeysService({ ...deps, oauthTokens: oauth });
  const background = new BackgroundWork(deps.onBackgroundError ?? ((error) => console.error('Background work failed:', error)));
  const sessions = new SessionsService(deps);
  const signIn = new SignInService({ ...deps, policy: deps.signUpPolicy, users, workspaces, sessions, background });
  const schedules = new SchedulesService({ ...deps, channels, transitions: postTransitions });
  const posts = new PostsService({ ...deps, channels, media, notifications, schedules, transitions: postTransitions });
  const series = new SeriesService({ ...deps, channels, media, posts, transitions: postTransitions });
  const access = new AccessService(deps);
  const credentials = new CredentialStanding({ ...deps, access, sessions });
  return {
    users,
    workspaces,
    groups: new GroupsService(deps),
    channels,
    connect: new ChannelConnectService({ ...deps, channels, credentials }),
    apiKeys,
    oauth,
    access,
    notifications,
    shortLinks: new ShortLinksService(deps),
    media,
    uploadLinks: new UploadLinksService({ ...deps, media }),
    posts,
    approvals: new ApprovalsService({ ...deps, channels, posts, transitions: postTransitions }),
    schedules,
    series,
    imports: new ImportsService({ ...deps, posts, credentials, media }),
    postTransitions,
    background,
    signIn,
    sessions,
    members: new MembersService({
      ...deps,
      workspaces,
      quota,
      later: (task) => background.run(task),
    }),
    developerKeys: new DeveloperKeysService({ apiKeys, channels }),
    webhookOutbox,
    webhooks: new WebhooksService({ ...deps, webhookOutbox }),
    /** Started by the worker processes (see server.ts); tests drain it themselves. */
    webhookDelivery: new WebhookDelivery({ ...deps, channels, media, notifications }),
    analytics: new AnalyticsService({ ...deps, channels, notifications }),
  };
}

export type Services = ReturnType<typeof createServices>;
