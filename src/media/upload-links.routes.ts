import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { createUploadLink, getUploadLink } from './upload-links.operations.ts';

export const uploadLinksRoutes: FastifyPluginAsyncZod = async (app) => {
  operationRoute(app, createUploadLink);
  operationRoute(app, getUploadLink);
};
