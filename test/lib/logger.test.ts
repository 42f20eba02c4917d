import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.ts';
import { PROCESS_BUDGET_MS } from '../helpers/process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-log-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const request = { method: 'GET', url: '/public/v1/integrations', remoteAddress: '127.0.0.1', keyId: 'abcdefghijklmnop' };

/** Logs a request line and a plain message to a file, as if it were standard output. */
async function logToFile(name: string, isTTY: boolean): Promise<string> {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  const log = await createLogger({ level: 'info', output: { fd, isTTY } });
  log.child({ reqId: 'req-1' }).info({ req: request, res: { statusCode: 200 }, responseTime: 1.5 }, 'request completed');
  log.warn({ component: 'queue' }, 'redis unreachable');
  log.debug('below the level');
  // The JSON log is written asynchronously: wait for both lines.
  for (let i = 0; i < 200 && fs.readFileSync(file, 'utf8').split('\n').length < 3; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  // The descriptor stays open: the destination keeps flushing it every half second for the life of
  // the logger, and a write to a closed descriptor would fail (EBADF) after the test.
  return fs.readFileSync(file, 'utf8');
}

describe('the process log', () => {
  it('writes one JSON object per line when standard output is not a terminal', async () => {
    const lines = (await logToFile('piped.log', false)).trim().split('\n');
    expect(lines).toHaveLength(2);
    const [first, second] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toMatchObject({
      level: 30,
      reqId: 'req-1',
      req: request,
      res: { statusCode: 200 },
      responseTime: 1.5,
      msg: 'request completed',
    });
    expect(second).toMatchObject({ level: 40, component: 'queue', msg: 'redis unreachable' });
  });

  it('writes readable lines on a terminal: one per request with method, URL, status and time', async () => {
    // eslint-disable-next-line no-control-regex
    const text = (await logToFile('terminal.log', true)).replace(/\x1b\[[0-9;]*m/g, '');
    const lines = text.trim().split('\n');
    expect(lines, text).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/public\/v1\/integrations 200 1\.5 ms$/);
    expect(lines[1]).toMatch(/WARN: redis unreachable \{"component":"queue"\}$/);
    expect(text).not.toMatch(/^\{/m);
  });

  it(
    'writes the lines it has gathered when the process exits at once',
    async () => {
      // Three short lines stay gathered (far under the 8 KiB that makes a write); the process exits before any timer runs.
      const script = `
      const { createLogger } = await import(${JSON.stringify(new URL('../../src/lib/logger.ts', import.meta.url).href)});
      const log = await createLogger({ level: 'info', output: { fd: 1, isTTY: false } });
      for (let i = 0; i < 3; i++) log.info({ line: i }, 'gathered');
      process.exit(0);
    `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        timeout: PROCESS_BUDGET_MS,
      });
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => [line.msg, line.line])).toEqual([
        ['gathered', 0],
        ['gathered', 1],
        ['gathered', 2],
      ]);
    },
    PROCESS_BUDGET_MS,
  );

  it(
    'writes every line once and in order across many batches, non-ASCII text included, when the process exits at once',
    async () => {
      // About 300 KB of lines: many 8 KiB batches, some handed to the asynchronous writer, the last still gathered at exit.
      const script = `
      const { createLogger } = await import(${JSON.stringify(new URL('../../src/lib/logger.ts', import.meta.url).href)});
      const log = await createLogger({ level: 'info', output: { fd: 1, isTTY: false } });
      for (let i = 0; i < 3000; i++) log.info({ line: i, text: 'déjà vu ✓ 日本' }, 'many');
      process.exit(0);
    `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        timeout: PROCESS_BUDGET_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
      const lines = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => line.line)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
      expect(new Set(lines.map((line) => line.text))).toEqual(new Set(['déjà vu ✓ 日本']));
    },
    PROCESS_BUDGET_MS,
  );
});
