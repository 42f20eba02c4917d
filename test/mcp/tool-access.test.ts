import type { Client } from '@modelcontextprotocol/client';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkspaceAccess } from '../../src/auth/access.service.ts';
import { effectiveScopes, grantedScopes, REST_SCOPES, ROLES, type McpScope, type RestScope, type Role } from '../../src/auth/scopes.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { TOOLS } from '../../src/mcp/mcp.tools.ts';
import { createTenant, createTestApp, TEST_WEBHOOK_SECRET, type Tenant, type TestApp } from '../helpers/app.ts';
import { connectClient, mcpUrl } from './helpers.ts';

/**
 * Every MCP tool against the REST route it mirrors: the same caller (role, scopes, channel
 * limit) must get the same answer from both, and a caller lacking the route's scope a 403.
 */

const clock = new ManualClock('2026-05-01T12:00:00.000Z');
const HOOK = 'https://hooks.example.test/in';
const DATE = '2026-06-01T10:00:00.000Z';
const ENDPOINT_URL = HOOK;

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  _meta?: Record<string, { status: number; code: string }>;
};

/** One caller: a REST key and an MCP key of the same person, with the same scopes and channel limit. */
type Caller = { label: string; role: Role; mcpScopes: McpScope[]; restScopes: RestScope[]; restKey: string; mcp: Client };

let t: TestApp;
let url: URL;
let owner: Tenant;
let ownerAccess: WorkspaceAccess;
let contributorAccess: WorkspaceAccess;
let shown: string;
let hidden: string;
const callers: Caller[] = [];
const clients: Client[] = [];

/** The REST scopes an MCP key with `mcpScopes` stands for. */
function restEquivalent(mcpScopes: McpScope[]): RestScope[] {
  return REST_SCOPES.filter((scope) => grantedScopes(mcpScopes).has(scope));
}

async function caller(label: string, role: Role, mcpScopes: McpScope[], channelIds: string[] | null = null): Promise<Caller> {
  const person = await createTenant(t, {
    workspaceId: owner.workspaceId,
    role,
    scopes: restEquivalent(mcpScopes),
    channelIds: channelIds ?? undefined,
  });
  const { secret } = await t.services.apiKeys.create({ userId: person.userId, kind: 'mcp', scopes: mcpScopes, channelIds });
  const mcp = await connectClient(url, secret);
  clients.push(mcp);
  return { label, role, mcpScopes, restScopes: restEquivalent(mcpScopes), restKey: person.key, mcp };
}

async function post(type: 'draft' | 'schedule', channelId = hidden): Promise<{ id: string; group: string }> {
  const [created] = await t.services.posts.create(ownerAccess, {
    type,
    date: DATE,
    shortLink: false,
    tags: [],
    posts: [{ integration: { id: channelId }, value: [{ content: 'x', image: [] }] }],
  });
  const { group } = await t.services.posts.get(ownerAccess, created!.postId);
  return { id: created!.postId, group };
}

/** A post a contributor scheduled while approval was asked of contributors: it awaits approval (the setting is then off again). */
async function awaiting(): Promise<string> {
  await t.services.approvals.setSettings(ownerAccess, { roles: ['contributor'] });
  try {
    const [created] = await t.services.posts.create(contributorAccess, {
      type: 'schedule',
      date: DATE,
      shortLink: false,
      tags: [],
      posts: [{ integration: { id: hidden }, value: [{ content: 'x', image: [] }] }],
    });
    return created!.postId;
  } finally {
    await t.services.approvals.setSettings(ownerAccess, { roles: [] });
  }
}

const REPEAT = { frequency: 'weekly' as const, start: '2026-06-01T09:00', timeZone: 'Europe/Berlin', count: 3 };

/** A recurring series of the owner's on `channelId`. */
async function series(channelId = hidden): Promise<string> {
  const created = await t.services.series.create(ownerAccess, {
    repeat: REPEAT,
    shortLink: false,
    tags: [],
    posts: [{ integration: { id: channelId }, value: [{ content: 'x', image: [] }] }],
  });
  return created.id;
}

/**
 * A fresh webhook endpoint of the owner's workspace, the others removed first: the workspace holds
 * at most 20, and the cases create and delete many. Nothing delivers in these tests (no worker runs).
 */
async function endpoint(): Promise<string> {
  await clearEndpoints();
  return (
    await t.services.webhooks.create(ownerAccess, { url: ENDPOINT_URL, description: '', eventTypes: ['post.created'], enabled: true })
  ).id;
}

