import * as z from 'zod';
import type { WorkspaceAccess } from '../auth/access.service.ts';
import type { RestScope } from '../auth/scopes.ts';
import { getChannelSettings, triggerChannelTool } from '../channels/channel-tools.operations.ts';
import { listChannels } from '../channels/channels.operations.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { Clock } from '../lib/clock.ts';
import {
  HTML_CONTENT,
  type Operation,
  operationInput,
  plural,
  READ_ONLY,
  TIMES,
  type ToolAnnotations,
  writes,
} from '../operations/operation.ts';
import { listGroups } from '../groups/groups.operations.ts';
import {
  approvePost,
  getApprovalSettings,
  listAwaitingApproval,
  rejectPost,
  setApprovalSettings,
} from '../approvals/approvals.operations.ts';
import {
  changePostStatus,
  checkPostMissing,
  deletePost,
  deletePostGroup,
  getPost,
  listPosts,
  measurePostText,
  updatePost,
} from '../posts/posts.operations.ts';
import { listMedia, uploadFromUrl } from '../media/media.operations.ts';
import { createUploadLink, getUploadLink } from '../media/upload-links.operations.ts';
import { listNotifications } from '../notifications/notifications.operations.ts';
import {
  clearChannelSchedule,
  findSlot,
  getChannelSchedule,
  getDefaultSchedule,
  setChannelSchedule,
  setDefaultSchedule,
} from '../schedules/schedules.operations.ts';
import { createSeries, deleteSeries, getSeries, listSeries, updateSeries } from '../series/series.operations.ts';
import { createImport, getImport } from '../imports/imports.operations.ts';
import { getAnalyticsSummary, getChannelAnalytics, getPostAnalytics } from '../analytics/analytics.operations.ts';
import { createPostsBody, createPostsResponse } from '../posts/posts.schema.ts';
import { idempotencyHeaders } from '../http/common.schema.ts';
import type { Services } from '../services.ts';
import { statusSchema } from '../status/status.schema.ts';
import { buildStatus } from '../status/status.service.ts';
import { workspaceSchema } from '../workspaces/workspaces.schema.ts';
import {
  createWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  testWebhook,
  listWebhookDeliveries,
  redeliverWebhook,
  replayWebhookFailures,
} from '../webhooks/webhooks.operations.ts';

/** What every tool call knows: the shared services and the verified credential. */
export type ToolContext = { services: Services; baseUrl: string; clock: Clock; principal: Principal };

/**
 * One MCP tool: its input is a REST route's Zod schema (plus `workspace`), its output a REST
 * answer's schema, and it calls the service the route calls. `scope` is the scope of that REST
 * route: a call needs it within the owner's role, and the MCP scope that stands for it (`mcpScopeFor`).
 * Null: no workspace needed.
 */
export type Tool = {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  scope: RestScope | null;
  annotations: ToolAnnotations;
  run(ctx: ToolContext, access: WorkspaceAccess | null, args: Record<string, unknown>): Promise<unknown>;
  summary(output: Record<string, unknown>): string;
};

function tool<I extends z.ZodObject, O extends z.ZodObject>(spec: {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  scope: RestScope | null;
  annotations: ToolAnnotations;
  run(ctx: ToolContext, access: WorkspaceAccess, args: z.output<I>): Promise<z.input<O>>;
  summary(output: z.output<O>): string;
}): Tool {
  // A copy without the schema's OpenAPI id: with it, the JSON Schema would be a bare top-level
  // `$ref`, and clients that do not follow references would see no properties.
  return { ...spec, input: spec.input.extend({}), output: spec.output.extend({}) } as unknown as Tool;
}

/** The MCP tool of an operation: its input and call from the operation, the `workspace` argument added. */
function operationTool<P extends z.ZodObject, Q extends z.ZodObject, B extends z.ZodObject, R>(op: Operation<P, Q, B, R>): Tool {
  const { title, description, annotations, output, present, summary } = op.mcp;
  return tool({
    name: op.name,
    title,
    description,
    input: operationInput(op as Operation<z.ZodObject, z.ZodObject, z.ZodObject, unknown>, {
      workspace: workspaceArg,
      ...(op.idempotencyKey && { idempotencyKey: idempotencyKey.optional() }),
    }).omit(Object.fromEntries((op.mcp.restOnly ?? []).map((name) => [name, true])) as Record<string, true & never>),
    output,
    scope: op.scope,
    annotations,
    run: async (ctx, access, { workspace: _workspace, ...args }) => {
      const result = await op.call(ctx.services, access, args as Parameters<typeof op.call>[2]);
      return (present ? present(result) : result) as z.input<typeof output>;
    },
    summary: summary as (output: unknown) => string,
  });
}

const workspaceArg = z
  .string()
  .min(1)
  .max(100)
  .optional()
  .describe(
    'The workspace to act on (an id from list_workspaces). Needed only when the credential spans several workspaces; it overrides the `showorg` header.',
  );

const HTML = HTML_CONTENT;

export const MCP_INSTRUCTIONS = [
  'Herald schedules and publishes posts to social channels and keeps a media library.',
  'Start with get_status (the server clock) and list_channels (channel ids). A credential spanning several workspaces needs the `workspace` argument (list_workspaces).',
  TIMES,
  HTML,
  'Before scheduling, create a draft and run check_post_missing; `now` publishes at once and cannot be undone.',
  'To change a post, call update_post with only what changes.',
  'Where approval is on, a post scheduled by a role that needs it waits as AWAITING_APPROVAL until an owner, admin or approving editor calls approve_post or reject_post.',
  'Webhook endpoints (create_webhook, owners and admins) receive Herald events signed by Standard Webhooks; the secret is shown once.',
].join(' ');

