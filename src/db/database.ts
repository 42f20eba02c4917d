import type { Kysely, Transaction } from 'kysely';
import type { AccessVersionTable } from '../auth/access-version.table.ts';
import type { InvitationsTable, SessionsTable, SignInCodesTable, SignInLinksTable } from '../accounts/accounts.table.ts';
import type { ApiKeysTable } from '../keys/api-keys.table.ts';
import type { ChannelsTable, ConnectStatesTable, OAuthAppsTable } from '../channels/channels.table.ts';
import type { ChannelsVersionTable } from '../channels/channels-version.table.ts';
import type { ClientGroupsTable } from '../groups/groups.table.ts';
import type { UsersTable } from '../users/users.table.ts';
import type { MembershipsTable, WorkspacesTable } from '../workspaces/workspaces.table.ts';
import type { MetaTable } from './meta.table.ts';
import type { OAuthRecordsTable } from '../oauth/oauth.table.ts';
import type { MediaTable } from '../media/media.table.ts';
import type { UploadLinkFilesTable, UploadLinksTable } from '../media/upload-links.table.ts';
import type { NotificationReadsTable, NotificationsTable } from '../notifications/notifications.table.ts';
import type { IdempotencyKeysTable, PostMediaTable, PostPartsTable, PostsTable } from '../posts/posts.table.ts';
import type { ShortLinksTable } from '../short-links/short-links.table.ts';
import type { PostingSchedulesTable } from '../schedules/schedules.table.ts';
import type { ApprovalSettingsTable, PostApprovalsTable } from '../approvals/approvals.table.ts';
import type { PostSeriesTable } from '../series/series.table.ts';
import type { PostImportsTable } from '../imports/imports.table.ts';
import type {
  AnalyticsChannelSnapshotsTable,
  AnalyticsChannelsTable,
  AnalyticsPostSnapshotsTable,
  AnalyticsPostsTable,
} from '../analytics/analytics.table.ts';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookEventsTable,
} from '../webhooks/webhooks.table.ts';

export interface Database {
  meta: MetaTable;
  users: UsersTable;
  workspaces: WorkspacesTable;
  memberships: MembershipsTable;
  client_groups: ClientGroupsTable;
  channels: ChannelsTable;
  api_keys: ApiKeysTable;
  media: MediaTable;
  upload_links: UploadLinksTable;
  upload_link_files: UploadLinkFilesTable;
  posts: PostsTable;
  post_series: PostSeriesTable;
  post_imports: PostImportsTable;
  post_parts: PostPartsTable;
  post_media: PostMediaTable;
  idempotency_keys: IdempotencyKeysTable;
  notifications: NotificationsTable;
  notification_reads: NotificationReadsTable;
  short_links: ShortLinksTable;
  access_version: AccessVersionTable;
  channels_version: ChannelsVersionTable;
  sign_in_codes: SignInCodesTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  sign_in_links: SignInLinksTable;
  oauth_records: OAuthRecordsTable;
  oauth_apps: OAuthAppsTable;
  connect_states: ConnectStatesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  analytics_channels: AnalyticsChannelsTable;
  analytics_posts: AnalyticsPostsTable;
  analytics_post_snapshots: AnalyticsPostSnapshotsTable;
  analytics_channel_snapshots: AnalyticsChannelSnapshotsTable;
  posting_schedules: PostingSchedulesTable;
  approval_settings: ApprovalSettingsTable;
  post_approvals: PostApprovalsTable;
}

export type Db = Kysely<Database>;
/** What a repository takes: the database or a transaction on it. */
export type Executor = Kysely<Database> | Transaction<Database>;
