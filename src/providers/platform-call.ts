import { noAnswerReason, wasNotSent, type AnswerHeaders, type OutboundAnswer } from '../net/outbound.ts';
import { ProviderError, type ProviderContext, type ProviderFailureKind, type PublishMedia } from './provider.ts';

/** A platform's answer, read whole (bounded). */
export type PlatformAnswer = { status: number; headers: AnswerHeaders; text: string; json: unknown };

/** What one platform peculiarly reads in a refusal; every field is optional. */
export type ErrorReading = {
  /** The platform's reason, shown after "<platform> answered <status>: ". */
  reason?: string | undefined;
  /** The whole message instead, for platforms that word their refusals themselves. */
  message?: string | undefined;
  /** The kind, when it is not the status's usual one (e.g. X's duplicate text, Slack's `ok:false` codes). */
  kind?: ProviderFailureKind | undefined;
  /** The platform's wait hint, when it is not (only) in `Retry-After`. */
  retryAfterMs?: number | undefined;
  /** The status to report, when the platform says it in the body (Telegram's `error_code`). */
  status?: number | undefined;
};

/** How one platform reads its error answers: Telegram's `migrate_to_chat_id`, X's duplicate text… */
export type ErrorReader = (answer: PlatformAnswer) => ErrorReading;

/** A platform's API as the one call sees it: how messages name it, and what it reads in its own answers. */
export type Platform = {
  /** Who answers, as messages name it: "X", "The instance", "The webhook receiver". */
  name: string;
  /** Statuses besides 401 that mean the credentials or the account, not the request, are the problem. */
  authStatuses?: readonly number[];
  readError?: ErrorReader;
  /** Whether an answer is a success (default any 2xx; Slack and Telegram answer 200 with `ok: false`). */
  succeeded?: (answer: PlatformAnswer) => boolean;
  /** A secret that may stand in URLs (Telegram's bot token): never in a message, and no cause is kept. */
  secret?: string;
  /** The message when the outbound policy refused the address (default "<name> was not called. <why>"). */
  notCalled?: (reason: string) => string;
  /** The message when the platform could not be reached (default "<name> could not be reached: <why>"). */
  unreachable?: (reason: string) => string;
  /** What may have happened when a write lost its answer (default "the request may or may not have been applied"). */
  outcome?: string;
  /** Headers every call carries (a user agent, `accept`). */
  headers?: Readonly<Record<string, string>>;
  /** The whole-request time limit (default the outbound client's). */
  timeoutMs?: number;
  /** The largest answer read (default 1 MiB). */
  limit?: number;
};

export type PlatformRequest = {
  method?: string;
  token?: string | undefined;
  headers?: Record<string, string>;
  /** A JSON body, form fields (application/x-www-form-urlencoded), multipart form data, or a body sent as given. */
  json?: unknown;
  form?: Record<string, string>;
  multipart?: FormData;
  body?: Uint8Array | string;
  contentType?: string;
  /** Whether a lost answer may mean the call was applied (a post, not an upload or a read). */
  write?: boolean;
  timeoutMs?: number;
};

/** The headers of a JSON API that wants to know who calls. */
export const JSON_API_HEADERS: Readonly<Record<string, string>> = { accept: 'application/json', 'user-agent': 'Herald' };

const ANSWER_LIMIT = 1024 * 1024;

/** The usual failure kind of an HTTP status: 429 rate-limited, 5xx transient, 401 (and `authStatuses`) credentials, else refused. */
export function failureKind(status: number, authStatuses: readonly number[] = []): ProviderFailureKind {
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'transient';
  if (status === 401 || authStatuses.includes(status)) return 'auth';
  return 'rejected';
}

/** The outbound client's refusals: the address or URL, never the platform, is the problem. */
function isRefusal(error: unknown): boolean {
  for (
    let e = error as { code?: string; cause?: unknown } | null | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (e.code === 'outbound_refused' || e.code === 'invalid_url' || e.code === 'port_refused') return true;
  }
  return false;
}

/** `text` with the platform's secret, if it has one, replaced. */
function conceal(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('<token>') : text;
}

/**
 * What happened before an answer, for every platform: a refused address is a rejection (never a
 * credential problem), a request that certainly never left is transient, and anything else (a
 * timeout after sending, a reset) is an unknown outcome for a write and transient for the rest.
 */
export function noAnswerFailure(
  error: unknown,
  platform: Pick<Platform, 'name' | 'secret' | 'notCalled' | 'unreachable' | 'outcome'>,
  write: boolean,
): ProviderError {
  if (error instanceof ProviderError) return error;
  const why = conceal(noAnswerReason(error), platform.secret);
  const cause = platform.secret ? {} : { cause: error };
  if (isRefusal(error))
    return new ProviderError('rejected', platform.notCalled?.(why) ?? `${platform.name} was not called. ${why}`, {
      ...cause,
      noAnswer: { kind: 'policy', reason: why },
    });
  const noAnswer = { kind: 'unreachable', reason: why } as const;
  if (wasNotSent(error) || !write)
    return new ProviderError('transient', platform.unreachable?.(why) ?? `${platform.name} could not be reached: ${why}`, {
      ...cause,
      noAnswer,
    });
  return new ProviderError(
    'unknown_outcome',
    `${platform.name} did not answer in time; ${platform.outcome ?? 'the request may or may not have been applied'}.`,
    { ...cause, noAnswer },
  );
}

