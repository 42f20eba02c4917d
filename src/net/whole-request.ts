import type { Dispatcher } from 'undici';

/**
 * The time limit of one `OutboundClient.request` call, across its redirects, with the caller's
 * signal if it gave one: a timer and a callback rather than an AbortController and the signal
 * listeners undici would add for each hop.
 */
export class CallLimit {
  aborted = false;
  reason: unknown = undefined;
  /** What aborting does right now: aborts the hop in flight (set by `dispatchWhole`). */
  onAbort: ((reason: unknown) => void) | null = null;
  readonly #timer: NodeJS.Timeout;
  readonly #signal: AbortSignal | undefined;
  readonly #listener = () => this.abort(this.#signal!.reason);

  constructor(ms: number, signal?: AbortSignal) {
    this.#timer = setTimeout(() => this.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
    this.#signal = signal;
    if (signal?.aborted) this.abort(signal.reason);
    else signal?.addEventListener('abort', this.#listener, { once: true });
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    // As AbortController.abort(): no reason means an AbortError.
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    this.onAbort?.(this.reason);
  }

  /** The call is over: its timer and listener go. */
  clear(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener('abort', this.#listener);
  }
}

const asError = (reason: unknown): Error => (reason instanceof Error ? reason : new Error(String(reason)));

/** An answer read whole: its body is null when it passed the limit or the connection failed while it was read. */
export type WholeAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer | null };

/**
 * Sends one request on `dispatcher` and reads the answer whole, at most `bodyLimit` bytes (the
 * request is aborted as soon as a declared or received size passes it). Rejects with the limit's
 * reason once it is aborted before an answer, and with `failure(error)` for any other error before
 * an answer; once the headers are in, a failure leaves the body null. Undici's dispatcher API
 * without the response stream, promise and signal plumbing of its `request()`.
 */
export function dispatchWhole(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limit: CallLimit,
  bodyLimit: number,
  failure: (error: Error) => unknown,
): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let answer: WholeAnswer | null = null;
    let chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: WholeAnswer | null, error?: unknown) => {
      if (settled) return;
      settled = true;
      limit.onAbort = null;
      chunks = [];
      if (result) resolve(result);
      else reject(error);
    };
    // Aborted while waiting for a connection: the call ends now; the request is dropped when it reaches one.
    limit.onAbort = (reason) => settle(null, reason);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(controller) {
        if (limit.aborted || settled) return controller.abort(asError(limit.reason ?? new Error('The call is over.')));
        limit.onAbort = (reason) => {
          controller.abort(asError(reason));
          // The answer so far stands with no body (the abort's own error may come later, or not at all).
          settle(answer && { ...answer, body: null }, reason);
        };
      },
      onResponseStart(controller, statusCode, headers) {
        if (statusCode < 200) return;
        answer = { status: statusCode, headers, body: null };
        const declared = Number(headers['content-length']);
        if (Number.isFinite(declared) && declared > bodyLimit) {
          settle(answer);
          controller.abort(new Error('The answer is larger than the limit.'));
        }
      },
      onResponseData(controller, chunk) {
        if (settled) return;
        size += chunk.byteLength;
        if (size > bodyLimit) {
          settle(answer);
          controller.abort(new Error('The answer is larger than the limit.'));
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        if (!answer) return settle(null, failure(new Error('The connection ended without an answer.')));
        settle({ ...answer, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
      },
      onResponseError(_controller, error) {
        if (answer) settle(answer);
        else settle(null, limit.aborted ? limit.reason : failure(error));
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      settle(null, failure(asError(error)));
    }
  });
}
