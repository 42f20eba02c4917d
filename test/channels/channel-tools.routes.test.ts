import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});

describe('GET /public/v1/integration-settings/:id', () => {
  it("describes the channel's settings as JSON Schema, its limits, media rules and tools", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const res = await t.request({ method: 'GET', url: `/public/v1/integration-settings/${tenant.channelId}`, key: tenant.key });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      integration: tenant.channelId,
      identifier: 'webhook',
      textLimit: { max: 10000, unit: 'characters' },
      media: { maxItems: 20, required: false },
      idempotentWrites: false,
      connect: expect.stringContaining('whsec_'),
    });
    expect(body.settings).toMatchObject({ type: 'object', properties: { title: { type: 'string' } } });
    expect(body.tools).toEqual([expect.objectContaining({ name: 'ping', inputSchema: expect.objectContaining({ type: 'object' }) })]);
  });

  it("another workspace's channel, or one outside a limited key, is a 404", async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const other = await webhookTenant(t, receiver.url);
    expect(
      (await t.request({ method: 'GET', url: `/public/v1/integration-settings/${other.channelId}`, key: tenant.key })).statusCode,
    ).toBe(404);
    const limited = await createTenant(t, { workspaceId: tenant.workspaceId, channelIds: ['elsewhere'] });
    expect(
      (await t.request({ method: 'GET', url: `/public/v1/integration-settings/${tenant.channelId}`, key: limited.key })).statusCode,
    ).toBe(404);
  });

  runAuthMatrix(() => t, {
    method: 'GET',
    url: async (app, tenant) =>
      `/public/v1/integration-settings/${(await app.services.channels.create(tenant.workspaceId, { provider: 'webhook', name: 'x', config: { url: 'https://h.example.test/', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } })).id}`,
    scope: 'channels:read',
  });
});

describe('POST /public/v1/integration-trigger/:id', () => {
  it('runs a tool with its validated data', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const res = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: { methodName: 'ping', data: { message: 'hello' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ ok: true, status: 200 });
    expect(receiver.deliveries.at(-1)!.body).toMatchObject({ type: 'ping', data: { message: 'hello' } });
  });

  it('an unknown methodName is a 400 that lists the tools; bad data is a 400 naming the field', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    const unknown = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: { methodName: 'explode' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'unknown_tool', tools: ['ping'], msg: expect.stringMatching(/ping/) });
    const proto = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: { methodName: 'toString' },
    });
    expect(proto.statusCode).toBe(400);
    const bad = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: { methodName: 'ping', data: { message: 7 } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().msg).toMatch(/data\.message/);
    const missing = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().message).toEqual([expect.stringMatching(/body\.methodName/)]);
  });

  it('reports a receiver that refuses, rather than failing', async () => {
    const tenant = await webhookTenant(t, receiver.url);
    receiver.answer({ status: 500, body: { error: 'boom' } });
    const res = await t.request({
      method: 'POST',
      url: `/public/v1/integration-trigger/${tenant.channelId}`,
      key: tenant.key,
      payload: { methodName: 'ping' },
    });
    expect(res.json()).toMatchObject({ ok: false, status: 500 });
  });

  runAuthMatrix(() => t, {
    method: 'POST',
    url: () => '/public/v1/integration-trigger/none',
    body: { methodName: 'ping' },
    scope: 'channels:read',
    okStatus: 404,
  });
});
