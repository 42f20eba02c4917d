import { createRequire } from 'node:module';
import type { FastifySchemaCompiler, FastifySerializerCompiler, FastifyServerOptions } from 'fastify';
import { serializerCompiler as zodSerializerCompiler, validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import * as z from 'zod';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type JsonSchema = Record<string, unknown>;
type Stringify = (data: unknown) => string;

/** What a compiled serializer may meet; any other keyword leaves the route to Zod. */
const SERIALIZED_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'nullable']);
/** Keywords that only restrict values (the types guarantee them) or only document them. */
const IGNORED_KEYWORDS = new Set([
  '$schema',
  'description',
  'title',
  'examples',
  'deprecated',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

/**
 * A JSON Schema limited to what a compiled serializer writes exactly as JSON.stringify would
 * write Zod's parsed output (typed properties in schema order, unknown ones left out, `null`
 * where allowed), or null when the schema needs more (unions, defaults, references…).
 * `anyOf: [X, {type: "null"}]`, Zod's nullable, becomes X with `nullable: true`.
 */
function serializable(schema: unknown): JsonSchema | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return null;
  let source = schema as JsonSchema;
  if (Array.isArray(source.anyOf)) {
    const [first, second, ...rest] = source.anyOf as JsonSchema[];
    const isNull = (s: JsonSchema | undefined) => s?.type === 'null' && Object.keys(s).length === 1;
    if (rest.length > 0 || !first || !second || !isNull(second) || isNull(first)) return null;
    const { anyOf: _, ...others } = source;
    source = { ...others, ...first, nullable: true };
  }
  const out: JsonSchema = {};
  for (const [keyword, value] of Object.entries(source)) {
    if (IGNORED_KEYWORDS.has(keyword)) {
      if (keyword === 'format') out.format = value;
      continue;
    }
    if (!SERIALIZED_KEYWORDS.has(keyword)) return null;
    if (keyword === 'properties') {
      const properties: JsonSchema = {};
      for (const [name, property] of Object.entries(value as JsonSchema)) {
        const converted = serializable(property);
        if (!converted) return null;
        properties[name] = converted;
      }
      out.properties = properties;
    } else if (keyword === 'items' || (keyword === 'additionalProperties' && typeof value === 'object')) {
      const converted = serializable(value);
      if (!converted) return null;
      out[keyword] = converted;
    } else {
      out[keyword] = value;
    }
  }
  // A string format makes the compiled serializer format Date objects; the output is a plain string.
  if (out.format !== undefined && out.type !== 'string') return null;
  delete out.format;
  return out;
}

let stringifyBuilder: ((schema: JsonSchema) => Stringify) | undefined;
/** fast-json-stringify (and the Ajv it brings) is loaded with the first answer it compiles, not at start-up. */
function buildStringify(schema: JsonSchema): Stringify {
  stringifyBuilder ??= createRequire(import.meta.url)('fast-json-stringify') as (schema: JsonSchema) => Stringify;
  return stringifyBuilder(schema);
}

/**
 * Answers are written by a serializer compiled from the route's Zod schema (through its JSON
 * Schema, by fast-json-stringify) rather than validated by Zod on every reply: the schema still
 * decides every field that goes out, in its order, and drops the rest. Each route's serializer
 * is built the first time it answers, so start-up builds none. Schemas a compiled serializer
 * cannot reproduce exactly (unions, transforms, defaults), and error answers, stay with Zod.
 */
export const serializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const byZod = (zodSerializerCompiler as FastifySerializerCompiler<unknown>)(route);
  const status = Number(route.httpStatus);
  if (!(status >= 200 && status < 300)) return byZod;
  let serialize: Stringify | undefined;
  return (data) => {
    if (!serialize) {
      const schema = route.schema as z.ZodType | { properties: z.ZodType };
      serialize = compileStringify(schema instanceof z.ZodType ? schema : schema.properties) ?? byZod;
    }
    return serialize(data);
  };
};

/**
 * A serializer compiled from a Zod schema (through its JSON Schema, by fast-json-stringify) that
 * writes what `JSON.stringify` would write of Zod's parsed output; null when the schema needs Zod
 * itself (a transform, a date, a cycle, a union).
 */
export function compileStringify(zod: z.ZodType): Stringify | null {
  try {
    const json = serializable(
      z.toJSONSchema(zod, {
        io: 'output',
        target: 'draft-7',
        unrepresentable: 'throw',
        reused: 'inline',
        cycles: 'throw',
        metadata: z.registry(),
      }),
    );
    return json ? buildStringify(json) : null;
  } catch {
    return null;
  }
}

type ZodDef = {
  type: string;
  shape?: Record<string, { _zod: { def: ZodDef } }>;
  catchall?: { _zod: { def: ZodDef } };
  innerType?: { _zod: { def: ZodDef } };
  checks?: unknown[];
};

/**
 * The header names of a headers schema that is an open object of optional plain strings (no
 * length or pattern checks), like the `showorg` header every authenticated route takes; null
 * for any other schema.
 */
function plainOptionalHeaders(schema: unknown): string[] | null {
  if (!(schema instanceof z.ZodType)) return null;
  const def = (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
  if (def.type !== 'object' || !def.shape || def.catchall?._zod.def.type !== 'unknown') return null;
  const names = Object.keys(def.shape);
  for (const name of names) {
    const property = def.shape[name]!._zod.def;
    const inner = property.type === 'optional' ? property.innerType?._zod.def : undefined;
    if (inner?.type !== 'string' || (inner.checks?.length ?? 0) > 0) return null;
  }
  return names;
}

/**
 * Zod's validators, except for headers schemas of optional plain strings: Zod would copy every
 * header of every request into a new object (several microseconds) to find what a look at the
 * named headers tells, and Fastify, given that object, would copy the headers again on every
 * later read of `request.headers`. When one of them is not a string, Zod checks the headers and words the 400.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const byZod = (zodValidatorCompiler as FastifySchemaCompiler<z.ZodType>)(route);
  const names = route.httpPart === 'headers' ? plainOptionalHeaders(route.schema) : null;
  if (!names) return byZod;
  return (data) => {
    const headers = data as Record<string, unknown>;
    for (const name of names) {
      const value = headers[name];
      if (value !== undefined && typeof value !== 'string') return byZod(data);
    }
    // Valid, and nothing to replace: Fastify would otherwise copy the headers on every later read.
    return true;
  };
};

/**
 * Fastify's `schemaController` option naming the Zod compilers, which every route's schemas
 * are written for. Without it, Fastify loads Ajv and its JSON-schema serializer compiler at
 * start-up (a tenth of the start), only for `setValidatorCompiler` to replace them.
 */
export const zodSchemaController = {
  compilersFactory: { buildValidator: () => validatorCompiler, buildSerializer: () => serializerCompiler } as unknown as CompilersFactory,
};
