import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import {
  clearChannelSchedule,
  findSlot,
  getChannelSchedule,
  getDefaultSchedule,
  setChannelSchedule,
  setDefaultSchedule,
} from './schedules.operations.ts';

/** Posting schedules and the next free slot. */
export const schedulesRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, getDefaultSchedule);
  operationRoute(app, setDefaultSchedule);
  operationRoute(app, getChannelSchedule);
  operationRoute(app, setChannelSchedule);
  operationRoute(app, clearChannelSchedule);
  operationRoute(app, findSlot);
};
