import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, createTestApp, type Tenant, type TestApp } from '../helpers/app.ts';
import { fileBody, png } from '../helpers/media-files.ts';
import { TEST_WEBHOOK_SECRET } from '../helpers/app.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { connectClient, mcpUrl } from './helpers.ts';
import { issueOAuthToken } from '../helpers/oauth.ts';
import { deliverAll, verified } from '../webhooks/helpers.ts';

const TOOL_NAMES = [
  'get_status',
  'list_workspaces',
  'list_channels',
  'list_groups',
  'get_channel_settings',
  'trigger_channel_tool',
  'list_posts',
  'get_post',
  'create_post',
  'update_post',
  'change_post_status',
  'check_post_missing',
  'measure_post_text',
  'delete_post',
  'delete_post_group',
  'list_media',
  'upload_from_url',
  'create_upload_link',
  'get_upload_link',
  'list_notifications',
  'get_post_analytics',
  'get_channel_analytics',
  'get_analytics_summary',
  'create_webhook',
  'list_webhooks',
  'get_webhook',
  'update_webhook',
  'delete_webhook',
  'rotate_webhook_secret',
  'test_webhook',
  'list_webhook_deliveries',
  'redeliver_webhook',
  'replay_webhook_failures',
  'get_default_schedule',
  'set_default_schedule',
  'get_channel_schedule',
  'set_channel_schedule',
  'clear_channel_schedule',
  'find_slot',
  'get_approval_settings',
  'set_approval_settings',
  'list_posts_awaiting_approval',
  'approve_post',
  'reject_post',
  'create_series',
  'list_series',
  'get_series',
  'update_series',
  'delete_series',
  'import_posts',
  'get_import',
];

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  expect(result.content[0]?.type).toBe('text');
  expect(result.content[0]?.text?.length).toBeGreaterThan(0);
  return result.structuredContent!;
}

async function toolError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return result.content[0]!.text!;
}

let t: TestApp;
let url: URL;
let owner: Tenant;
let rest: string;
let client: Client;
let channelId: string;
let mediaServer: http.Server;
let mediaUrl: string;
const receiver = await startWebhookReceiver();

