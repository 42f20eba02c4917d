import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import { describe, expect, it } from 'vitest';
import { jsonMembers, jsonString, lineWriter } from '../../src/lib/log-line.ts';

/** A pino logger whose lines are kept, with a fixed time so that two writes of a line compare equal. */
function capture(options: LoggerOptions = {}, stream?: DestinationStream) {
  const lines: string[] = [];
  const logger = pino(
    { timestamp: () => ',"time":1700000000000', ...options },
    stream ?? { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

const STRINGS = [
  '',
  '/public/v1/integrations',
  '/public/v1/posts?limit=20&cursor=ab%22c',
  'a "quoted" word',
  'back\\slash',
  'tab\there, newline\nthere, nul\u0000, escape\u001b, delete\u007f',
  'line separator \u2028 and paragraph \u2029',
  'accents é ü ñ, CJK 日本語',
  'emoji 🚀 (a surrogate pair)',
  'lone high \ud800 and lone low \udc00',
  'ÿ latin-1 bytes as a Node URL holds them: \u00c3\u00a9',
];

describe('JSON written by hand for the hot log lines', () => {
  it('quotes every string exactly as JSON.stringify does', () => {
    for (const value of STRINGS) expect(jsonString(value)).toBe(JSON.stringify(value));
  });

  it('writes the members of a flat object as JSON.stringify does, leaving out undefined values', () => {
    const objects = [
      {},
      { reqId: 'req-1' },
      { a: 1, b: -0, c: 1.25, d: 1e21, e: Number.NaN, f: Number.POSITIVE_INFINITY, g: true, h: false, i: null, j: undefined, k: 'x"y' },
      { 'odd "key"': 'value', '': '', ключ: STRINGS[9] },
    ];
    for (const object of objects) {
      const expected = JSON.stringify(object);
      expect(`{${jsonMembers(object).slice(1)}}`).toBe(expected);
    }
  });
});

describe('lineWriter', () => {
  it("writes the very line pino writes for the same fields: level, time, the logger's bindings, the message", () => {
    const { logger, lines } = capture();
    for (const log of [logger, logger.child({ pid: 7, component: 'queue "q"' })]) {
      const write = lineWriter(log, 'info', 'request completed');
      expect(write).not.toBeNull();
      const fields = { reqId: 'req-1', req: { method: 'GET', url: STRINGS[3] }, res: { statusCode: 200 }, responseTime: 1.5 };
      log.info(fields, 'request completed');
      write!(`,"reqId":"req-1","req":${JSON.stringify(fields.req)},"res":{"statusCode":200},"responseTime":1.5`);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toBe(lines[0]);
      lines.length = 0;
    }
  });

  it('follows how the logger writes its level, its time and the end of a line', () => {
    const { logger, lines } = capture({
      formatters: { level: (label) => ({ severity: label.toUpperCase() }) },
      timestamp: pino.stdTimeFunctions.isoTime,
      crlf: true,
      messageKey: 'message',
    });
    const write = lineWriter(logger, 'warn', 'slow');
    logger.warn({ took: 3 }, 'slow');
    write!(',"took":3');
    const [viaPino, viaWriter] = lines.map((line) => line.replace(/"time":"[^"]+"/, '"time":"T"'));
    expect(viaWriter).toBe(viaPino);
    expect(viaWriter).toMatch(/^\{"severity":"WARN","time":"T","pid":\d+,"hostname":"[^"]*","took":3,"message":"slow"\}\r\n$/);
  });

  it('gives way to pino for a logger that would change the line (a mixin, redaction, a log formatter, a prefix, a nested key, a write hook, a stream that wants metadata)', () => {
    const unusual: LoggerOptions[] = [
      { mixin: () => ({ extra: 1 }) },
      { redact: ['req.headers.authorization'] },
      { redact: ['*.secret'] },
      { formatters: { log: (object) => ({ ...object, wrapped: true }) } },
      { msgPrefix: '[api] ' },
      { nestedKey: 'payload' },
      { hooks: { streamWrite: (line) => line.toUpperCase() } },
    ];
    for (const options of unusual) expect(lineWriter(capture(options).logger, 'info', 'request completed')).toBeNull();
    const multi = pino.multistream([{ stream: { write: () => {} } }]);
    expect(lineWriter(capture({}, multi).logger, 'info', 'request completed')).toBeNull();
    expect(lineWriter(capture().logger, 'info', 'request completed')).not.toBeNull();
  });
});