async function clearEndpoints(): Promise<void> {
  for (const { id } of (await t.services.webhooks.list(ownerAccess)).endpoints) await t.services.webhooks.delete(ownerAccess, id);
}

async function uploadLink(): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/public/v1/upload-link', key: owner.key });
  expect(res.statusCode, res.body).toBe(201);
  return (res.json() as { id: string }).id;
}

/** What a REST answer and a tool result come to: success, or the status and code of the refusal. */
function restOutcome(res: { statusCode: number; json(): unknown }): string {
  if (res.statusCode < 300) return 'ok';
  return `${res.statusCode} ${(res.json() as { code?: string }).code ?? ''}`;
}

function mcpOutcome(result: ToolResult): string {
  if (!result.isError) return 'ok';
  const error = result._meta?.['herald/error'];
  return `${error?.status} ${error?.code ?? ''}`;
}

type Request = { rest: InjectOptions & { url: string }; args: Record<string, unknown> };

/**
 * One call of a tool and of its REST route. `prepare` runs once for each surface, so a tool
 * that changes or removes its object acts on one of its own each time.
 */
type Case = { tool: string; label: string; prepare: () => Promise<Request> };

const postBody = (type: string, extra: Record<string, unknown> = {}) => ({
  type,
  date: DATE,
  posts: [{ integration: { id: hidden }, value: [{ content: 'x' }] }],
  ...extra,
});

const SCHEDULE = { timeZone: 'Europe/Paris', slots: [{ day: 'monday', time: '09:00' }] };

