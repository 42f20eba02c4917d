// Connecting a channel that fails says what happened, the same way for every platform with a
// connect path (token or browser sign-in): the platform could not be reached (502
// platform_unreachable), Herald's outbound policy refused its address (400 outbound_refused), or
// it refused the credentials (400 platform_refused), or it failed (502 platform_transient). Nothing leaves loopback: the refused name is
// answered by an injected resolver, and the connector opens loopback connections only.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretKey } from 'nostr-tools/pure';
import { createOutboundClient } from '../../src/net/outbound.ts';
import { clearBlueskySessions } from '../../src/providers/bluesky/bluesky.client.ts';
import { getProvider } from '../../src/providers/registry.ts';
import { AppError } from '../../src/errors.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../helpers/app.ts';
import { startFakeHttp, type FakeHttp } from '../helpers/fake-http.ts';
import { loopbackOnlyConnector, resolver } from '../helpers/outbound.ts';

/** A name the injected resolver answers with a private address, which the outbound policy refuses. */
const REFUSED_BASE = 'https://private.test';

type Scenario = 'unreachable' | 'policy' | 'credentials' | 'failing';

/** How each scenario must be answered: status, code, and the words that say what happened. */
const EXPECTED: Record<Scenario, { status: number; code: string; says: (name: string) => RegExp }> = {
  unreachable: { status: 502, code: 'platform_unreachable', says: (name) => new RegExp(`^${name} could not be reached: .*refused`) },
  policy: {
    status: 400,
    code: 'outbound_refused',
    says: (name) => new RegExp(`^Herald did not call ${name}: its outbound policy refused`),
  },
  credentials: { status: 400, code: 'platform_refused', says: (name) => new RegExp(`^${name} refused the credentials: `) },
  failing: { status: 502, code: 'platform_transient', says: (name) => new RegExp(`^${name} answered with a server error: `) },
};

const nostrKey = Buffer.from(generateSecretKey()).toString('hex');

/** Every platform with a connect path: the fields that point it at `base`; sign-in platforms take `base` from the app's settings. */
const TOKEN_PLATFORMS: Array<{
  provider: string;
  label?: string;
  fields: (base: string) => Record<string, unknown>;
  noCredentials?: true;
}> = [
  { provider: 'bluesky', fields: (base) => ({ service: base, identifier: 'someone.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop' }) },
  {
    provider: 'discord',
    fields: (base) => ({ botToken: 'AAAAAAAAAAAAAAAA.BBBBBB.CCCCCCCCCCCCCC', channelId: '123456789012345678', apiBase: base }),
  },
  { provider: 'mastodon', label: 'mastodon (token)', fields: (base) => ({ instance: base, accessToken: 'a'.repeat(40) }) },
  { provider: 'mastodon', label: 'mastodon (sign-in)', fields: (base) => ({ instance: base }) },
  { provider: 'slack', fields: (base) => ({ botToken: 'xoxb-0000000000-abcdef', channel: 'C0123456789', apiBase: base }) },
  { provider: 'telegram', fields: (base) => ({ botToken: `123456:${'A'.repeat(35)}`, chatId: '@heraldnews', apiBase: base }) },
  { provider: 'webhook', fields: (base) => ({ url: `${base}/hook`, secret: TEST_WEBHOOK_SECRET }) },
  { provider: 'wordpress', fields: (base) => ({ site: base, username: 'ana', applicationPassword: 'abcd EFGH ijkl MNOP qrst UVWX' }) },
  { provider: 'devto', fields: (base) => ({ apiKey: 'abcdefghijklmnop', baseUrl: base }) },
  // A Nostr key is checked by Herald itself, and relays speak no HTTP: neither credentials nor statuses to refuse.
  { provider: 'nostr', fields: (base) => ({ secretKey: nostrKey, relays: [base.replace(/^http/, 'ws')] }), noCredentials: true },
];
const SIGN_IN_PLATFORMS = ['x', 'linkedin', 'threads'];

/** The operator's apps of the sign-in platforms, all pointed at `base`. */
function appsAt(base: string): Record<string, string> {
  return {
    X_CLIENT_ID: 'x-client',
    X_CLIENT_SECRET: 'x-secret',
    X_API_BASE: base,
    LINKEDIN_CLIENT_ID: 'li-client',
    LINKEDIN_CLIENT_SECRET: 'li-secret',
    LINKEDIN_API_BASE: base,
    THREADS_APP_ID: 'th-client',
    THREADS_APP_SECRET: 'th-secret',
    THREADS_API_BASE: base,
  };
}

