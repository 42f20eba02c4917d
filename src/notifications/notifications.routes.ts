import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authErrors, showorgHeader } from '../http/common.schema.ts';
import { listNotificationsQuery, notificationPageSchema } from './notifications.schema.ts';

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
        querystring: listNotificationsQuery,
        response: { 200: notificationPageSchema, ...authErrors },
      },
    },
    async (request) => app.services.notifications.list(request.access!, request.query.page),
  );
};
