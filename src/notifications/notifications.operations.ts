import { authErrors } from '../http/common.schema.ts';
import { listSummary, operation, READ_ONLY } from '../operations/operation.ts';
import { listNotificationsQuery, notificationPageSchema } from './notifications.schema.ts';

export const listNotifications = operation({
  name: 'list_notifications',
  scope: 'posts:read',
  query: listNotificationsQuery,
  call: (services, access, { page }) => services.notifications.list(access, page),
  rest: {
    method: 'GET',
    url: '/notifications',
    tags: ['Notifications'],
    summary: 'List notifications, newest first',
    description:
      "Failed publishing (naming the post and the platform's reason), channels that need reconnecting, and plan limits close to their end. Pages of 20, from page 0 to page 499: the newest 10,000 notifications. A key limited to some channels sees those channels' notifications and the workspace-wide ones. `unreadCount` and each notification's `unread` follow the member's read marker, which POST /notifications/read moves.",
    response: notificationPageSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'List notifications',
    description:
      "Failed publishing (with the platform's reason), channels that need reconnecting and plan limits close to their end, newest first, 20 a page.",
    annotations: READ_ONLY,
    output: notificationPageSchema,
    summary: (o) =>
      listSummary(o.notifications, 'notification', (n) => `${n.type}: ${n.message}`, o.hasMore ? ' (more on the next page)' : '', ' | '),
  },
});
