import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { createSeries, deleteSeries, getSeries, listSeries, updateSeries } from './series.operations.ts';

/** Recurring posts. */
export const seriesRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, createSeries);
  operationRoute(app, listSeries);
  operationRoute(app, getSeries);
  operationRoute(app, updateSeries);
  operationRoute(app, deleteSeries);
};
