import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authErrors, showorgHeader, wholeNumber } from '../http/common.schema.ts';
import { LAST_PAGE, NOTIFICATION_KINDS } from './notifications.service.ts';

const notificationSchema = z
  .object({
    id: z.string(),
    type: z.enum(NOTIFICATION_KINDS).describe('publish_failed, comment_failed, publish_confirmed (a post or comment reported as failed with an unknown outcome turned out published), channel_disconnected (needs reconnecting) or limit_warning.'),
    message: z.string(),
    postId: z.string().nullable(),
    integration: z.string().nullable().describe('The channel ID, when the notification is about one.'),
    createdAt: z.string(),
  })
  .meta({ id: 'Notification' });

export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/notifications',
    {
      config: { scope: 'posts:read' },
      schema: {
        tags: ['Notifications'],
        summary: 'List notifications, newest first',
        description:
          'Failed publishing (naming the post and the platform\'s reason), channels that need reconnecting, and plan limits close to their end. Pages of 20, from page 0 to page 499: the newest 10,000 notifications. A key limited to some channels sees those channels\' notifications and the workspace-wide ones.',
        headers: showorgHeader,
        querystring: z.object({ page: z.coerce.number().int().min(0).max(LAST_PAGE).default(0).describe('Page number, from zero (at most 499).') }),
        response: {
          200: z.object({ notifications: z.array(notificationSchema), page: wholeNumber(0, LAST_PAGE), pageSize: wholeNumber(1, 100), hasMore: z.boolean() }).meta({ id: 'NotificationPage' }),
          ...authErrors,
        },
      },
    },
    async (request) => app.services.notifications.list(request.access!.workspace.id, request.query.page, request.access!.channelIds),
  );
};
