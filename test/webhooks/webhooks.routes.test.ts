import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import { createOutboundClient } from '../../src/net/outbound.ts';
import { insertEndpoint } from '../../src/webhooks/webhooks.repository.ts';
import { createTenant, createTestApp, type TestApp } from '../helpers/app.ts';
import { runAuthMatrix } from '../helpers/auth-matrix.ts';
import { recorder, resolver } from '../helpers/outbound.ts';
import { createOk, postBody, webhookTenant } from '../helpers/posts.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { createEndpoint, deliverAll, deliveryLog } from './helpers.ts';

let t: TestApp;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  t = await createTestApp({ engine: true, env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
});

/** An endpoint stored in `workspaceId` without going through any key. */
async function seedEndpoint(app: TestApp, workspaceId: string, url = hooks.url): Promise<string> {
  const id = newId();
  const stamp = new Date().toISOString();
  await insertEndpoint(app.runtime.db, {
    id,
    workspace_id: workspaceId,
    url,
    description: '',
    event_types: JSON.stringify(['post.published']),
    enabled: 1,
    disabled_reason: null,
    secret: app.runtime.secretBox.seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'),
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    created_at: stamp,
    updated_at: stamp,
  });
  return id;
}

describe('managing endpoints', () => {
  it('creates (secret shown once), lists, reads, updates and deletes', async () => {
    const tenant = await createTenant(t);
    const created = await t.request({
      method: 'POST',
      url: '/public/v1/webhooks',
      key: tenant.key,
      payload: { url: hooks.url, description: 'CRM sync', eventTypes: ['post.published', 'post.failed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const endpoint = created.json();
    expect(endpoint).toMatchObject({
      url: hooks.url,
      description: 'CRM sync',
      eventTypes: ['post.published', 'post.failed'],
      enabled: true,
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await t.runtime.db
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(endpoint.secret.slice(6));

    const listed = await t.request({ method: 'GET', url: '/public/v1/webhooks', key: tenant.key });
    expect(listed.json().endpoints).toHaveLength(1);
    expect(listed.json().endpoints[0]).not.toHaveProperty('secret');

    const patched = await t.request({
      method: 'PATCH',
      url: `/public/v1/webhooks/${endpoint.id}`,
      key: tenant.key,
      payload: { eventTypes: ['post.deleted'], enabled: false },
    });
    expect(patched.json()).toMatchObject({ eventTypes: ['post.deleted'], enabled: false, description: 'CRM sync' });
    const test = await t.request({ method: 'POST', url: `/public/v1/webhooks/${endpoint.id}/test`, key: tenant.key });
    expect(test.statusCode).toBe(400);

    expect((await t.request({ method: 'DELETE', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key })).json()).toEqual({
      deleted: true,
    });
    expect((await t.request({ method: 'GET', url: `/public/v1/webhooks/${endpoint.id}`, key: tenant.key })).statusCode).toBe(404);
  });

  it('refuses bad input with a clear 400', async () => {
    const tenant = await createTenant(t);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: 'not a url', eventTypes: ['post.published'] }, /url/],
      [{ url: 'ftp://hooks.example.com/x', eventTypes: ['post.published'] }, /url/],
      [{ url: 'http://hooks.example.com/x', eventTypes: ['post.published'] }, /https/],
      [{ url: 'https://10.0.0.1/x', eventTypes: ['post.published'] }, /Refused to connect/],
      [{ url: 'https://169.254.169.254/latest', eventTypes: ['post.published'] }, /Refused to connect/],
      [{ url: 'https://[::ffff:192.168.1.1]/x', eventTypes: ['post.published'] }, /Refused to connect/],
      [{ url: 'https://hooks.example.com/x', eventTypes: ['post.exploded'] }, /eventTypes/],
      [{ url: 'https://hooks.example.com/x', eventTypes: [] }, /eventTypes/],
      [{ url: 'https://hooks.example.com/x', eventTypes: ['post.published', 'post.published'] }, /eventTypes/],
      [{ url: 'https://hooks.example.com/x', eventTypes: ['post.published'], description: 'x'.repeat(10_240) }, /description/],
      [{ eventTypes: ['post.published'] }, /url/],
    ];
    for (const [payload, pattern] of cases) {
      const res = await t.request({ method: 'POST', url: '/public/v1/webhooks', key: tenant.key, payload });
      expect(res.statusCode, JSON.stringify(payload).slice(0, 100)).toBe(400);
      expect(JSON.stringify(res.json())).toMatch(pattern);
    }
    expect((await t.request({ method: 'GET', url: '/public/v1/webhooks', key: tenant.key })).json().endpoints).toHaveLength(0);
  });

  it('GET /status lists the webhook scopes', async () => {
    const res = await t.request({ method: 'GET', url: '/public/v1/status' });
    expect(res.json().scopes.rest).toEqual(expect.arrayContaining(['webhooks:read', 'webhooks:write']));
  });
});

describe('access', () => {
  it("another workspace's endpoint is 404 on every route, and never receives this workspace's events", async () => {
    const platform = await startWebhookReceiver();
    const theirs = await startWebhookReceiver();
    const a = await webhookTenant(t, platform.url);
    const b = await createTenant(t);
    const other = await createEndpoint(t, b, theirs.url, ['post.published', 'post.scheduled']);
    const mine = await createEndpoint(t, a, hooks.url, ['post.published']);
    const { eventId } = (await t.request({ method: 'POST', url: `/public/v1/webhooks/${other.id}/test`, key: b.key })).json();
    expect(eventId).toBeDefined();
    const routes: Array<[string, string, Record<string, unknown>?]> = [
      ['GET', `/webhooks/${other.id}`],
      ['PATCH', `/webhooks/${other.id}`, { enabled: false }],
      ['DELETE', `/webhooks/${other.id}`],
      ['POST', `/webhooks/${other.id}/rotate-secret`],
      ['POST', `/webhooks/${other.id}/test`],
      ['GET', `/webhooks/${other.id}/deliveries`],
      ['POST', `/webhooks/${other.id}/deliveries/x/redeliver`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await t.request({ method: method as 'GET', url: `/public/v1${url}`, key: a.key, ...(payload && { payload }) });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect(
      (await t.request({ method: 'GET', url: '/public/v1/webhooks', key: a.key })).json().endpoints.map((e: { id: string }) => e.id),
    ).toEqual([mine.id]);

    const before = hooks.deliveries.length;
    await createOk(t, a, postBody(a.channelId, { type: 'now' }));
    await deliverAll(t);
    expect(hooks.deliveries.length).toBe(before + 1);
    // B's endpoint got its own test event only.
    expect(theirs.deliveries.map((d) => d.body.type)).toEqual(['webhook.test']);
    expect((await t.request({ method: 'GET', url: `/public/v1/webhooks/${other.id}`, key: b.key })).json().enabled).toBe(true);
  });

  it('an editor has no webhook scopes; a key limited to some channels may not manage endpoints', async () => {
    const editor = await createTenant(t, { role: 'editor' });
    const res = await t.request({ method: 'GET', url: '/public/v1/webhooks', key: editor.key });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ scope: 'webhooks:read', role: 'editor' });

    const owner = await webhookTenant(t, hooks.url);
    const limited = await createTenant(t, { workspaceId: owner.workspaceId, channelIds: [owner.channelId] });
    const refused = await t.request({
      method: 'POST',
      url: '/public/v1/webhooks',
      key: limited.key,
      payload: { url: hooks.url, eventTypes: ['post.published'] },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('channel_limited_key');
  });

  const endpointUrl =
    (suffix = '') =>
    async (app: TestApp, tenant: { workspaceId: string }) =>
      `/public/v1/webhooks/${await seedEndpoint(app, tenant.workspaceId)}${suffix}`;
  runAuthMatrix(() => t, {
    method: 'POST',
    url: () => '/public/v1/webhooks',
    body: { url: 'https://hooks.example.com/h', eventTypes: ['post.published'] },
    scope: 'webhooks:write',
    okStatus: 201,
  });
  runAuthMatrix(() => t, { method: 'GET', url: () => '/public/v1/webhooks', scope: 'webhooks:read' });
  runAuthMatrix(() => t, { method: 'GET', url: endpointUrl(), scope: 'webhooks:read' });
  runAuthMatrix(() => t, { method: 'PATCH', url: endpointUrl(), body: { description: 'x' }, scope: 'webhooks:write' });
  runAuthMatrix(() => t, { method: 'DELETE', url: endpointUrl(), scope: 'webhooks:write' });
  runAuthMatrix(() => t, { method: 'POST', url: endpointUrl('/rotate-secret'), scope: 'webhooks:write' });
  runAuthMatrix(() => t, { method: 'GET', url: endpointUrl('/deliveries'), scope: 'webhooks:read' });
});

describe('the outbound guard', () => {
  it('a name that resolves to an internal address is refused at delivery, without a connection; the log says why', async () => {
    const names = resolver({ 'hooks.example.test': ['10.1.2.3'] });
    const connections = recorder();
    const guarded = await createTestApp({ outbound: createOutboundClient({ lookup: names.lookup, connector: connections.connector }) });
    const tenant = await createTenant(guarded);
    const endpoint = await createEndpoint(guarded, tenant, 'https://hooks.example.test/h', ['post.published']);
    expect((await guarded.request({ method: 'POST', url: `/public/v1/webhooks/${endpoint.id}/test`, key: tenant.key })).statusCode).toBe(
      201,
    );
    await guarded.services.webhookDelivery.drain();
    const [delivery] = await deliveryLog(guarded, tenant, endpoint.id);
    expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
    expect(delivery!.attemptLog[0]!.error).toMatch(/Refused to connect.*10\.1\.2\.3/);
    expect(names.asked).toContain('hooks.example.test');
    expect(connections.opened).toEqual([]);
    // Loopback too, when the server does not allow it.
    const local = await t.request({
      method: 'POST',
      url: '/public/v1/webhooks',
      key: (await createTenant(t)).key,
      payload: { url: 'http://127.0.0.1:9/h', eventTypes: ['post.published'] },
    });
    expect(local.statusCode).toBe(201);
    const refused = await guarded.request({
      method: 'POST',
      url: '/public/v1/webhooks',
      key: tenant.key,
      payload: { url: 'http://127.0.0.1:9/h', eventTypes: ['post.published'] },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().msg).toMatch(/OUTBOUND_ALLOW_LOOPBACK/);
  });
});