beforeAll(async () => {
  t = await createTestApp({ env: { OUTBOUND_ALLOW_LOOPBACK: 'true' } });
  url = await mcpUrl(t);
  owner = await createTenant(t, { mcp: true });
  rest = (await t.services.apiKeys.create({ userId: owner.userId, kind: 'rest' })).secret;
  channelId = (
    await t.services.channels.create(owner.workspaceId, {
      provider: 'webhook',
      name: 'Site',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
    })
  ).id;
  client = await connectClient(url, owner.key);
  const image = png(8, 8);
  mediaServer = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length }).end(image),
  );
  await new Promise<void>((resolve) => mediaServer.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(mediaServer.address() as AddressInfo).port}/picture.png`;
});

afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => mediaServer?.close(resolve));
});

const restGet = async (path: string, key = rest) => {
  const res = await t.request({ method: 'GET', url: `/public/v1${path}`, key });
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
};

describe('MCP server: tools', () => {
  it('lists exactly the tools, each with an input and output schema and truthful annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    // Inputs are the REST schemas: the same fields, enums and limits.
    const create = byName.get('create_post')!;
    // `date` is optional for `type: "queue"` (the schedule gives it); the others still require it.
    expect(create.inputSchema.required).toEqual(expect.arrayContaining(['type', 'posts']));
    expect((create.inputSchema.properties!.type as { enum: string[] }).enum).toEqual(['draft', 'schedule', 'now', 'queue']);
    expect(create.inputSchema.properties).toHaveProperty('idempotencyKey');
    expect(create.inputSchema.properties).toHaveProperty('workspace');
    expect(create.description).toMatch(/cannot be undone/);
    expect(create.description).toMatch(/<p>/);
    expect(create.description).toMatch(/UTC/);
    expect(create.description).toMatch(/check_post_missing/);
    expect(byName.get('list_posts')!.inputSchema.required).toEqual(expect.arrayContaining(['startDate', 'endDate']));
    expect(byName.get('get_status')!.outputSchema!.properties).toHaveProperty('time');

    for (const name of [
      'get_status',
      'list_workspaces',
      'list_channels',
      'list_groups',
      'get_channel_settings',
      'list_posts',
      'get_post',
      'check_post_missing',
      'measure_post_text',
      'list_media',
      'get_upload_link',
      'list_notifications',
      'get_post_analytics',
      'get_channel_analytics',
      'get_analytics_summary',
      'list_webhooks',
      'get_webhook',
      'list_webhook_deliveries',
      'get_default_schedule',
      'get_channel_schedule',
      'find_slot',
      'list_series',
      'get_series',
    ]) {
      expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['set_default_schedule', 'set_channel_schedule']) {
      expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    }
    expect(byName.get('clear_channel_schedule')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const name of ['create_post', 'delete_post', 'delete_post_group', 'delete_webhook']) {
      expect(byName.get(name)!.annotations, name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    expect(byName.get('change_post_status')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(byName.get('upload_from_url')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, openWorldHint: true });
    expect(byName.get('create_upload_link')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(byName.get('trigger_channel_tool')!.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it('reads: status with the server clock, workspaces, channels, groups, settings', async () => {
    const status = await ok(client, 'get_status');
    expect(status.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(status.mcp).toEqual({ endpoint: 'http://herald.test/mcp-oauth', transport: 'streamable-http' });

    const { workspaces } = (await ok(client, 'list_workspaces')) as { workspaces: Array<Record<string, unknown>> };
    expect(workspaces).toEqual([expect.objectContaining({ id: owner.workspaceId, role: 'owner', current: true })]);

    const channels = await ok(client, 'list_channels');
    expect(channels).toEqual({ channels: (await restGet('/integrations')).body });

    const group = await t.services.groups.create(owner.workspaceId, 'Clients');
    expect(await ok(client, 'list_groups')).toEqual({ groups: [group] });
    expect(await ok(client, 'list_channels', { group: group.id })).toEqual({ channels: [] });
    expect(await toolError(client, 'list_channels', { group: 'no-such-group' })).toBe('No client group no-such-group in this workspace.');

    const settings = await ok(client, 'get_channel_settings', { id: channelId });
    expect(settings).toEqual((await restGet(`/integration-settings/${channelId}`)).body);
  });

  it('runs a channel tool: the webhook receiver gets the ping', async () => {
    const before = receiver.deliveries.length;
    const { result } = (await ok(client, 'trigger_channel_tool', {
      id: channelId,
      methodName: 'ping',
      data: { message: 'hello from MCP' },
    })) as { result: { ok: boolean } };
    expect(result.ok).toBe(true);
    expect(receiver.deliveries.length).toBe(before + 1);
    expect(receiver.deliveries.at(-1)!.body.type).toBe('ping');
    expect(await toolError(client, 'trigger_channel_tool', { id: channelId, methodName: 'explode' })).toMatch(
      /^Unknown methodName "explode"/,
    );
  });

  it('posts: draft, check, schedule, read, list, delete; effects seen through the REST API', async () => {
    const date = '2027-03-01T09:30:00Z';
    const { posts } = (await ok(client, 'create_post', {
      type: 'draft',
      date,
      idempotencyKey: 'mcp-create-1',
      posts: [{ integration: { id: channelId }, value: [{ content: 'Hello from an agent' }, { content: 'A comment', delay: 5 }] }],
    })) as { posts: Array<{ postId: string; integration: string }> };
    expect(posts).toEqual([{ postId: expect.any(String), integration: channelId, group: expect.any(String) }]);
    const postId = posts[0]!.postId;
    // The same idempotency key answers the first result and creates nothing.
    const again = await ok(client, 'create_post', {
      type: 'draft',
      date,
      idempotencyKey: 'mcp-create-1',
      posts: [{ integration: { id: channelId }, value: [{ content: 'Hello from an agent' }, { content: 'A comment', delay: 5 }] }],
    });
    expect(again).toEqual({ posts });

    const viaRest = await restGet(`/posts/${postId}`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toMatchObject({ state: 'DRAFT', content: '<p>Hello from an agent</p>', publishDate: '2027-03-01T09:30:00.000Z' });
    expect(await ok(client, 'get_post', { id: postId })).toEqual(viaRest.body);

    expect(await ok(client, 'check_post_missing', { id: postId })).toEqual((await restGet(`/posts/${postId}/missing`)).body);

    // An edit in place: only what is given changes; a retry with the same key edits once.
    const edit = { id: postId, content: 'Hello again', tags: ['agent'], idempotencyKey: 'mcp-edit-1' };
    const edited = await ok(client, 'update_post', edit);
    expect(edited).toMatchObject({
      state: 'DRAFT',
      content: '<p>Hello again</p>',
      tags: ['agent'],
      value: [{}, { content: '<p>A comment</p>', delay: 5 }],
    });
    expect(edited).toEqual((await restGet(`/posts/${postId}`)).body);
    expect(await ok(client, 'update_post', edit)).toEqual(edited);
    expect(await toolError(client, 'update_post', { id: postId })).toMatch(/^Nothing to change/);
    expect(await toolError(client, 'update_post', { id: 'missing-post', content: 'x' })).toBe('No post missing-post in this workspace.');

    const scheduled = await ok(client, 'change_post_status', { id: postId, status: 'schedule' });
    expect(scheduled.state).toBe('QUEUE');
    expect((await restGet(`/posts/${postId}`)).body.state).toBe('QUEUE');

    const window = { startDate: '2027-03-01T00:00:00Z', endDate: '2027-03-02T00:00:00Z' };
    const listed = await ok(client, 'list_posts', window);
    expect(listed).toEqual((await restGet(`/posts?startDate=${window.startDate}&endDate=${window.endDate}`)).body);
    expect((listed.posts as unknown[]).length).toBe(1);

    expect(await ok(client, 'delete_post', { id: postId })).toEqual({ deleted: 1, ids: [postId] });
    expect((await restGet(`/posts/${postId}`)).status).toBe(404);

    const second = (await ok(client, 'create_post', {
      type: 'draft',
      date,
      posts: [{ integration: { id: channelId }, value: [{ content: '<p>Two</p>' }] }],
    })) as { posts: Array<{ postId: string }> };
    const group = (await restGet(`/posts/${second.posts[0]!.postId}`)).body.group as string;
    expect(await ok(client, 'delete_post_group', { group })).toEqual({ deleted: 1, ids: [second.posts[0]!.postId] });
    expect((await restGet(`/posts/${second.posts[0]!.postId}`)).status).toBe(404);
  });

  it('imports: a dry run answers per-row errors, a real import creates the posts, and its status reads as through REST', async () => {
    const rows = [
      { channels: [channelId], date: '2027-04-01T09:00:00Z', content: 'Imported by an agent' },
      { channels: ['nope'], date: '2027-04-02T09:00:00Z', content: 'Unknown channel' },
    ];
    const dry = await ok(client, 'import_posts', { rows, dryRun: true });
    expect(dry).toMatchObject({ status: 'invalid', dryRun: true, total: 2, created: 0 });
    expect((dry.errors as Array<{ row: number; field: string }>).map((e) => [e.row, e.field])).toEqual([[2, 'channels']]);
    const csv = `channels,date,content\n${channelId},2027-04-01T09:00:00Z,Imported by an agent\n`;
    const done = await ok(client, 'import_posts', { csv, idempotencyKey: 'mcp-import-1' });
    expect(done).toMatchObject({ status: 'done', created: 1, errors: [] });
    expect(await ok(client, 'import_posts', { csv, idempotencyKey: 'mcp-import-1' })).toEqual(done);
    const read = await ok(client, 'get_import', { id: done.id });
    expect(read).toEqual((await restGet(`/imports/${String(done.id)}`)).body);
    const [created] = done.posts as Array<{ postIds: string[] }>;
    expect((await restGet(`/posts/${created!.postIds[0]}`)).body).toMatchObject({ state: 'QUEUE', content: '<p>Imported by an agent</p>' });
    expect(await toolError(client, 'get_import', { id: 'missing-import' })).toBe('No import missing-import in this workspace.');
  });

  it('media: upload from a URL, list, upload links', async () => {
    const uploaded = await ok(client, 'upload_from_url', { url: mediaUrl });
    expect(uploaded).toEqual({ id: expect.any(String), path: expect.stringMatching(/^http:\/\/herald\.test\//) });
    const library = await ok(client, 'list_media', { pageSize: 10 });
    expect(library).toEqual((await restGet('/media?pageSize=10')).body);
    expect(library.results).toEqual([expect.objectContaining({ id: uploaded.id, type: 'image', mimeType: 'image/png' })]);

    const link = await ok(client, 'create_upload_link');
    expect(link).toEqual({ id: expect.any(String), url: expect.stringMatching(/^http:\/\/herald\.test\//), expiresAt: expect.any(String) });
    const contents = await ok(client, 'get_upload_link', { id: link.id });
    expect(contents).toEqual({ id: link.id, status: 'empty', count: 0, files: [] });
    expect(contents).toEqual((await restGet(`/upload-link/${link.id as string}`)).body);
    // A link made with an MCP key (mcp:write) takes files, like one made with a REST key.
    const page = new URL(link.url as string).pathname;
    const sent = await t.request({ method: 'POST', url: `${page}/files`, ...fileBody(png(4, 4, [9, 8, 7]), 'from-mcp.png') });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(await ok(client, 'get_upload_link', { id: link.id })).toMatchObject({ status: 'ready', files: [{ name: 'from-mcp.png' }] });
  });

  it('notifications, as the REST API lists them', async () => {
    await t.services.notifications.notify(owner.workspaceId, {
      kind: 'channel_disconnected',
      message: 'Site needs reconnecting.',
      channelId,
    });
    const page = await ok(client, 'list_notifications');
    expect(page).toEqual((await restGet('/notifications')).body);
    expect(page.notifications).toEqual([expect.objectContaining({ type: 'channel_disconnected', message: 'Site needs reconnecting.' })]);
  });

  it('webhooks: create (secret shown once), send a test event, read the log; deliveries verify with the secret', async () => {
    const hooks = await startWebhookReceiver();
    const created = await call(client, 'create_webhook', { url: hooks.url, eventTypes: ['post.published'] });
    const endpoint = created.structuredContent as { id: string; secret: string };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(created.content[0]!.text).toContain('shown once');
    expect((await ok(client, 'get_webhook', { id: endpoint.id })).secret).toBeUndefined();
    expect(await ok(client, 'list_webhooks')).toEqual((await restGet('/webhooks')).body);

    const { eventId } = (await ok(client, 'test_webhook', { id: endpoint.id })) as { eventId: string };
    await deliverAll(t);
    const [delivery] = hooks.deliveries;
    expect(verified(delivery!, endpoint.secret)).toMatchObject({ type: 'webhook.test' });
    const log = (await ok(client, 'list_webhook_deliveries', { id: endpoint.id })) as { deliveries: Array<Record<string, unknown>> };
    expect(log.deliveries).toEqual([expect.objectContaining({ eventId, type: 'webhook.test', state: 'succeeded', attempts: 1 })]);
    expect(await ok(client, 'delete_webhook', { id: endpoint.id })).toEqual({ deleted: true });
    expect((await restGet(`/webhooks/${endpoint.id}`)).status).toBe(404);
  });

  it("a failing call is an error result carrying the API's sentence, never a transport failure", async () => {
    expect(await toolError(client, 'get_post', { id: 'missing-post' })).toBe('No post missing-post in this workspace.');
    expect(
      await toolError(client, 'create_post', {
        type: 'schedule',
        date: '2027-01-01T10:00',
        posts: [{ integration: { id: channelId }, value: [{ content: 'x' }] }],
      }),
    ).toMatch(/has no time zone/);
    expect(await toolError(client, 'upload_from_url', { url: 'http://10.0.0.1/x.png' })).toMatch(/private/i);
    // The connection is still usable afterwards.
    await ok(client, 'get_status');
  });
});

describe('MCP server: credentials', () => {
  const post = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('without a credential: 401 with the protected-resource challenge, whose metadata exists', async () => {
    const res = await post({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://herald.test/.well-known/oauth-protected-resource/mcp-oauth", scope="mcp:read mcp:write"',
    );
    const metadata = await t.request({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp-oauth' });
    expect(metadata.statusCode).toBe(200);
    expect(metadata.json()).toMatchObject({
      resource: 'http://herald.test/mcp-oauth',
      scopes_supported: ['mcp:read', 'mcp:write'],
      bearer_methods_supported: ['header'],
    });
  });

  it('a REST key is refused with 401 and says what the MCP server takes', async () => {
    const res = await post({ authorization: rest });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata=".*", scope=".*", error="invalid_token"$/);
    const body = (await res.json()) as { msg: string; code: string };
    expect(body.code).toBe('wrong_key_type');
    expect(body.msg).toMatch(/MCP keys \(svc_mcp_…\) or OAuth access tokens/);
    expect(body.msg).toMatch(/developer settings/);
    await expect(connectClient(url, rest)).rejects.toThrow();
    const asBearer = await post({ authorization: `Bearer ${rest}` });
    expect(asBearer.status).toBe(401);
    expect(((await asBearer.json()) as { code: string }).code).toBe('wrong_key_type');
  });

  it('an MCP key works as the whole value and as Bearer; MCP keys are refused by the REST API', async () => {
    const bearer = await connectClient(url, `Bearer ${owner.key}`);
    expect((await bearer.listTools()).tools.length).toBe(TOOL_NAMES.length);
    await bearer.close();
    expect((await restGet('/integrations', owner.key)).status).toBe(401);
  });

  it('a revoked key stops working; a rotated key works only with its new secret', async () => {
    const revoked = await createTenant(t, { mcp: true });
    const revokedClient = await connectClient(url, revoked.key);
    await t.services.apiKeys.revoke(revoked.keyId);
    await expect(revokedClient.listTools()).rejects.toThrow();
    const res = await post({ authorization: revoked.key });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { msg: string }).msg).toBe('This API key has been revoked.');

    const rotated = await createTenant(t, { mcp: true });
    const { secret } = await t.services.apiKeys.rotate(rotated.keyId);
    expect((await post({ authorization: rotated.key })).status).toBe(401);
    const fresh = await connectClient(url, secret);
    await ok(fresh, 'list_channels');
    await fresh.close();
  });

  it('another workspace is refused per call; a multi-workspace key names one with `workspace` or showorg', async () => {
    const other = await createTenant(t, { mcp: true });
    const text = await toolError(client, 'list_channels', { workspace: other.workspaceId });
    expect(text).toBe(
      `This key has no access to workspace "${other.workspaceId}" (its owner is not a member there, or the key is limited to another workspace).`,
    );
    // Another workspace's post is not found, like a missing one.
    const foreign = await t.services.channels.create(other.workspaceId, {
      provider: 'webhook',
      name: 'Theirs',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
    });
    expect(await toolError(client, 'get_channel_settings', { id: foreign.id })).toBe(`No channel ${foreign.id} in this workspace.`);

    await t.services.workspaces.addMember(other.workspaceId, owner.userId, 'viewer');
    expect(await toolError(client, 'list_channels')).toMatch(/^This key spans 2 workspaces/);
    expect(await ok(client, 'list_channels', { workspace: other.workspaceId })).toEqual({
      channels: [expect.objectContaining({ id: foreign.id })],
    });
    const viaHeader = await connectClient(url, owner.key, { showorg: owner.workspaceId });
    expect(await ok(viaHeader, 'list_channels')).toEqual({ channels: [expect.objectContaining({ id: channelId })] });
    await viaHeader.close();
    await t.services.workspaces.removeMember(other.workspaceId, owner.userId);
  });

  it('mcp:read reads but cannot write; a demoted owner loses writing on the very next call', async () => {
    const reader = await createTenant(t, { mcp: true, scopes: ['mcp:read'] });
    const readerClient = await connectClient(url, reader.key);
    await ok(readerClient, 'list_posts', { startDate: '2027-01-01T00:00:00Z', endDate: '2027-02-01T00:00:00Z' });
    expect(await toolError(readerClient, 'create_upload_link')).toBe(
      'Missing scope "mcp:write": the key was not granted it (the owner\'s role here is "owner").',
    );
    await readerClient.close();

    const demoted = await createTenant(t, { mcp: true });
    const demotedClient = await connectClient(url, demoted.key);
    await ok(demotedClient, 'create_upload_link');
    await t.services.workspaces.setRole(demoted.workspaceId, demoted.userId, 'viewer');
    expect(await toolError(demotedClient, 'create_upload_link')).toBe(
      'Missing scope "mcp:write": the key has it, but its owner\'s role "viewer" in this workspace does not allow it.',
    );
    await ok(demotedClient, 'list_groups');

    // A contributor may draft but not schedule: the REST rule, applied by the shared service.
    await t.services.workspaces.setRole(demoted.workspaceId, demoted.userId, 'contributor');
    const theirs = await t.services.channels.create(demoted.workspaceId, {
      provider: 'webhook',
      name: 'Hook',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
    });
    const body = { date: '2027-05-01T10:00:00Z', posts: [{ integration: { id: theirs.id }, value: [{ content: 'x' }] }] };
    await ok(demotedClient, 'create_post', { ...body, type: 'draft' });
    expect(await toolError(demotedClient, 'create_post', { ...body, type: 'schedule' })).toBe(
      'Missing scope "posts:publish": the key has it, but its owner\'s role "contributor" in this workspace does not allow it.',
    );
    await demotedClient.close();
  });
});

describe('MCP server: transport', () => {
  const headers = () => ({ authorization: owner.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const origin = await fetch(url, { method: 'POST', headers: { ...headers(), origin: 'http://evil.example' }, body: '{}' });
    expect(origin.status).toBe(403);
    const host = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { ...headers(), host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    });
    expect(host).toBe(403);
  });

  it('is stateless: GET and DELETE answer 405', async () => {
    expect((await fetch(url, { method: 'GET', headers: { authorization: owner.key, accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(url, { method: 'DELETE', headers: { authorization: owner.key } })).status).toBe(405);
  });

  it('serves a client of an earlier revision that initialises', async () => {
    const init = await fetch(url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
      }),
    });
    expect(init.status).toBe(200);
    const text = await init.text();
    expect(text).toMatch(/"protocolVersion":"2025-06-18"/);
    const list = await fetch(url, {
      method: 'POST',
      headers: { ...headers(), 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toMatch(/"get_status"/);
  });

  it('counts each tool against its own quota per credential', async () => {
    const limited = await createTestApp({ env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_ROUTES: '{"POST /mcp-oauth": 1000}' } });
    const tenant = await createTenant(limited, { mcp: true });
    const limitedClient = await connectClient(await mcpUrl(limited), tenant.key);
    await ok(limitedClient, 'get_status');
    await ok(limitedClient, 'get_status');
    expect(await toolError(limitedClient, 'get_status')).toMatch(
      /^Too many calls of get_status: the quota is 2 per 60 s for each credential\. Retry in \d+ s\.$/,
    );
    await ok(limitedClient, 'list_groups');
    await limitedClient.close();
    await limited.close();
  });
});

describe('MCP server with OAuth access tokens (Bearer svco_…, bound to the MCP resource)', () => {
  async function person(scopes: string[], resource: 'mcp' | 'rest' = 'mcp') {
    const tenant = await createTenant(t);
    const channel = await t.services.channels.create(tenant.workspaceId, {
      provider: 'webhook',
      name: 'Blog',
      config: { url: receiver.url, secret: TEST_WEBHOOK_SECRET },
    });
    const { accessToken } = await issueOAuthToken(t, { ...tenant, scopes, resource });
    return { tenant, channelId: channel.id, token: `Bearer ${accessToken}` };
  }

  it('lists the tools and reads with mcp:read, and is refused a write tool', async () => {
    const { channelId: own, token } = await person(['mcp:read']);
    const reader = await connectClient(url, token);
    const { tools } = await reader.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(await ok(reader, 'list_channels')).toEqual({ channels: [expect.objectContaining({ id: own, name: 'Blog' })] });
    expect(await toolError(reader, 'create_upload_link')).toMatch(/^Missing scope "mcp:write": the key was not granted it/);
    await reader.close();
  });

  it('writes with mcp:write: an upload link made through MCP takes files', async () => {
    const { tenant, token } = await person(['mcp:write']);
    const writer = await connectClient(url, token);
    const link = await ok(writer, 'create_upload_link');
    const row = await t.runtime.db
      .selectFrom('upload_links')
      .selectAll()
      .where('id', '=', link.id as string)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ created_by_key_id: null, created_by_grant_id: expect.any(String), created_by_user_id: tenant.userId });
    const sent = await t.request({
      method: 'POST',
      url: `${new URL(link.url as string).pathname}/files`,
      ...fileBody(png(5, 4, [1, 1, 9]), 'via-oauth.png'),
    });
    expect(sent.statusCode, sent.body).toBe(200);
    await writer.close();
  });

  it('narrows at once: a demoted user loses writing, a removed user everything, on the very next call', async () => {
    const { tenant, token } = await person(['mcp:read', 'mcp:write']);
    const session = await connectClient(url, token);
    await ok(session, 'create_upload_link');
    await t.services.workspaces.setRole(tenant.workspaceId, tenant.userId, 'viewer');
    expect(await toolError(session, 'create_upload_link')).toMatch(/role "viewer"/);
    await ok(session, 'list_channels');
    await t.services.workspaces.removeMember(tenant.workspaceId, tenant.userId);
    expect(await toolError(session, 'list_channels')).toMatch(/no longer a member|no access|belongs to no workspace/);
    await session.close();
  });

  it('refuses a revoked token, and a token bound to the REST API', async () => {
    const { tenant, token } = await person(['mcp:read']);
    const session = await connectClient(url, token);
    await ok(session, 'list_channels');
    const [allowed] = await t.services.oauth.allowedApps(tenant.userId);
    expect(await t.services.oauth.revokeGrant(tenant.userId, allowed!.grantId)).toBe(true);
    await expect(session.listTools()).rejects.toThrow(/401|invalid|revoked/i);
    await session.close();

    const bound = await person(['posts:read'], 'rest');
    await expect(connectClient(url, bound.token)).rejects.toThrow();
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: bound.token, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { msg: string }).msg).toMatch(/issued for the REST API/);
    expect(res.headers.get('www-authenticate')).toMatch(
      /resource_metadata="http:\/\/herald\.test\/\.well-known\/oauth-protected-resource\/mcp-oauth", scope="mcp:read mcp:write", error="invalid_token"/,
    );
  });
});