/** A loopback port with nothing listening: opened, then closed. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let refusing: FakeHttp;
let failing: FakeHttp;
const bases = {} as Record<Scenario, string>;
const apps = {} as Record<Scenario, TestApp>;
const connectors: Array<ReturnType<typeof loopbackOnlyConnector>> = [];

beforeAll(async () => {
  // Refuses every credential, in the words of each platform's API (Telegram's error_code, Slack's `ok`, XRPC's `error`).
  refusing = await startFakeHttp(() => ({
    status: 401,
    body: { ok: false, error: 'invalid_auth', error_code: 401, description: 'Unauthorized', message: 'The access token is invalid' },
  }));
  failing = await startFakeHttp(() => ({
    status: 503,
    body: { ok: false, error: 'unavailable', error_code: 503, description: 'Service Unavailable', message: 'Down for maintenance' },
  }));
  bases.failing = failing.url;
  bases.unreachable = `http://127.0.0.1:${await closedPort()}`;
  bases.policy = REFUSED_BASE;
  bases.credentials = refusing.url;
  for (const scenario of Object.keys(bases) as Scenario[]) {
    const connector = loopbackOnlyConnector();
    connectors.push(connector);
    const outbound = createOutboundClient({
      allowLoopback: true,
      lookup: resolver({ 'private.test': ['10.20.30.40'] }).lookup,
      connector: connector.connector,
      timeoutMs: 10_000,
    });
    apps[scenario] = await createTestApp({ outbound, env: appsAt(bases[scenario]) });
  }
});
afterAll(async () => {
  clearBlueskySessions();
  await Promise.all(Object.values(apps).map((t) => t.close()));
  await refusing.close();
  await failing.close();
  for (const { violations } of connectors) expect(violations).toEqual([]);
});

function expectWorded(scenario: Scenario, provider: string, answer: { status: number; code: string; msg: string }) {
  const expected = EXPECTED[scenario];
  const name = getProvider(provider).name;
  expect({ status: answer.status, code: answer.code }, answer.msg).toEqual({ status: expected.status, code: expected.code });
  expect(answer.msg).toMatch(expected.says(name));
  if (scenario !== 'credentials') expect(answer.msg).not.toContain('credentials');
}

describe.each(['unreachable', 'policy', 'credentials', 'failing'] as const)('a connection that fails: %s', (scenario) => {
  const rows = TOKEN_PLATFORMS.filter((row) => (scenario !== 'credentials' && scenario !== 'failing') || !row.noCredentials);
  it.each(rows.map((row) => [row.label ?? row.provider, row] as const))('%s says what happened', async (_label, row) => {
    const t = apps[scenario];
    const tenant = await createTenant(t);
    const res = await t.request({
      method: 'POST',
      url: '/public/v1/integrations/connect',
      key: tenant.key,
      payload: { provider: row.provider, ...row.fields(bases[scenario]) },
    });
    const body = res.json() as { code: string; msg: string };
    expectWorded(scenario, row.provider, { status: res.statusCode, ...body });
    const listed = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
    expect(listed.json()).toEqual([]);
  });

  it.each(SIGN_IN_PLATFORMS)('%s (browser sign-in) says what happened when the code is exchanged', async (provider) => {
    const t = apps[scenario];
    const tenant = await createTenant(t);
    const started = await t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: { provider } });
    expect(started.statusCode, started.body).toBe(200);
    const state = new URL((started.json() as { url: string }).url).searchParams.get('state')!;
    const failure = await t.services.connect.finish(provider, { state, code: 'a-code' }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AppError);
    const { statusCode, code, message } = failure as AppError;
    expectWorded(scenario, provider, { status: statusCode, code, msg: message });
  });
});

describe('what the words name', () => {
  it('a name that does not resolve is unreachable (DNS), and a port never fetched is the outbound policy (Mastodon at localhost:1)', async () => {
    const t = apps.policy;
    const tenant = await createTenant(t);
    const connect = (payload: Record<string, unknown>) =>
      t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload });
    const unknown = await connect({ provider: 'webhook', url: 'https://nowhere.test/hook', secret: TEST_WEBHOOK_SECRET });
    expect(unknown.statusCode, unknown.body).toBe(502);
    expect(unknown.json()).toMatchObject({ code: 'platform_unreachable' });
    expect(unknown.json().msg).toContain('could not be reached: the name nowhere.test was not found (DNS)');
    const reserved = await connect({ provider: 'mastodon', instance: 'localhost:1' });
    expect(reserved.statusCode, reserved.body).toBe(400);
    expect(reserved.json()).toMatchObject({ code: 'outbound_refused' });
    expect(reserved.json().msg).toMatch(/^Herald did not call Mastodon: its outbound policy refused the address\. Port 1 /);
  });
});
