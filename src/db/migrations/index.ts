import type { Migration } from 'kysely';
import * as foundation from './2026-11-21T0000-foundation.ts';
import * as media from './2026-11-21T0100-media.ts';
import * as posts from './2026-11-21T0200-posts.ts';
import * as postVersions from './2026-11-22T0100-post-versions.ts';
import * as postsCalendarCursor from './2026-11-22T2300-posts-calendar-cursor.ts';
import * as accessVersion from './2026-11-23T0000-access-version.ts';
import * as accounts from './2026-11-23T1000-accounts.ts';
import * as uploadLinkUsage from './2026-11-23T1100-upload-link-usage.ts';
import * as channelConnect from './2026-11-23T1200-channel-connect.ts';
import * as channelsVersion from './2026-11-23T1400-channels-version.ts';
import * as oauth from './2026-11-23T1600-oauth.ts';
import * as channelsDeleted from './2026-11-23T1800-channels-deleted.ts';
import * as channelRenewal from './2026-11-24T0100-channel-renewal.ts';
import * as uploadLinkCreators from './2026-11-24T0200-upload-link-creators.ts';
import * as postsDueOrder from './2026-11-24T0300-posts-due-order.ts';
import * as postsByChannel from './2026-11-24T0400-posts-by-channel.ts';
import * as webhooks from './2026-11-27T1000-webhooks.ts';
import * as analytics from './2026-11-27T1100-analytics.ts';
import * as postingSchedules from './2026-11-27T1700-posting-schedules.ts';
import * as webhookRetention from './2026-11-27T1800-webhook-retention.ts';
import * as postSeries from './2026-11-28T0600-post-series.ts';
import * as postImports from './2026-11-28T0610-imports.ts';
import * as postApprovals from './2026-11-28T0700-post-approvals.ts';
import * as mediaDuration from './2026-11-29T0100-media-duration.ts';
import * as uploadLinksFromTheApp from './2026-11-29T0400-upload-links-from-the-app.ts';
import * as importResume from './2026-11-29T0500-import-resume.ts';
import * as webhookEndpointDue from './2026-11-29T0700-webhook-endpoint-due.ts';
import * as connectStatePrincipal from './2026-11-30T0300-connect-state-principal.ts';
import * as notificationReads from './2026-11-30T0500-notification-reads.ts';

/** Every migration, by name; names sort in the order they run. Never edit one that has landed. */
export const migrations: Record<string, Migration> = {
  '2026-11-21T0000-foundation': foundation,
  '2026-11-21T0100-media': media,
  '2026-11-21T0200-posts': posts,
  '2026-11-22T0100-post-versions': postVersions,
  '2026-11-22T2300-posts-calendar-cursor': postsCalendarCursor,
  '2026-11-23T0000-access-version': accessVersion,
  '2026-11-23T1000-accounts': accounts,
  '2026-11-23T1100-upload-link-usage': uploadLinkUsage,
  '2026-11-23T1200-channel-connect': channelConnect,
  '2026-11-23T1400-channels-version': channelsVersion,
  '2026-11-23T1600-oauth': oauth,
  '2026-11-23T1800-channels-deleted': channelsDeleted,
  '2026-11-24T0100-channel-renewal': channelRenewal,
  '2026-11-24T0200-upload-link-creators': uploadLinkCreators,
  '2026-11-24T0300-posts-due-order': postsDueOrder,
  '2026-11-24T0400-posts-by-channel': postsByChannel,
  '2026-11-27T1000-webhooks': webhooks,
  '2026-11-27T1100-analytics': analytics,
  '2026-11-27T1700-posting-schedules': postingSchedules,
  '2026-11-27T1800-webhook-retention': webhookRetention,
  '2026-11-28T0600-post-series': postSeries,
  '2026-11-28T0610-imports': postImports,
  '2026-11-28T0700-post-approvals': postApprovals,
  '2026-11-29T0100-media-duration': mediaDuration,
  '2026-11-29T0400-upload-links-from-the-app': uploadLinksFromTheApp,
  '2026-11-29T0500-import-resume': importResume,
  '2026-11-29T0700-webhook-endpoint-due': webhookEndpointDue,
  '2026-11-30T0300-connect-state-principal': connectStatePrincipal,
  '2026-11-30T0500-notification-reads': notificationReads,
};
