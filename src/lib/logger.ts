import { pino, stdSerializers, type DestinationStream, type LevelWithSilent, type Logger, type SerializerFn } from 'pino';
import { LineBatch } from './line-batch.ts';

/** Where the log goes: standard output by default. */
export type LogOutput = { fd: number; isTTY?: boolean | undefined };

export type LoggerOptions = {
  level: LevelWithSilent;
  /** Extra serializers (e.g. how a request is shown); `err` is pino's. */
  serializers?: Record<string, SerializerFn>;
  output?: LogOutput;
};

/** A request's line, as the request log writes it (see http/request-log.ts). */
type RequestLine = { req?: { method?: string; url?: string }; res?: { statusCode?: number }; responseTime?: number };

/** Keys shown in the text of a terminal line rather than after it. */
const SHOWN_IN_TEXT = 'pid,hostname,reqId,req,res,responseTime';

/**
 * A terminal line: `12:00:01.123 INFO: GET /public/v1/integrations 200 1.2 ms` for a request;
 * the message and its other fields on one line for the rest.
 */
function terminalMessage(log: Record<string, unknown>, messageKey: string): string {
  const { req, res, responseTime } = log as RequestLine;
  if (req && res) return `${req.method} ${req.url} ${res.statusCode} ${responseTime} ms`;
  return String(log[messageKey] ?? '');
}

/** Up to this much log is held in memory when standard output cannot keep up; beyond it, lines are dropped rather than memory grown. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

/**
 * Lines are gathered until this much is waiting (in characters: bytes for ASCII), then written in
 * one go: one write per some 30 request lines rather than one (a thread-pool round trip and a
 * system call) per line, which was most of what logging cost a request.
 */
const WRITE_AFTER_BYTES = 8 * 1024;

/** Gathered lines are written at least this often, so a quiet server's log is never more than this late. */
const FLUSH_EVERY_MS = 500;

/**
 * The process log. On a terminal, readable lines (colours, local time, one line per request);
 * anywhere else (a pipe, a file, a log collector), one JSON object per line, written
 * asynchronously and in batches: a log line never waits for its reader; lines are gathered
 * until 8 KiB wait or half a second has passed, then written together. Whatever is still
 * gathered is written at exit (synchronously, on `exit`, which `process.exit` after SIGTERM and
 * an uncaught error both reach); only a SIGKILL loses it.
 */
export async function createLogger(options: LoggerOptions): Promise<Logger> {
  const output = options.output ?? process.stdout;
  const settings = { level: options.level, serializers: { err: stdSerializers.err, ...options.serializers } };
  let destination: DestinationStream;
  if (output.isTTY) {
    // Loaded only for a terminal.
    const { PinoPretty } = await import('pino-pretty');
    destination = PinoPretty({
      destination: output.fd,
      sync: true,
      colorize: true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: SHOWN_IN_TEXT,
      messageFormat: terminalMessage,
    });
  } else {
    const sink = pino.destination({ dest: output.fd, sync: false, maxLength: MAX_BUFFERED_BYTES });
    destination = new LineBatch(sink, { fd: output.fd, writeAfter: WRITE_AFTER_BYTES, everyMs: FLUSH_EVERY_MS });
  }
  return pino(settings, destination);
}
