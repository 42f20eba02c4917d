import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { operationRoute } from '../http/operation-route.ts';
import { listNotifications } from './notifications.operations.ts';
import { markReadBody, markReadResult } from './notifications.schema.ts';

export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, listNotifications);

  app.post(
    '/notifications/read',
    {
      config: { scope: 'posts:read' },
      // No body at all reads as `{}`: every field is optional.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags: ['Notifications'],
        summary: 'Mark notifications read',
        description:
          "Moves the member's read marker in this workspace to `until` (a notification's id) or, without it, to the newest notification they see. The marker belongs to the member (the owner of the key, token or session), so every browser and client of theirs counts the same unread notifications (`unreadCount` in GET /notifications); it only moves forwards, so marking an older one read changes nothing. An id the request cannot see is a 404.",
        headers: showorgHeader,
        body: markReadBody,
        response: { 200: markReadResult, ...authErrors, 404: apiErrorSchema },
      },
    },
    async (request) => app.services.notifications.markRead(request.access!, request.body.until),
  );
};
