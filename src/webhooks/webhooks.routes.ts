import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import * as ops from './webhooks.operations.ts';

export const webhooksRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, ops.createWebhook);
  operationRoute(app, ops.listWebhooks);
  operationRoute(app, ops.getWebhook);
  operationRoute(app, ops.updateWebhook);
  operationRoute(app, ops.deleteWebhook);
  operationRoute(app, ops.rotateWebhookSecret);
  operationRoute(app, ops.testWebhook);
  operationRoute(app, ops.listWebhookDeliveries);
  operationRoute(app, ops.redeliverWebhook);
  operationRoute(app, ops.replayWebhookFailures);
};
