import * as z from 'zod';
import { wholeNumber } from '../http/common.schema.ts';
import { LAST_PAGE, NOTIFICATION_KINDS } from './notifications.service.ts';

export const notificationSchema = z
  .object({
    id: z.string(),
    type: z
      .enum(NOTIFICATION_KINDS)
      .describe(
        'publish_failed, comment_failed, publish_confirmed (a post or comment reported as failed with an unknown outcome turned out published), channel_disconnected (needs reconnecting), limit_warning, webhook_disabled (a webhook endpoint disabled after about a day of failed deliveries), approval_requested (a post awaits an approver), post_approved or post_rejected (the decision of an approver; a rejection carries the comment and names the author).',
      ),
    message: z.string(),
    postId: z.string().nullable(),
    integration: z.string().nullable().describe('The channel ID, when the notification is about one.'),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const listNotificationsQuery = z.object({
  page: z.coerce.number().int().min(0).max(LAST_PAGE).default(0).describe('Page number, from zero (at most 499).'),
});

export const notificationPageSchema = z
  .object({
    notifications: z.array(notificationSchema),
    page: wholeNumber(0, LAST_PAGE),
    pageSize: wholeNumber(1, 100),
    hasMore: z.boolean(),
  })
  .meta({ id: 'NotificationPage' });
