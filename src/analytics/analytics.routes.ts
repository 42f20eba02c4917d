import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { getAnalyticsSummary, getChannelAnalytics, getChannelSeries, getPostAnalytics, getPostSeries } from './analytics.operations.ts';

export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, getAnalyticsSummary);
  operationRoute(app, getPostAnalytics);
  operationRoute(app, getChannelAnalytics);
  operationRoute(app, getPostSeries);
  operationRoute(app, getChannelSeries);
};
