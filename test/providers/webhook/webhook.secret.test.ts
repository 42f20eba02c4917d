// A webhook channel created without a signing secret gets one generated (Standard Webhooks:
// "whsec_" and the base64 of 24 random bytes), stored encrypted as a given one is, and shown once:
// in the connect answer, or in the operator command's output. A malformed secret is refused with
// its format and how to get one.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChannel } from '../../../src/channels/channels.repository.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type TestApp } from '../../helpers/app.ts';
import { IN_PROCESS_MS, operatorCommands } from '../../helpers/process.ts';
import { startWebhookReceiver } from '../../helpers/webhook-receiver.ts';

const GENERATED = /^whsec_[A-Za-z0-9+/]{32}$/;

/** What a malformed secret's refusal must say: the format, an example, and the two ways to get one. */
function expectHelpfulRefusal(message: string) {
  expect(message).toContain('secret: not a Standard Webhooks signing secret, which is "whsec_" followed by the base64 of');
  expect(message).toContain('Leave "secret" out to have Herald generate one (shown once');
  expect(message).toContain('echo "whsec_$(openssl rand -base64 24)"');
}

describe('through the API', () => {
  let t: TestApp;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  });
  afterAll(() => t.close());

  const connect = (key: string, payload: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/public/v1/integrations/connect', key, payload });

  it('generates a secret when none is given, signs the ping with it, stores it sealed, and shows it only in that answer', async () => {
    const tenant = await createTenant(t);
    const res = await connect(tenant.key, { provider: 'webhook', url: receiver.url });
    expect(res.statusCode, res.body).toBe(200);
    const { secret, integration } = res.json() as { secret: string; integration: { id: string } };
    expect(secret).toMatch(GENERATED);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(24);

    // The ping was signed with it, as every delivery will be.
    const ping = receiver.deliveries.at(-1)!;
    expect(ping.body.type).toBe('ping');
    const headers = { 'webhook-id': ping.id, 'webhook-timestamp': ping.timestamp, 'webhook-signature': ping.signature };
    expect(new Webhook(secret).verify(ping.raw, headers)).toMatchObject({ type: 'ping' });

    // Stored as a given secret is: in the sealed configuration, never in clear in the row.
    expect(await t.services.channels.config(tenant.workspaceId, integration.id)).toMatchObject({ url: receiver.url, secret });
    const row = await findChannel(t.runtime.db, tenant.workspaceId, integration.id);
    expect(row!.credentials).not.toContain(secret.slice(6));

    // Never shown again on reads.
    for (const url of ['/public/v1/integrations', `/public/v1/integration-settings/${integration.id}`]) {
      const read = await t.request({ method: 'GET', url, key: tenant.key });
      expect(read.statusCode, read.body).toBe(200);
      expect(read.body).not.toContain(secret.slice(6));
    }

    // A secret given is the caller's: the answer does not repeat it.
    const other = await createTenant(t);
    const given = await connect(other.key, { provider: 'webhook', url: receiver.url, secret: TEST_WEBHOOK_SECRET });
    expect(given.statusCode, given.body).toBe(200);
    expect(given.json()).not.toHaveProperty('secret');
  });

  it('accepts a 401 to the ping signed with a secret made in that call (the receiver cannot know it yet), not with a given one', async () => {
    const tenant = await createTenant(t);
    receiver.answer({ status: 401, body: { error: 'bad signature' } });
    const generated = await connect(tenant.key, { provider: 'webhook', url: `${receiver.url}?generated`, name: 'New' });
    expect(generated.statusCode, generated.body).toBe(200);
    expect(generated.json().secret).toMatch(GENERATED);

    receiver.answer({ status: 401, body: { error: 'bad signature' } });
    const given = await connect(tenant.key, { provider: 'webhook', url: `${receiver.url}?given`, secret: TEST_WEBHOOK_SECRET });
    expect(given.statusCode, given.body).toBe(400);
    expect(given.json()).toMatchObject({ code: 'platform_refused' });
    expect(given.json().msg).toMatch(/^Webhook refused the credentials: The webhook receiver answered 401/);
  });

  it('refuses a malformed secret saying what the format is and how to get one; nothing is stored', async () => {
    const tenant = await createTenant(t);
    const res = await connect(tenant.key, { provider: 'webhook', url: receiver.url, secret: 'mysecret' });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_config' });
    expectHelpfulRefusal(res.json().msg);
    const listed = await t.request({ method: 'GET', url: '/public/v1/integrations', key: tenant.key });
    expect(listed.json()).toEqual([]);
  });
});

describe('through the operator command', () => {
  const { admin, json } = operatorCommands();

  it(
    'herald admin channel create --provider webhook prints a generated secret once (text and --json), and refuses a malformed one helpfully',
    async () => {
      const owner = await json<{ id: string }>(['user', 'create', '--email', 'hooks@acme.test']);
      const ws = await json<{ id: string }>(['workspace', 'create', '--name', 'Hooks', '--owner', owner.id]);
      const create = (name: string, config: Record<string, unknown>, ...extra: string[]) =>
        admin(
          'channel',
          'create',
          '--workspace',
          ws.id,
          '--provider',
          'webhook',
          '--name',
          name,
          '--config',
          JSON.stringify(config),
          ...extra,
        );

      const text = await create('Text', { url: 'https://hooks.example.test/a' });
      expect(text.code, text.stderr).toBe(0);
      const [created, shown, ...rest] = text.stdout.trimEnd().split('\n');
      expect(created).toMatch(/^channel \S+ created \(webhook, "Text"\)$/);
      expect(shown).toMatch(/^signing secret \(shown once, give it to the receiver\): whsec_[A-Za-z0-9+/]{32}$/);
      expect(rest).toEqual([]);
      const secret = shown!.split(': ')[1]!;

      const asJson = await create('Json', { url: 'https://hooks.example.test/b' }, '--json');
      expect(asJson.code, asJson.stderr).toBe(0);
      expect(JSON.parse(asJson.stdout)).toMatchObject({ provider: 'webhook', name: 'Json', secret: expect.stringMatching(GENERATED) });

      const given = await create('Given', { url: 'https://hooks.example.test/c', secret: TEST_WEBHOOK_SECRET });
      expect(given.code, given.stderr).toBe(0);
      expect(given.stdout).not.toContain('secret');

      const listed = await admin('channel', 'list', '--workspace', ws.id, '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toContain(secret.slice(6));
      expect(listed.stdout).not.toContain('whsec_');

      const refused = await create('Bad', { url: 'https://hooks.example.test/d', secret: 'mysecret' });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('The webhook configuration is invalid: ');
      expectHelpfulRefusal(refused.stderr);
    },
    IN_PROCESS_MS,
  );
});
