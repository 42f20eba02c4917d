import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { createImport, getImport } from './imports.operations.ts';

/** Bulk import of posts. */
export const importsRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, createImport);
  operationRoute(app, getImport);
};
