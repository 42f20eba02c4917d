import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { listNotifications } from './notifications.operations.ts';

export const notificationsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, listNotifications);
};
