import * as z from 'zod';

/**
 * A whole number between `min` and `max`. Zod documents a bare integer as ±2^53 (the range of
 * safe integers), which tells a client nothing: every integer in the API says its real bounds.
 */
export function wholeNumber(min: number, max: number) {
  return z.int().min(min).max(max);
}

/** A count of things (posts, files, pages): from 0, with no upper bound but the number type's own. */
export function count() {
  return z.int().min(0).meta({ maximum: undefined });
}

/** Every error body: `{msg}` for business rules, `{statusCode, message, error}` for request validation. */
export const apiErrorSchema = z
  .looseObject({
    msg: z.string().optional().describe('Business-rule errors: a sentence for a person.'),
    code: z.string().optional().describe('Business-rule errors: a stable machine-readable code.'),
    statusCode: wholeNumber(400, 599).optional().describe('Validation errors: the HTTP status.'),
    message: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Validation errors: what is wrong, one entry per problem.'),
    error: z.string().optional().describe('Validation errors: the HTTP reason phrase.'),
  })
  .meta({
    id: 'ApiError',
    description:
      "An error. Business-rule errors carry `msg` (and `code`); request-validation errors carry `statusCode`, `message` and `error`. A 403 also names the missing `scope` and the owner's `role`.",
  });

/** The error answers every authenticated route may give, for the OpenAPI document. */
export const authErrors = {
  400: apiErrorSchema,
  401: apiErrorSchema,
  403: apiErrorSchema,
  429: apiErrorSchema,
} as const;

/** Those of a route that names an object of the workspace (404: not there, or another workspace's). */
export const notFoundErrors = { ...authErrors, 404: apiErrorSchema } as const;

/** Those of a route that changes an object which may be in a state that refuses the change (409). */
export const conflictErrors = { ...notFoundErrors, 409: apiErrorSchema } as const;

export const showorgHeader = z.looseObject({
  showorg: z
    .string()
    .optional()
    .describe('The workspace to act on. Required when the key spans several workspaces (list them with GET /workspaces).'),
});

/** The headers of a request that takes an Idempotency-Key (POST /posts, PATCH and PUT /posts/:id, POST /series, POST /imports, an approver's decision). */
export const idempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'Makes a retried call safe: the same key with the same body (and path) returns the first answer and does nothing again; with another body it is a 400. Keys are per workspace (any key of the workspace that may make the request gets the first answer; every permission check runs before an answer is replayed) and kept 48 hours, after which the key is free again. While the first request runs, a retry waits up to 5 seconds, then gets 409 `idempotency_in_progress`; a request the server never finished (it stopped mid-way, and nothing was written) releases its key after 2 minutes, and a retry then redoes it.',
    ),
  showorg: z.string().optional().describe('The workspace to act on, when the key spans several.'),
});
