import type { FastifyServerOptions } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/**
 * Fastify's `schemaController` option naming the Zod compilers, which every route's schemas
 * are written for. Without it, Fastify loads Ajv and its JSON-schema serializer compiler at
 * start-up (a tenth of the start), only for `setValidatorCompiler` to replace them.
 */
export const zodSchemaController = {
  compilersFactory: { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as CompilersFactory,
};
