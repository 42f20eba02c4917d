import * as z from 'zod';
import { wholeNumber } from '../http/common.schema.ts';
import { LAST_PAGE, NOTIFICATION_KINDS, UNREAD_LIMIT } from './notifications.service.ts';

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
    unread: z
      .boolean()
      .optional()
      .describe("In GET /notifications: true when it is newer than the member's read marker (POST /notifications/read)."),
  })
  .meta({ id: 'Notification' });

const unreadCount = wholeNumber(0, UNREAD_LIMIT).describe(
  `How many notifications the member has not read (newer than their read marker, or all without one), counted up to ${UNREAD_LIMIT}: ${UNREAD_LIMIT} means ${UNREAD_LIMIT} or more.`,
);

export const listNotificationsQuery = z.object({
  page: z.coerce.number().int().min(0).max(LAST_PAGE).default(0).describe('Page number, from zero (at most 499).'),
});

export const notificationPageSchema = z
  .object({
    notifications: z.array(notificationSchema),
    page: wholeNumber(0, LAST_PAGE),
    pageSize: wholeNumber(1, 100),
    hasMore: z.boolean(),
    unreadCount,
  })
  .meta({ id: 'NotificationPage' });

export const markReadBody = z
  .object({
    until: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('The newest notification read (its id): it and every one before it are read. Left out: up to the newest.'),
  })
  .strict()
  .default({});

export const markReadResult = z
  .object({
    unreadCount,
    readUntil: z.string().nullable().describe("The member's read marker now (a notification id); null when they have read none."),
  })
  .meta({ id: 'NotificationsRead' });