const CASES: Case[] = [
  { tool: 'get_status', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/status' }, args: {} }) },
  { tool: 'list_workspaces', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/workspaces' }, args: {} }) },
  { tool: 'list_channels', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/integrations' }, args: {} }) },
  { tool: 'list_groups', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/groups' }, args: {} }) },
  {
    tool: 'get_channel_settings',
    label: '',
    prepare: async () => ({ rest: { method: 'GET', url: `/integration-settings/${hidden}` }, args: { id: hidden } }),
  },
  {
    tool: 'trigger_channel_tool',
    label: '',
    prepare: async () => ({
      rest: { method: 'POST', url: `/integration-trigger/${hidden}`, payload: { methodName: 'no_such_tool', data: {} } },
      args: { id: hidden, methodName: 'no_such_tool', data: {} },
    }),
  },
  {
    tool: 'list_posts',
    label: '',
    prepare: async () => ({
      rest: { method: 'GET', url: '/posts?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z' },
      args: { startDate: '2026-05-01T00:00:00Z', endDate: '2026-07-01T00:00:00Z' },
    }),
  },
  {
    tool: 'get_post',
    label: '',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'GET', url: `/posts/${id}` }, args: { id } };
    },
  },
  {
    tool: 'create_post',
    label: 'a draft',
    prepare: async () => ({ rest: { method: 'POST', url: '/posts', payload: postBody('draft') }, args: postBody('draft') }),
  },
  {
    tool: 'create_post',
    label: 'scheduled',
    prepare: async () => ({ rest: { method: 'POST', url: '/posts', payload: postBody('schedule') }, args: postBody('schedule') }),
  },
  {
    tool: 'create_post',
    label: 'a draft over a scheduled group',
    prepare: async () => {
      const body = postBody('draft', { group: (await post('schedule')).group });
      return { rest: { method: 'POST', url: '/posts', payload: body }, args: body };
    },
  },
  {
    tool: 'update_post',
    label: 'the text of a draft',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'PATCH', url: `/posts/${id}`, payload: { content: 'edited' } }, args: { id, content: 'edited' } };
    },
  },
  {
    tool: 'update_post',
    label: 'the text of a scheduled post',
    prepare: async () => {
      const { id } = await post('schedule');
      return { rest: { method: 'PATCH', url: `/posts/${id}`, payload: { content: 'edited' } }, args: { id, content: 'edited' } };
    },
  },
  {
    tool: 'update_post',
    label: 'a draft into the queue',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'PATCH', url: `/posts/${id}`, payload: { type: 'schedule' } }, args: { id, type: 'schedule' } };
    },
  },
  {
    tool: 'change_post_status',
    label: 'schedule a draft',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'PUT', url: `/posts/${id}/status`, payload: { status: 'schedule' } }, args: { id, status: 'schedule' } };
    },
  },
  {
    tool: 'change_post_status',
    label: 'a scheduled post back to draft',
    prepare: async () => {
      const { id } = await post('schedule');
      return { rest: { method: 'PUT', url: `/posts/${id}/status`, payload: { status: 'draft' } }, args: { id, status: 'draft' } };
    },
  },
  {
    tool: 'measure_post_text',
    label: '',
    prepare: async () => {
      const body = { integrations: [hidden], value: [{ content: '<p>Read https://example.com/launch</p>' }] };
      return { rest: { method: 'POST', url: '/posts/measure', payload: body }, args: body };
    },
  },
  {
    tool: 'check_post_missing',
    label: '',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'GET', url: `/posts/${id}/missing` }, args: { id } };
    },
  },
  {
    tool: 'delete_post',
    label: 'a scheduled post',
    prepare: async () => {
      const { id } = await post('schedule');
      return { rest: { method: 'DELETE', url: `/posts/${id}` }, args: { id } };
    },
  },
  {
    tool: 'delete_post_group',
    label: '',
    prepare: async () => {
      const { group } = await post('draft');
      return { rest: { method: 'DELETE', url: `/posts/group/${group}` }, args: { group } };
    },
  },
  { tool: 'list_media', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/media?pageSize=10' }, args: { pageSize: 10 } }) },
  // A refused address: whoever may upload gets the same 400, and nothing is fetched.
  {
    tool: 'upload_from_url',
    label: '',
    prepare: async () => ({
      rest: { method: 'POST', url: '/upload-from-url', payload: { url: 'http://10.0.0.1/x.png' } },
      args: { url: 'http://10.0.0.1/x.png' },
    }),
  },
  { tool: 'create_upload_link', label: '', prepare: async () => ({ rest: { method: 'POST', url: '/upload-link' }, args: {} }) },
  {
    tool: 'get_upload_link',
    label: '',
    prepare: async () => {
      const id = await uploadLink();
      return { rest: { method: 'GET', url: `/upload-link/${id}` }, args: { id } };
    },
  },
  { tool: 'list_notifications', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/notifications' }, args: {} }) },
  {
    tool: 'get_post_analytics',
    label: '',
    prepare: async () => {
      const { id } = await post('draft');
      return { rest: { method: 'GET', url: `/analytics/posts/${id}` }, args: { id } };
    },
  },
  {
    tool: 'get_channel_analytics',
    label: '',
    prepare: async () => ({
      rest: { method: 'GET', url: `/analytics/channels/${hidden}?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z` },
      args: { id: hidden, startDate: '2026-05-01T00:00:00Z', endDate: '2026-07-01T00:00:00Z' },
    }),
  },
  {
    tool: 'get_analytics_summary',
    label: '',
    prepare: async () => ({
      rest: { method: 'GET', url: '/analytics/summary?startDate=2026-05-01T00:00:00Z&endDate=2026-07-01T00:00:00Z' },
      args: { startDate: '2026-05-01T00:00:00Z', endDate: '2026-07-01T00:00:00Z' },
    }),
  },
  {
    tool: 'create_webhook',
    label: '',
    prepare: async () => {
      await clearEndpoints();
      const body = { url: ENDPOINT_URL, eventTypes: ['post.published'] };
      return { rest: { method: 'POST', url: '/webhooks', payload: body }, args: body };
    },
  },
  { tool: 'list_webhooks', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/webhooks' }, args: {} }) },
  {
    tool: 'get_webhook',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'GET', url: `/webhooks/${id}` }, args: { id } };
    },
  },
  {
    tool: 'update_webhook',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'PATCH', url: `/webhooks/${id}`, payload: { enabled: false } }, args: { id, enabled: false } };
    },
  },
  {
    tool: 'delete_webhook',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'DELETE', url: `/webhooks/${id}` }, args: { id } };
    },
  },
  {
    tool: 'rotate_webhook_secret',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'POST', url: `/webhooks/${id}/rotate-secret` }, args: { id } };
    },
  },
  {
    tool: 'test_webhook',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'POST', url: `/webhooks/${id}/test` }, args: { id } };
    },
  },
  {
    tool: 'list_webhook_deliveries',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'GET', url: `/webhooks/${id}/deliveries?limit=5` }, args: { id, limit: 5 } };
    },
  },
  // No such delivery: whoever may manage endpoints gets the same 404.
  {
    tool: 'redeliver_webhook',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      return { rest: { method: 'POST', url: `/webhooks/${id}/deliveries/nope/redeliver` }, args: { id, deliveryId: 'nope' } };
    },
  },
  {
    tool: 'replay_webhook_failures',
    label: '',
    prepare: async () => {
      const id = await endpoint();
      const since = '2026-04-01T00:00:00Z';
      return { rest: { method: 'POST', url: `/webhooks/${id}/replay`, payload: { since } }, args: { id, since } };
    },
  },
  { tool: 'get_default_schedule', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/schedule' }, args: {} }) },
  {
    tool: 'set_default_schedule',
    label: '',
    prepare: async () => ({ rest: { method: 'PUT', url: '/schedule', payload: SCHEDULE }, args: SCHEDULE }),
  },
  {
    tool: 'get_channel_schedule',
    label: '',
    prepare: async () => ({ rest: { method: 'GET', url: `/integrations/${hidden}/schedule` }, args: { id: hidden } }),
  },
  {
    tool: 'set_channel_schedule',
    label: '',
    prepare: async () => ({
      rest: { method: 'PUT', url: `/integrations/${hidden}/schedule`, payload: SCHEDULE },
      args: { id: hidden, ...SCHEDULE },
    }),
  },
  {
    tool: 'clear_channel_schedule',
    label: '',
    prepare: async () => ({ rest: { method: 'DELETE', url: `/integrations/${hidden}/schedule` }, args: { id: hidden } }),
  },
  {
    tool: 'find_slot',
    label: '',
    prepare: async () => ({ rest: { method: 'GET', url: `/find-slot/${hidden}` }, args: { channelId: hidden } }),
  },
  {
    tool: 'get_approval_settings',
    label: '',
    prepare: async () => ({ rest: { method: 'GET', url: '/approval-settings' }, args: {} }),
  },
  {
    tool: 'set_approval_settings',
    label: '',
    prepare: async () => ({ rest: { method: 'PUT', url: '/approval-settings', payload: { roles: [] } }, args: { roles: [] } }),
  },
  {
    tool: 'list_posts_awaiting_approval',
    label: '',
    prepare: async () => {
      await awaiting();
      return { rest: { method: 'GET', url: '/posts/awaiting-approval' }, args: {} };
    },
  },
  {
    tool: 'approve_post',
    label: '',
    prepare: async () => {
      const id = await awaiting();
      return { rest: { method: 'POST', url: `/posts/${id}/approve`, payload: { comment: 'ok' } }, args: { id, comment: 'ok' } };
    },
  },
  {
    tool: 'reject_post',
    label: '',
    prepare: async () => {
      const id = await awaiting();
      return { rest: { method: 'POST', url: `/posts/${id}/reject`, payload: { comment: 'no' } }, args: { id, comment: 'no' } };
    },
  },
  {
    tool: 'create_series',
    label: '',
    prepare: async () => {
      const body = { repeat: REPEAT, posts: [{ integration: { id: hidden }, value: [{ content: 'x' }] }] };
      return { rest: { method: 'POST', url: '/series', payload: body }, args: body };
    },
  },
  { tool: 'list_series', label: '', prepare: async () => ({ rest: { method: 'GET', url: '/series' }, args: {} }) },
  {
    tool: 'get_series',
    label: '',
    prepare: async () => {
      const id = await series();
      return { rest: { method: 'GET', url: `/series/${id}` }, args: { id } };
    },
  },
  {
    tool: 'update_series',
    label: '',
    prepare: async () => {
      const id = await series();
      return { rest: { method: 'PATCH', url: `/series/${id}`, payload: { tags: ['weekly'] } }, args: { id, tags: ['weekly'] } };
    },
  },
  {
    tool: 'delete_series',
    label: '',
    prepare: async () => {
      const id = await series();
      return { rest: { method: 'DELETE', url: `/series/${id}` }, args: { id } };
    },
  },
  {
    tool: 'import_posts',
    label: '',
    prepare: async () => {
      const body = { dryRun: true, rows: [{ channels: [hidden], date: '2026-12-01T09:30:00Z', content: 'x' }] };
      return { rest: { method: 'POST', url: '/imports', payload: body }, args: body };
    },
  },
  {
    tool: 'get_import',
    label: '',
    prepare: async () => {
      const { id } = await t.services.imports.create(ownerAccess, {
        dryRun: true,
        partial: false,
        rows: [{ channels: [hidden], date: '2026-12-01T09:30:00Z', content: 'x' }],
      });
      return { rest: { method: 'GET', url: `/imports/${id}` }, args: { id } };
    },
  },
  {
    tool: 'create_post',
    label: 'queued',
    prepare: async () => {
      const body = { type: 'queue', posts: [{ integration: { id: hidden }, value: [{ content: 'x' }] }] };
      return { rest: { method: 'POST', url: '/posts', payload: body }, args: body };
    },
  },
];

