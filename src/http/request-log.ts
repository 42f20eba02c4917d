import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Bindings, Level, Logger } from 'pino';
import { jsonMembers, jsonString, lineWriter, type LineWriter } from '../lib/log-line.ts';
import './route-config.ts';

/**
 * What the authorization server takes in a query that must not be written: a device's user code,
 * a client's state, codes, tokens, hints and request objects. Its other parameters (client id,
 * redirect URI, scope) are what a failed authorization is diagnosed by.
 */
const OAUTH_SECRET_PARAMETERS: ReadonlySet<string> = new Set([
  'user_code',
  'state',
  'code',
  'code_verifier',
  'device_code',
  'token',
  'access_token',
  'refresh_token',
  'client_secret',
  'client_assertion',
  'id_token_hint',
  'login_hint',
  'request',
  'request_uri',
]);

function parameterName(part: string, eq: number): string {
  const name = eq >= 0 ? part.slice(0, eq) : part;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** A query's values replaced by `[secret]` (only those of `names` when given), its names kept: `?email=[secret]&code=[secret]`. */
function queryValuesHidden(url: string, names?: ReadonlySet<string>): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const parts = url
    .slice(start + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (!part || (names && !names.has(parameterName(part, eq)))) return part;
      return eq >= 0 ? `${part.slice(0, eq)}=[secret]` : '[secret]';
    });
  return `${url.slice(0, start)}?${parts.join('&')}`;
}

/**
 * A URL as the log shows it, without the secrets a few URLs carry: an upload link's token
 * (`/u/…`), a one-time sign-in link's (`/account/link/…`), the mailed sign-in code and whatever
 * a page's `next` holds (every query under `/account/`), a platform's authorization code and
 * state (every query under `/integrations/callback/`), and the authorization server's (a
 * device's user code, a client's state, hints: see OAUTH_SECRET_PARAMETERS). Library files (`/media/…`) and short
 * links (`/s/…`) are public addresses, sent to platforms and published: they are kept.
 *
 * Those URLs are told apart by their second character, so any other request's line pays for one
 * comparison.
 */
export function urlForLog(url: string): string {
  switch (url.charCodeAt(1)) {
    case 0x75: // u
      return url.startsWith('/u/') ? url.replace(/^\/u\/[^/?]+/, '/u/[secret]') : url;
    case 0x61: // a
      return url.startsWith('/account/') ? queryValuesHidden(url.replace(/^\/account\/link\/[^/?]+/, '/account/link/[secret]')) : url;
    case 0x69: // i
      return url.startsWith('/integrations/callback/') ? queryValuesHidden(url) : url;
    case 0x6f: // o
      return url.startsWith('/oauth/') ? queryValuesHidden(url, OAUTH_SECRET_PARAMETERS) : url;
    default:
      return url;
  }
}

/** What the log shows of a request: method, URL (without its secrets: see urlForLog), client address, and the key that made it when there is one. */
export function requestForLog(request: FastifyRequest) {
  const line: { method: string; url: string; remoteAddress: string; keyId?: string } = {
    method: request.method,
    url: urlForLog(request.url),
    remoteAddress: request.ip,
  };
  if (request.principal) line.keyId = request.principal.keyId;
  return line;
}

/** `requestForLog(request)` as JSON: the request log's line writes it for every request, and this is a few times faster than `JSON.stringify`. */
export function requestJsonForLog(request: FastifyRequest): string {
  const line = requestForLog(request);
  const address = line.remoteAddress === undefined ? '' : `,"remoteAddress":${jsonString(line.remoteAddress)}`;
  const key = line.keyId === undefined ? '' : `,"keyId":${jsonString(line.keyId)}`;
  return `{"method":${jsonString(line.method)},"url":${jsonString(line.url)}${address}${key}}`;
}

export function replyForLog(reply: FastifyReply) {
  return { statusCode: reply.statusCode };
}

/** The serializers the request line uses; give them to the logger. */
export const requestLogSerializers = { req: requestForLog, res: replyForLog };

/**
 * One line per request, written once the answer is sent: the request, its status and the time
 * it took, instead of Fastify's two (one when it arrives, one when it is answered).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const responseTime = Math.round(reply.elapsedTime * 10) / 10;
    if (!error && reply.log instanceof RequestLogger && reply.log.completed(request, reply, responseTime)) return;
    const line = { req: request, res: reply, responseTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** The writer of each process log's "request completed" lines, made at its first (null: that log needs pino's path). */
const completedLines = new WeakMap<Logger, LineWriter | null>();

/**
 * A request's logger: the process log's child with the request id, made at the first line that
 * is written at an enabled level rather than for every request (pino's `child` is a few
 * microseconds: most of what the log cost a request that writes nothing, under LOG_LEVEL=warn).
 * A line given as an object before then goes to the process log with the id merged in, which is
 * the line the child would write: the request log's line writes no child at all.
 */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  /**
   * Writes the request log's line for a request answered without error, the line pino would
   * write for `{ req: request, res: reply, responseTime }` with the serializers above, assembled
   * from its fields (see lib/log-line.ts; in a loop, 0.8 µs a line against 2.1 µs through pino). False when
   * the line must go through pino: a child was made for this request, or the process log does
   * something to its lines that the writer would skip.
   */
  completed(request: FastifyRequest, reply: FastifyReply, responseTime: number): boolean {
    if (this.#child) return false;
    if (!this.parent.isLevelEnabled('info')) return true;
    let write = completedLines.get(this.parent);
    if (write === undefined) completedLines.set(this.parent, (write = lineWriter(this.parent, 'info', 'request completed')));
    if (!write) return false;
    write(
      `${jsonMembers(this.bindings as Record<string, string>)},"req":${requestJsonForLog(request)},"res":{"statusCode":${reply.statusCode}},"responseTime":${responseTime}`,
    );
    return true;
  }

  get level(): string {
    return (this.#child ?? this.parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  #made(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  #write(level: Level, args: unknown[]): void {
    if (this.#child) return (this.#child[level] as (...args: unknown[]) => void)(...args);
    if (!this.parent.isLevelEnabled(level)) return;
    const [first, ...rest] = args;
    if (typeof first === 'object' && first !== null && !(first instanceof Error) && Object.getPrototypeOf(first) === Object.prototype) {
      // Object.assign rather than a spread: spreading Fastify's bindings (an object with a computed key) takes microseconds.
      return (this.parent[level] as (...args: unknown[]) => void)(Object.assign({}, this.bindings, first), ...rest);
    }
    (this.#made()[level] as (...args: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory` for a pino process log: requests get a RequestLogger. A route
 * with its own log level or serializers gets pino's child at once, as would any other logger.
 */
export const requestChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) => {
  const pino = logger as FastifyBaseLogger & Partial<Pick<Logger, 'isLevelEnabled'>>;
  if (typeof pino.isLevelEnabled !== 'function' || options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new RequestLogger(pino as Logger, bindings) as unknown as FastifyBaseLogger;
};
