import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { getProvider, PROVIDER_IDENTIFIERS } from '../../src/providers/registry.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

type Field = {
  name: string;
  label: string;
  description: string | null;
  type: string;
  required: boolean;
  secret: boolean;
  default?: unknown;
};
type Described = {
  identifier: string;
  name: string;
  connect: 'sign-in' | 'form' | 'operator';
  available: boolean;
  unavailable?: string;
  help: string;
  forms: Array<{ title: string | null; fields: Field[] }>;
};

let t: TestApp;
let withX: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  withX = await createTestApp({ env: { X_CLIENT_ID: 'x-client', X_CLIENT_SECRET: 'x-secret' } });
});
afterAll(async () => {
  await withX?.close();
  await receiver?.close();
});

async function providers(app: TestApp): Promise<Map<string, Described>> {
  const tenant = await createTenant(app);
  const res = await app.request({ method: 'GET', url: '/public/v1/providers', key: tenant.key });
  expect(res.statusCode, res.body).toBe(200);
  return new Map((res.json() as Described[]).map((p) => [p.identifier, p]));
}

const field = (p: Described, name: string, form = 0) => p.forms[form]!.fields.find((f) => f.name === name);

describe('GET /public/v1/providers', () => {
  it('lists every platform the server offers, with how it connects', async () => {
    const all = await providers(t);
    expect([...all.keys()]).toEqual(PROVIDER_IDENTIFIERS);
    expect(all.get('webhook')).toMatchObject({ name: getProvider('webhook').name, connect: 'form', available: true });
    expect(all.get('webhook')).not.toHaveProperty('unavailable');
    expect(all.get('webhook')!.help).toBe(getProvider('webhook').connectHelp);
    expect(all.get('mastodon')).toMatchObject({ connect: 'sign-in', available: true });
    expect(all.get('x')).toMatchObject({ connect: 'sign-in', available: false, unavailable: expect.stringContaining('X_CLIENT_ID') });
    // The operator's app makes it available.
    expect((await providers(withX)).get('x')).toMatchObject({ available: true, forms: [{ title: null, fields: [] }] });
  });

  it("generates each form from the platform's configuration schema: labels, types, required, secrets", async () => {
    const all = await providers(t);
    const webhook = all.get('webhook')!;
    expect(webhook.forms).toHaveLength(1);
    expect(field(webhook, 'url')).toMatchObject({ label: 'Receiver URL', type: 'url', required: true, secret: false });
    expect(field(webhook, 'secret')).toMatchObject({ label: 'Signing secret', type: 'text', required: false, secret: true });
    expect(field(webhook, 'requireTitle')).toMatchObject({ type: 'boolean', required: false });
    expect(field(webhook, 'url')!.description).toContain('POST, JSON');
    const bluesky = all.get('bluesky')!;
    expect(field(bluesky, 'appPassword')).toMatchObject({ label: 'App password', required: true, secret: true });
    expect(field(bluesky, 'service')).toMatchObject({ required: false, default: 'https://bsky.social' });
    expect(field(all.get('nostr')!, 'relays')).toMatchObject({ type: 'list', required: true });
    expect(field(all.get('lemmy')!, 'totp')).toMatchObject({ label: 'Two-factor code', required: false, secret: false });
    // What Herald learns while connecting is never asked for.
    expect(all.get('lemmy')!.forms[0]!.fields.map((f) => f.name)).toEqual(['instance', 'username', 'password', 'totp']);
    expect(all.get('wordpress')!.forms[0]!.fields.map((f) => f.name)).toEqual(['site', 'username', 'applicationPassword']);
    // Discord: a webhook or a bot, one form each.
    const discord = all.get('discord')!;
    expect(discord.forms.map((f) => f.title)).toEqual(['A channel webhook', 'A bot']);
    expect(field(discord, 'webhookUrl')).toMatchObject({ required: true, secret: true });
    expect(field(discord, 'botToken', 1)).toMatchObject({ required: true, secret: true });
    expect(field(discord, 'channelId', 1)).toMatchObject({ required: true, secret: false });
    // Sign-in platforms: what the sign-in takes.
    expect(all.get('mastodon')!.forms[0]!.fields).toEqual([expect.objectContaining({ name: 'instance', label: 'Server', required: true })]);
    expect(field(all.get('facebook')!, 'page')).toMatchObject({ label: 'Page ID', required: false });
  });

  it('names only fields the connect request accepts, and every field a form platform requires', async () => {
    for (const p of (await providers(t)).values()) {
      const provider = getProvider(p.identifier);
      const schema = p.connect === 'sign-in' ? provider.signIn!.startSchema : provider.configSchema;
      const shapes = schema instanceof z.ZodUnion ? (schema.options as z.ZodObject[]) : [schema as z.ZodObject];
      expect(p.forms, p.identifier).toHaveLength(shapes.length);
      shapes.forEach((shape, i) => {
        const names = p.forms[i]!.fields.map((f) => f.name);
        expect(
          names.every((name) => name in shape.shape),
          p.identifier,
        ).toBe(true);
        // A secret Herald generates when it is left out (the webhook's) is not required of the person.
        const required = Object.entries(shape.shape)
          .filter(([name, s]) => !(s as z.ZodType).safeParse(undefined).success && name !== provider.generatedSecret?.field)
          .map(([name]) => name);
        expect(
          p.forms[i]!.fields.filter((f) => f.required).map((f) => f.name),
          p.identifier,
        ).toEqual(required);
      });
    }
  });

  it('a webhook connected with the fields the form describes is a channel', async () => {
    const tenant = await createTenant(t);
    const webhook = (await providers(t)).get('webhook')!;
    const body: Record<string, unknown> = { provider: 'webhook' };
    for (const f of webhook.forms[0]!.fields.filter((f) => f.required)) body[f.name] = f.type === 'url' ? receiver.url : 'x';
    const res = await t.request({ method: 'POST', url: '/public/v1/integrations/connect', key: tenant.key, payload: body });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().integration.identifier).toBe('webhook');
  });

  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/providers', scope: 'channels:read' });
});
