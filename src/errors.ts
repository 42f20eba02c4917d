/**
 * The one error type services throw. `message` is public and reaches the user as `{msg}`;
 * `cause` is internal and goes to the log only. `details` are extra public fields.
 */
export class AppError extends Error {
  override name = 'AppError';
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    options: { cause?: unknown; details?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
}

type Options = ConstructorParameters<typeof AppError>[3];

/** An AppError class for one status, carrying `code` unless the thrower names another. */
function statusError(statusCode: number, code: string) {
  return class extends AppError {
    constructor(message: string, options?: Options & { code?: string }) {
      super(statusCode, options?.code ?? code, message, options);
    }
  };
}

export class BadRequestError extends statusError(400, 'bad_request') {}

export class UnauthorizedError extends statusError(401, 'unauthorized') {}

export class PaymentRequiredError extends statusError(402, 'plan_limit') {}

export class ForbiddenError extends statusError(403, 'forbidden') {}

/** Also the answer for another workspace's object: the two must be indistinguishable. */
export class NotFoundError extends statusError(404, 'not_found') {
  constructor(message = 'Not found.', options?: Options & { code?: string }) {
    super(message, options);
  }
}

export class ConflictError extends statusError(409, 'conflict') {}