/**
 * What went wrong with a call to a platform, in the terms a person acts on; one reading for every
 * provider. `policy`: Herald's outbound policy refused the address, nothing was sent.
 * `unreachable`: no answer (refused connection, unknown name, timeout). `credentials`: the platform
 * refused the credentials (401, or its own statuses for them). `rate_limited`: it asks to wait.
 * `answered`: it answered with another error (`status`). `refused`: the provider's own verdict on
 * what the platform said (a bot that is not in the chat); `failed`: anything else that stopped it.
 */
export type CallFailure =
  | { cause: 'policy' | 'unreachable'; reason: string }
  | { cause: 'credentials' | 'rate_limited' }
  | { cause: 'answered'; status: number }
  | { cause: 'refused' | 'failed' };

export function callFailure(error: ProviderError): CallFailure {
  const { noAnswer, status } = error.options;
  if (noAnswer) return { cause: noAnswer.kind, reason: noAnswer.reason };
  if (error.kind === 'auth') return { cause: 'credentials' };
  if (error.kind === 'rate_limited') return { cause: 'rate_limited' };
  if (status !== undefined) return { cause: 'answered', status };
  return { cause: error.kind === 'rejected' ? 'refused' : 'failed' };
}

/** "<platform> answered <status>: <reason>", the usual wording of a refusal. */
export function answered(name: string, status: number, reason?: string): string {
  return `${name} answered ${status}${reason ? `: ${reason}` : ''}`;
}

/** Maps an answer that is not a success to the engine's failure kinds, with the platform's own reading. */
export function answerFailure(
  answer: PlatformAnswer,
  platform: Pick<Platform, 'name' | 'authStatuses' | 'readError' | 'secret'>,
): ProviderError {
  const read = platform.readError?.(answer) ?? {};
  const status = read.status ?? answer.status;
  const message = read.message ?? answered(platform.name, status, read.reason);
  const retry = read.retryAfterMs ?? retryAfterMs(answer.headers.get('retry-after'));
  return new ProviderError(read.kind ?? failureKind(status, platform.authStatuses), conceal(message, platform.secret), {
    status,
    ...(retry !== undefined && { retryAfterMs: retry }),
  });
}

/**
 * One request to a platform's API through the guarded client, answered or mapped to the
 * engine's failure kinds: before an answer as `noAnswerFailure` says, after it by status
 * (`failureKind`), with the wait the platform asks for (`Retry-After`, or its own reading).
 */
export async function callPlatform(
  ctx: Pick<ProviderContext, 'outbound' | 'signal'>,
  platform: Platform,
  url: string,
  request: PlatformRequest = {},
): Promise<PlatformAnswer> {
  const headers: Record<string, string> = { ...platform.headers, ...request.headers };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  let body: string | Uint8Array | undefined;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] = request.contentType ?? 'application/json';
  } else if (request.form) {
    body = new URLSearchParams(request.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  } else if (request.multipart) {
    ({ body, contentType: headers['content-type'] } = await multipartBody(request.multipart));
  } else if (request.body !== undefined) {
    body = request.body;
    headers['content-type'] = request.contentType ?? 'application/octet-stream';
  }
  const timeoutMs = request.timeoutMs ?? platform.timeoutMs;
  let response: OutboundAnswer;
  try {
    response = await ctx.outbound.request(url, {
      method: request.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      ...(body !== undefined && { body }),
      maxRedirects: 0,
      limit: platform.limit ?? ANSWER_LIMIT,
      ...(timeoutMs !== undefined && { timeoutMs }),
      ...(ctx.signal && { signal: ctx.signal }),
    });
  } catch (error) {
    throw noAnswerFailure(error, platform, request.write ?? false);
  }
  const text = response.body?.toString('utf8') ?? '';
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const answer = { status: response.status, headers: response.headers, text, json };
  const ok = platform.succeeded ? platform.succeeded(answer) : answer.status >= 200 && answer.status < 300;
  if (ok) return answer;
  throw answerFailure(answer, platform);
}

/** Seconds (possibly fractional) from a JSON field or a Retry-After header, as milliseconds. */
export function retryAfterMs(...candidates: unknown[]): number | undefined {
  for (const value of candidates) {
    const seconds = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  }
  return undefined;
}

/** Milliseconds from `now` until an HTTP date or ISO instant (a rate-limit reset), never negative; undefined when it is not one. */
export function msUntil(instant: string | null | undefined, now = Date.now()): number | undefined {
  if (!instant) return undefined;
  const at = Date.parse(instant);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Reads a media file's bytes (or the inclusive `range` of them); a library that cannot be read now is a transient failure. */
export async function readMedia(item: PublishMedia, range?: { start: number; end: number }): Promise<Buffer> {
  try {
    return await (range ? item.read(range) : item.read());
  } catch (error) {
    throw new ProviderError('transient', `Could not read ${item.name} from the media library: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** A multipart/form-data body as bytes and its content type (with the boundary). */
export async function multipartBody(form: FormData): Promise<{ body: Uint8Array; contentType: string }> {
  const encoded = new Response(form);
  return { body: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}