beforeAll(async () => {
  t = await createTestApp({ clock });
  url = await mcpUrl(t);
  owner = await createTenant(t);
  ownerAccess = await t.services.access.select(await t.services.apiKeys.authenticate(owner.key, 'rest'), undefined);
  const contributor = await createTenant(t, { workspaceId: owner.workspaceId, role: 'contributor' });
  contributorAccess = await t.services.access.select(await t.services.apiKeys.authenticate(contributor.key, 'rest'), undefined);
  const channel = (name: string) =>
    t.services.channels.create(owner.workspaceId, { provider: 'webhook', name, config: { url: HOOK, secret: TEST_WEBHOOK_SECRET } });
  shown = (await channel('Shown')).id;
  hidden = (await channel('Hidden')).id;
  for (const role of ROLES) {
    callers.push(await caller(`${role}, mcp:read and mcp:write`, role, ['mcp:read', 'mcp:write']));
    callers.push(await caller(`${role}, mcp:read`, role, ['mcp:read']));
    callers.push(await caller(`${role}, mcp:write`, role, ['mcp:write']));
  }
  // Every object the cases name is on the channel this key is not limited to.
  callers.push(await caller('owner, limited to another channel', 'owner', ['mcp:read', 'mcp:write'], [shown]));
});

afterAll(async () => {
  for (const client of clients) await client.close();
});

