import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/backend.ts';
import {
  adminJson,
  herald,
  heraldInProcess,
  IN_PROCESS_MS,
  PROCESS_BUDGET_MS,
  processBudget,
  startServerProcess,
  type ServerProcess,
} from '../helpers/process.ts';

let env: Record<string, string>;
let drop: () => Promise<void>;
let server: ServerProcess;
let bootstrapKey: string;

beforeAll(async () => {
  const fresh = await freshDatabaseUrl();
  drop = fresh.drop;
  env = { DATABASE_URL: fresh.url, DATA_DIR: fresh.dataDir, BASE_URL: 'http://herald.test' };
  server = await startServerProcess(env);
  bootstrapKey = /API key\s+(svc_\S+)/.exec(server.output())?.[1] ?? '';
}, processBudget(1));

afterAll(async () => {
  await server?.stop();
  await drop?.();
});

const api = (path: string, key: string, headers: Record<string, string> = {}) =>
  fetch(`${server.baseUrl}/public/v1${path}`, { headers: { authorization: key, ...headers } });

describe('first start and the operator CLI, against the real server process', () => {
  it('the first start prints a one-time key that works straight away', async () => {
    expect(bootstrapKey).toMatch(/^svc_[0-9A-Za-z]{16}_[0-9A-Za-z]{40}$/);
    const res = await api('/integrations', bootstrapKey);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
  });

  it(
    'prints a one-time owner sign-in link, and without SMTP_URL writes sign-in mail to the log at warn',
    async () => {
      const link = /^\s+(http:\/\/herald\.test\/account\/link\/[0-9A-Za-z]+)$/m.exec(server.output())?.[1];
      expect(link, server.output()).toBeDefined();
      const landing = await fetch(link!.replace('http://herald.test', server.baseUrl));
      expect(landing.status).toBe(200);
      expect(await landing.text()).toContain('This one-time link signs you in');
      const another = await adminJson<{ url: string; expiresAt: string }>(['user', 'sign-in-link', 'owner@localhost'], env);
      expect(another.url).toMatch(/^http:\/\/herald\.test\/account\/link\/[0-9A-Za-z]{43}$/);
      expect((await fetch(another.url.replace('http://herald.test', server.baseUrl))).status).toBe(200);

      await adminJson(['user', 'create', '--email', 'mailme@acme.test'], env);
      const start = await fetch(`${server.baseUrl}/public/v1/signup/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'mailme@acme.test' }),
      });
      expect(start.status).toBe(202);
      await expect.poll(() => server.output(), { timeout: processBudget(1) }).toContain('Mail is not configured (SMTP_URL is not set)');
      const line = server
        .output()
        .split('\n')
        .find((l) => l.includes('Mail is not configured'))!;
      expect(JSON.parse(line)).toMatchObject({
        level: 40,
        component: 'mail',
        mail: { to: 'mailme@acme.test', text: expect.stringMatching(/^\s+\d{8}$/m) },
      });
    },
    processBudget(3),
  );

  // The operator commands through their entry inside this process (the same program and output).
  it(
    'sets up a workspace, member, group, channel and key that the API then serves',
    async () => {
      const ws = await adminJson<{ id: string }>(['workspace', 'create', '--name', 'Acme'], env, heraldInProcess);
      const user = await adminJson<{ id: string }>(
        ['user', 'create', '--email', 'Editor@Acme.test', '--name', 'Eddie'],
        env,
        heraldInProcess,
      );
      expect(user).toMatchObject({ email: 'editor@acme.test' });
      await adminJson(['member', 'add', '--workspace', ws.id, '--user', 'editor@acme.test', '--role', 'editor'], env, heraldInProcess);
      const group = await adminJson<{ id: string }>(['group', 'create', '--workspace', ws.id, '--name', 'Clients'], env, heraldInProcess);
      const channel = await adminJson<{ id: string }>(
        [
          'channel',
          'create',
          '--workspace',
          ws.id,
          '--provider',
          'webhook',
          '--name',
          'Hook',
          '--profile',
          'acme',
          '--group',
          group.id,
          '--config',
          '{"url":"https://hooks.example.test/in","secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}',
        ],
        env,
        heraldInProcess,
      );
      const key = await adminJson<{ id: string; secret: string; scopes: string[] }>(
        ['key', 'create', '--user', user.id, '--scopes', 'channels:read,posts:read'],
        env,
        heraldInProcess,
      );
      expect(key.scopes).toEqual(['channels:read', 'posts:read']);

      const res = await api('/integrations', key.secret);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([
        expect.objectContaining({
          id: channel.id,
          name: 'Hook',
          identifier: 'webhook',
          profile: 'acme',
          customer: { id: group.id, name: 'Clients' },
        }),
      ]);

      const rotated = await adminJson<{ secret: string }>(['key', 'rotate', key.id], env, heraldInProcess);
      expect((await api('/integrations', key.secret)).status).toBe(401);
      expect((await api('/integrations', rotated.secret)).status).toBe(200);

      await adminJson(['member', 'set-role', '--workspace', ws.id, '--user', user.id, '--role', 'viewer'], env, heraldInProcess);
      const workspaces = (await (await api('/workspaces', rotated.secret)).json()) as Array<{ role: string }>;
      expect(workspaces.map((w) => w.role)).toEqual(['viewer']);

      await adminJson(['plan', 'set', '--workspace', ws.id, '--api-access', 'false'], env, heraldInProcess);
      expect((await api('/integrations', rotated.secret)).status).toBe(401);
      await adminJson(['plan', 'set', '--workspace', ws.id, '--posts-per-month', '10'], env, heraldInProcess);
      const plan = await adminJson<{ plan: unknown }>(
        ['plan', 'set', '--workspace', ws.id, '--api-access', 'true', '--channels', '5', '--posts-per-month', 'unlimited'],
        env,
        heraldInProcess,
      );
      expect(plan.plan).toEqual({ name: 'self-hosted', apiAccess: true, channels: 5, postsPerMonth: null });
      expect((await api('/integrations', rotated.secret)).status).toBe(200);

      await adminJson(['member', 'remove', '--workspace', ws.id, '--user', user.id], env, heraldInProcess);
      expect((await api('/integrations', rotated.secret)).status).toBe(403);

      await adminJson(['key', 'revoke', key.id], env, heraldInProcess);
      expect((await api('/integrations', rotated.secret)).status).toBe(401);
    },
    IN_PROCESS_MS,
  );

  it(
    "prints readable text without --json and shows a key's secret once",
    async () => {
      const user = await adminJson<{ id: string }>(['user', 'create', '--email', 'text@acme.test'], env);
      const ws = await adminJson<{ id: string }>(['workspace', 'create', '--name', 'Texts', '--owner', 'text@acme.test'], env);
      expect(ws.id).toMatch(/\S/);
      const result = await herald(['admin', 'key', 'create', '--user', user.id, '--mcp'], env);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/secret \(shown once\): svc_mcp_/);
    },
    processBudget(3),
  );

  it(
    'explains bad input with a non-zero exit and no stack trace',
    async () => {
      const cases: string[][] = [
        ['member', 'add', '--workspace', 'nope', '--user', 'nobody@acme.test', '--role', 'owner'],
        ['member', 'set-role', '--workspace', 'nope', '--user', 'text@acme.test', '--role', 'king'],
        ['key', 'create', '--user', 'text@acme.test', '--scopes', 'posts:everything'],
        ['channel', 'create', '--workspace', 'nope', '--provider', 'myspace', '--name', 'x'],
        ['channel', 'create', '--workspace', 'nope', '--provider', 'webhook', '--name', 'x', '--config', 'not json'],
        ['user', 'create', '--email', 'text@acme.test'],
        ['plan', 'set', '--workspace', 'nope', '--channels', 'lots'],
        ['key', 'rotate', 'missing'],
      ];
      for (const args of cases) {
        const result = await heraldInProcess(['admin', ...args], env);
        expect(result.code, args.join(' ')).not.toBe(0);
        expect(result.stderr, args.join(' ')).toMatch(/\S/);
        expect(result.stderr, args.join(' ')).not.toMatch(/ at .*\.ts:\d+/);
      }
    },
    IN_PROCESS_MS,
  );

  it(
    'a second start on the same database prints no new key, and SIGTERM stops it cleanly',
    async () => {
      const second = await startServerProcess(env);
      expect(second.output()).not.toMatch(/API key/);
      expect((await fetch(`${second.baseUrl}/public/v1/status`)).status).toBe(200);
      expect(await second.stop('SIGTERM')).toBe(0);
    },
    processBudget(1),
  );

  it("never writes an upload link's secret to the request log", async () => {
    const secret = 'SeCrEtToKeN1234567890abcdefABCDEF';
    await fetch(`${server.baseUrl}/u/${secret}/files`);
    await fetch(`${server.baseUrl}/u/${secret}`);
    // The log is written in batches (at least every half second): wait for both request lines.
    const lines = () => server.output().match(/"url":"\/u\/\[secret\][^"]*"/g) ?? [];
    for (const started = Date.now(); lines().length < 2 && Date.now() - started < PROCESS_BUDGET_MS;)
      await new Promise((r) => setTimeout(r, 50));
    expect(lines()).toHaveLength(2);
    expect(server.output()).not.toContain(secret);
  });

  it(
    'refuses a bad configuration with a message naming the variable',
    async () => {
      const result = await herald(['serve'], { ...env, PORT: 'eighty' });
      expect(result.code).toBe(78);
      expect(result.stderr).toMatch(/PORT/);
    },
    processBudget(1),
  );
});
