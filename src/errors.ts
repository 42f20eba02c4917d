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

export class BadRequestError extends AppError {
  constructor(message: string, options?: Options & { code?: string }) {
    super(400, options?.code ?? 'bad_request', message, options);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message: string, options?: Options & { code?: string }) {
    super(401, options?.code ?? 'unauthorized', message, options);
  }
}

export class PaymentRequiredError extends AppError {
  constructor(message: string, options?: Options & { code?: string }) {
    super(402, options?.code ?? 'plan_limit', message, options);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, options?: Options & { code?: string }) {
    super(403, options?.code ?? 'forbidden', message, options);
  }
}

/** Also the answer for another workspace's object: the two must be indistinguishable. */
export class NotFoundError extends AppError {
  constructor(message = 'Not found.', options?: Options & { code?: string }) {
    super(404, options?.code ?? 'not_found', message, options);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, options?: Options & { code?: string }) {
    super(409, options?.code ?? 'conflict', message, options);
  }
}