describe('every MCP tool answers as the REST route it mirrors, for every role, scope and channel limit', () => {
  it('every tool has a case, and each case names a tool', () => {
    const names = TOOLS.map((tool) => tool.name);
    expect([...new Set(CASES.map((c) => c.tool))].sort()).toEqual([...names].sort());
  });

  it.each(CASES.map((c) => [c.label ? `${c.tool} (${c.label})` : c.tool, c] as const))('%s', async (_name, c) => {
    const tool = TOOLS.find((candidate) => candidate.name === c.tool)!;
    for (const who of callers) {
      const rest = (await c.prepare()).rest;
      const restAnswer = await t.request({ ...rest, url: `/public/v1${rest.url}`, key: rest.url === '/status' ? undefined : who.restKey });
      const { args } = await c.prepare();
      const result = (await who.mcp.callTool({ name: c.tool, arguments: args })) as ToolResult;
      const expected = restOutcome(restAnswer);
      const outcome = mcpOutcome(result);
      // A key with mcp:write alone stands for every REST scope, yet the reading tools want mcp:read: stricter than REST, never looser.
      if (who.mcpScopes.join() === 'mcp:write' && expected !== outcome) expect(outcome, who.label).toBe('403 missing_scope');
      else expect(outcome, `${who.label}: ${JSON.stringify(result.content)}`).toBe(expected);
      // The REST route refuses whoever lacks the scope the tool declares for it.
      if (tool.scope !== null && !effectiveScopes(who.restScopes, who.role).has(tool.scope))
        expect(expected, who.label).toBe('403 missing_scope');
    }
  });
});