const idempotencyKey = (idempotencyHeaders.shape['idempotency-key'] as z.ZodType).describe(
  'Any unique string (e.g. a UUID) that makes a retry safe: calling again with the same key and arguments returns the first answer and does nothing again (creates nothing new, edits nothing twice); the same key with other arguments is refused. Kept 48 hours.',
);

export const TOOLS: Tool[] = [
  // Not an operation: GET /status answers without any credential and acts in no workspace, while
  // an operation is a workspace's (a scope checked within a member's access). Its input (none) and
  // output (statusSchema) are the route's, and it calls the same buildStatus.
  tool({
    name: 'get_status',
    title: 'Service status and clock',
    description: `What this Herald server is, its API and MCP addresses, the scopes, and its clock (\`time\`, UTC): the authoritative "now" for scheduling. Call it before choosing a publish date. ${TIMES}`,
    input: z.object({}),
    output: statusSchema,
    scope: null,
    annotations: READ_ONLY,
    run: async (ctx) => buildStatus(ctx.baseUrl, ctx.clock, ctx.services.channels.platformApps),
    summary: (s) => `Herald is ${s.status}; server time ${s.time} (UTC).`,
  }),
  // Not an operation: GET /workspaces acts for the credential across its workspaces (no scope, no
  // workspace's access), and takes the workspace to mark `current` in the `showorg` header, which a
  // tool takes as its `workspace` argument; the answer is the route's list, wrapped in an object.
  tool({
    name: 'list_workspaces',
    title: 'List workspaces',
    description:
      'The workspaces this credential can act in, with the role its owner holds in each and whether the plan includes API access. Pass a workspace id as `workspace` to other tools when there are several.',
    input: z.object({ workspace: workspaceArg.describe('Mark this workspace as `current` (optional).') }),
    output: z.object({ workspaces: z.array(workspaceSchema) }),
    scope: null,
    annotations: READ_ONLY,
    run: async (ctx, _access, args) => ({ workspaces: await ctx.services.access.workspaces(ctx.principal, args.workspace) }),
    summary: (o) => `${plural(o.workspaces.length, 'workspace')}: ${o.workspaces.map((w) => `${w.name} (${w.id}, ${w.role})`).join('; ')}.`,
  }),
  operationTool(listChannels),
  operationTool(listGroups),
  operationTool(getChannelSettings),
  operationTool(triggerChannelTool),
  operationTool(listPosts),
  operationTool(getPost),
  // Not an operation: POST /posts takes the idempotency key as the `Idempotency-Key` header
  // (idempotencyHeaders, beside `showorg`) and a tool has no headers, so here it is the
  // `idempotencyKey` argument beside the body's fields. Input otherwise the route's body
  // (createPostsBody), output its answer (createPostsResponse, wrapped), same scope and service call.
  tool({
    name: 'create_post',
    title: 'Create, schedule or publish a post',
    description: [
      'Creates one post per channel, grouped: `type` `draft` (saved, not published), `schedule` (published at `date`) or `now` (published at once: this cannot be undone).',
      'Further `value` items are comments published under the post, in order. Sending an existing `group` (each created item carries it) replaces that composition (posts for channels no longer listed are removed); to change one post, use update_post.',
      HTML,
      `\`date\` is required for every type. ${TIMES} Prefer creating a draft, running check_post_missing, then change_post_status to schedule it.`,
      'Pass `idempotencyKey` so that a retry after a timeout does not post twice.',
    ].join(' '),
    input: createPostsBody.extend({ workspace: workspaceArg, idempotencyKey: idempotencyKey.optional() }),
    output: z.object({ posts: createPostsResponse }),
    scope: 'posts:draft',
    annotations: writes({ destructive: true, openWorld: true }),
    run: async (ctx, access, { workspace: _workspace, idempotencyKey: key, ...input }) => ({
      posts: await ctx.services.posts.create(access, input, key as string | undefined),
    }),
    summary: (o) =>
      `Created ${plural(o.posts.length, 'post')} in group ${o.posts[0]?.group ?? ''}: ${o.posts.map((p) => `${p.postId} on channel ${p.integration}`).join('; ')}.`,
  }),
  operationTool(updatePost),
  operationTool(changePostStatus),
  operationTool(checkPostMissing),
  operationTool(measurePostText),
  operationTool(deletePost),
  operationTool(deletePostGroup),
  operationTool(listMedia),
  operationTool(uploadFromUrl),
  operationTool(createUploadLink),
  operationTool(getUploadLink),
  operationTool(listNotifications),
  operationTool(getPostAnalytics),
  operationTool(getChannelAnalytics),
  operationTool(getAnalyticsSummary),
  operationTool(createWebhook),
  operationTool(listWebhooks),
  operationTool(getWebhook),
  operationTool(updateWebhook),
  operationTool(deleteWebhook),
  operationTool(rotateWebhookSecret),
  operationTool(testWebhook),
  operationTool(listWebhookDeliveries),
  operationTool(redeliverWebhook),
  operationTool(replayWebhookFailures),
  operationTool(getDefaultSchedule),
  operationTool(setDefaultSchedule),
  operationTool(getChannelSchedule),
  operationTool(setChannelSchedule),
  operationTool(clearChannelSchedule),
  operationTool(findSlot),
  operationTool(getApprovalSettings),
  operationTool(setApprovalSettings),
  operationTool(listAwaitingApproval),
  operationTool(approvePost),
  operationTool(rejectPost),
  operationTool(createSeries),
  operationTool(listSeries),
  operationTool(getSeries),
  operationTool(updateSeries),
  operationTool(deleteSeries),
  operationTool(createImport),
  operationTool(getImport),
];
