import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { listGroups } from './groups.operations.ts';

export const groupsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, listGroups);
};