describe('moving a post in or out of the queue takes posts:publish, on every surface', () => {
  const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as ToolResult;
  const stateOf = async (id: string) => (await t.services.posts.get(ownerAccess, id)).state;

  it("a contributor's MCP key can neither schedule a draft nor unschedule the owner's post; PUT /posts/:id/status refuses them alike", async () => {
    const contributor = callers.find((c) => c.role === 'contributor' && c.mcpScopes.includes('mcp:write'))!;
    const draft = await post('draft');
    const scheduled = await post('schedule');
    const refusal =
      'Missing scope "posts:publish": the key has it, but its owner\'s role "contributor" in this workspace does not allow it.';

    const schedule = await callTool(contributor.mcp, 'change_post_status', { id: draft.id, status: 'schedule' });
    expect(schedule.isError).toBe(true);
    expect(schedule.content[0]!.text).toBe(refusal);
    expect(schedule._meta?.['herald/error']).toMatchObject({
      status: 403,
      code: 'missing_scope',
      scope: 'posts:publish',
      role: 'contributor',
    });
    const unschedule = await callTool(contributor.mcp, 'change_post_status', { id: scheduled.id, status: 'draft' });
    expect(unschedule.content[0]!.text).toBe(refusal);
    expect(await stateOf(draft.id)).toBe('DRAFT');
    expect(await stateOf(scheduled.id)).toBe('QUEUE');

    const rest = await t.request({
      method: 'PUT',
      url: `/public/v1/posts/${scheduled.id}/status`,
      key: contributor.restKey,
      payload: { status: 'draft' },
    });
    expect(rest.statusCode).toBe(403);
    expect(rest.json()).toMatchObject({ code: 'missing_scope', scope: 'posts:publish' });
  });

  it("an editor's MCP key schedules and unschedules", async () => {
    const editor = callers.find((c) => c.role === 'editor' && c.mcpScopes.includes('mcp:write'))!;
    const { id } = await post('draft');
    expect((await callTool(editor.mcp, 'change_post_status', { id, status: 'schedule' })).isError).toBeFalsy();
    expect(await stateOf(id)).toBe('QUEUE');
    expect((await callTool(editor.mcp, 'change_post_status', { id, status: 'draft' })).isError).toBeFalsy();
    expect(await stateOf(id)).toBe('DRAFT');
  });

  it('the service itself refuses a caller without posts:publish, whichever surface calls it', async () => {
    const contributor = callers.find((c) => c.role === 'contributor' && c.mcpScopes.includes('mcp:write'))!;
    const access = await t.services.access.select(await t.services.apiKeys.authenticate(contributor.restKey, 'rest'), undefined);
    const { id } = await post('draft');
    await expect(t.services.posts.changeStatus(access, id, 'schedule')).rejects.toMatchObject({ statusCode: 403, code: 'missing_scope' });
    await expect(t.services.posts.setReleaseId(access, id, 'x', undefined)).rejects.toMatchObject({
      statusCode: 403,
      code: 'missing_scope',
    });
    expect(await stateOf(id)).toBe('DRAFT');
  });
});

describe('the media library and upload links take media:write, as on the REST API', () => {
  const MEDIA_TOOLS = ['list_media', 'get_upload_link', 'create_upload_link', 'upload_from_url'];

  it("a viewer's MCP key cannot list the library or read an upload link, like its REST key", async () => {
    const viewer = callers.find((c) => c.role === 'viewer' && c.mcpScopes.includes('mcp:write'))!;
    const id = await uploadLink();
    for (const [name, args] of [
      ['list_media', {}],
      ['get_upload_link', { id }],
    ] as const) {
      const result = (await viewer.mcp.callTool({ name, arguments: args })) as ToolResult;
      expect(result.isError, name).toBe(true);
      expect(result.content[0]!.text, name).toBe(
        'Missing scope "mcp:write": the key has it, but its owner\'s role "viewer" in this workspace does not allow it.',
      );
      expect((result as { structuredContent?: unknown }).structuredContent, name).toBeUndefined();
    }
    expect((await t.request({ method: 'GET', url: '/public/v1/media', key: viewer.restKey })).statusCode).toBe(403);
    expect((await t.request({ method: 'GET', url: `/public/v1/upload-link/${id}`, key: viewer.restKey })).statusCode).toBe(403);
  });

  it("an owner's mcp:read key is told the library needs mcp:write", async () => {
    const reader = callers.find((c) => c.role === 'owner' && c.label === 'owner, mcp:read')!;
    for (const name of MEDIA_TOOLS) {
      const result = (await reader.mcp.callTool({
        name,
        arguments: name === 'get_upload_link' ? { id: 'any' } : name === 'upload_from_url' ? { url: 'http://10.0.0.1/x.png' } : {},
      })) as ToolResult;
      expect(result.content[0]!.text, name).toBe(
        'Missing scope "mcp:write": the key was not granted it (the owner\'s role here is "owner").',
      );
    }
  });

  it('the services themselves refuse a viewer', async () => {
    const viewer = callers.find((c) => c.role === 'viewer' && c.mcpScopes.includes('mcp:write'))!;
    const access = await t.services.access.select(await t.services.apiKeys.authenticate(viewer.restKey, 'rest'), undefined);
    const refused = { statusCode: 403, code: 'missing_scope', details: { scope: 'media:write', role: 'viewer' } };
    await expect(t.services.media.list(access, { page: 0, pageSize: 10 })).rejects.toMatchObject(refused);
    await expect(t.services.media.uploadFromUrl(access, 'http://10.0.0.1/x.png')).rejects.toMatchObject(refused);
    await expect(t.services.uploadLinks.create(access)).rejects.toMatchObject(refused);
    await expect(t.services.uploadLinks.contents(access, 'any')).rejects.toMatchObject(refused);
  });
});
