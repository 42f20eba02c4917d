import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { operationRoute } from '../http/operation-route.ts';
import { createImport, getImport } from './imports.operations.ts';
import { importUploadBody } from './imports.schema.ts';
import { readImportUpload } from './imports.upload.ts';

/** Bulk import of posts: JSON, or a CSV file sent as multipart/form-data. */
export const importsRoutes: FastifyPluginAsyncZod = async (app) => {
  await app.register(multipart);
  operationRoute(app, createImport, {
    preValidation: async (request) => {
      if (request.isMultipart()) request.body = await readImportUpload(request);
    },
    multipartBody: importUploadBody,
  });
  operationRoute(app, getImport);
};
