import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import { heraldInProcess, IN_PROCESS_MS, processBudget } from '../helpers/process.ts';

// `herald admin upload-link expire`: the operator ends a link at once, so a developer can see what
// a person meets when the link's two hours are over, without changing the links' lifetime.
let t: TestApp;
let env: Record<string, string>;
let key: string;

beforeAll(
  async () => {
    const fresh = await freshDatabaseUrl();
    const target = fresh.url.startsWith('sqlite:')
      ? ({ kind: 'sqlite', file: fresh.url.slice('sqlite:'.length) } as const)
      : ({ kind: 'postgres', url: fresh.url } as const);
    t = await createTestApp({ database: { target, dataDir: fresh.dataDir, drop: fresh.drop } });
    key = (await createTenant(t)).key;
    env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, BASE_URL: 'http://herald.test', BOOTSTRAP: 'false' };
  },
  processBudget(0, 60_000),
);

afterAll(async () => {
  await t?.close();
});

const admin = (...args: string[]) => heraldInProcess(['admin', ...args], env);

async function newLink(): Promise<{ id: string; url: string; expiresAt: string }> {
  const response = await t.request({ method: 'POST', url: '/public/v1/upload-link', key });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

describe('herald admin upload-link expire', () => {
  it(
    'ends a link now: its page then says it has expired and takes no file; a second expire keeps the first end',
    async () => {
      const link = await newLink();
      const other = await newLink();
      const page = new URL(link.url).pathname;
      expect((await t.request({ method: 'GET', url: page })).statusCode).toBe(200);
      expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(3600_000);

      const expired = await admin('upload-link', 'expire', link.id);
      expect(expired.code, expired.stderr).toBe(0);
      const end = /^upload link (\S+) expired at (\S+)\n$/.exec(expired.stdout);
      expect(end?.[1]).toBe(link.id);
      expect(Date.parse(end![2]!)).toBeLessThanOrEqual(Date.now());

      const closed = await t.request({ method: 'GET', url: page });
      expect(closed.statusCode).toBe(410);
      expect(closed.body).toContain('This link has expired');
      const refused = await t.request({
        method: 'POST',
        url: `${page}/files`,
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        payload: '--x--\r\n',
      });
      expect(refused.statusCode).toBe(410);
      // The other link is untouched.
      expect((await t.request({ method: 'GET', url: new URL(other.url).pathname })).statusCode).toBe(200);

      const again = await admin('upload-link', 'expire', link.id, '--json');
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({
        id: link.id,
        workspaceId: expect.any(String),
        expiresAt: new Date(end![2]!).toISOString(),
      });
    },
    IN_PROCESS_MS,
  );

  it(
    'says so for a link that does not exist',
    async () => {
      const missing = await admin('upload-link', 'expire', 'no-such-link');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe('herald: No upload link no-such-link.\n');
    },
    IN_PROCESS_MS,
  );
});
