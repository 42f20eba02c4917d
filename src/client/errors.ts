/**
 * How the user command ends. Scripts can tell a mistake in the command line from a refusal by
 * the API and from a server or network failure (worth retrying later).
 */
export const EXIT = {
  ok: 0,
  /** A bug or an unexpected error in the command itself. */
  internal: 1,
  /** The command line or its input is wrong (unknown option, bad date, missing file, unknown channel). */
  usage: 2,
  /** The API refused the request (a 4xx answer): credential, permission, validation, not found. */
  refused: 3,
  /** The server failed (5xx) or could not be reached. */
  failed: 4,
} as const;

/** A mistake in the command line or its input; the message says what to do instead. */
export class UsageError extends Error {
  readonly exitCode = EXIT.usage;
}

/** An error answer of the API, with its own sentence and its exact body. */
export class ApiRefusal extends Error {
  readonly exitCode: number;
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(errorSentence(status, body));
    this.exitCode = status >= 500 ? EXIT.failed : EXIT.refused;
  }
}

/** The server could not be reached or did not answer. */
export class NetworkFailure extends Error {
  readonly exitCode = EXIT.failed;
}

/** The API's own sentence: `msg` for a business rule, `message` for a validation error. */
function errorSentence(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as { msg?: unknown; message?: unknown };
    if (typeof b.msg === 'string' && b.msg) return b.msg;
    if (Array.isArray(b.message)) return b.message.join('; ');
    if (typeof b.message === 'string' && b.message) return b.message;
  }
  return `the server answered HTTP ${status}`;
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError || error instanceof ApiRefusal || error instanceof NetworkFailure) return error.exitCode;
  return EXIT.internal;
}
