import * as z from 'zod';
import type { WorkspaceAccess } from '../auth/access.service.ts';
import type { RestScope } from '../auth/scopes.ts';
import { getChannelSettings, triggerChannelTool } from '../channels/channel-tools.operations.ts';
import { channelSchema, listChannelsQuery } from '../channels/channels.schema.ts';
import { presentChannel } from '../channels/channels.service.ts';
import type { Principal } from '../keys/api-keys.service.ts';
import type { Clock } from '../lib/clock.ts';
import { operationInput, plural, READ_ONLY, TIMES, type Operation, type ToolAnnotations } from '../operations/operation.ts';
import { listGroups } from '../groups/groups.operations.ts';
import { changePostStatus, checkPostMissing, deletePost, deletePostGroup, getPost, listPosts } from '../posts/posts.operations.ts';
import { listMedia, uploadFromUrl } from '../media/media.operations.ts';
import { createUploadLink, getUploadLink } from '../media/upload-links.operations.ts';
import { listNotifications } from '../notifications/notifications.operations.ts';
import { getAnalyticsSummary, getChannelAnalytics, getPostAnalytics } from '../analytics/analytics.operations.ts';
import { createPostsBody, createPostsResponse, idempotencyHeaders } from '../posts/posts.schema.ts';
import type { Services } from '../services.ts';
import { statusSchema } from '../status/status.schema.ts';
import { buildStatus } from '../status/status.service.ts';
import { workspaceSchema } from '../workspaces/workspaces.schema.ts';

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
    input: operationInput(op as Operation<z.ZodObject, z.ZodObject, z.ZodObject, unknown>, { workspace: workspaceArg }),
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

const HTML = 'Post content is HTML: wrap paragraphs in <p>; text without any tag is read as plain text (a blank line starts a paragraph).';

export const MCP_INSTRUCTIONS = [
  'Herald schedules and publishes posts to social channels and keeps a media library.',
  'Start with get_status (the server clock) and list_channels (channel ids). A credential spanning several workspaces needs the `workspace` argument (list_workspaces).',
  TIMES,
  HTML,
  'Before scheduling, create a draft and run check_post_missing; `now` publishes at once and cannot be undone.',
].join(' ');

const idempotencyKey = (idempotencyHeaders.shape['idempotency-key'] as z.ZodType).describe(
  'Any unique string (e.g. a UUID) that makes a retry safe: calling again with the same key and arguments returns the first answer and creates nothing new; the same key with other arguments is refused. Kept 48 hours.',
);

export const TOOLS: Tool[] = [
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
  tool({
    name: 'list_channels',
    title: 'List channels',
    description:
      'The social channels (accounts) of the workspace that posts can go to. Each channel `id` is what create_post takes as `integration.id`; `identifier` is its platform (the `settings.__type` of a post). A disabled channel cannot publish until it is reconnected.',
    input: listChannelsQuery.extend({ workspace: workspaceArg }),
    output: z.object({ channels: z.array(channelSchema) }),
    scope: 'channels:read',
    annotations: READ_ONLY,
    run: async (ctx, access, args) => ({
      channels: (await ctx.services.channels.visible(access, args.group)).map((channel) =>
        presentChannel(channel, `${ctx.baseUrl}/assets/channel.svg`),
      ),
    }),
    summary: (o) =>
      `${plural(o.channels.length, 'channel')}${o.channels.length ? `: ${o.channels.map((c) => `${c.name} (${c.identifier}, ${c.id}${c.disabled ? ', disabled' : ''})`).join('; ')}` : ''}.`,
  }),
  operationTool(listGroups),
  operationTool(getChannelSettings),
  operationTool(triggerChannelTool),
  operationTool(listPosts),
  operationTool(getPost),
  tool({
    name: 'create_post',
    title: 'Create, schedule or publish a post',
    description: [
      'Creates one post per channel, grouped: `type` `draft` (saved, not published), `schedule` (published at `date`) or `now` (published at once: this cannot be undone).',
      'Further `value` items are comments published under the post, in order. Sending an existing `group` replaces that composition (posts for channels no longer listed are removed).',
      HTML,
      `\`date\` is required for every type. ${TIMES} Prefer creating a draft, running check_post_missing, then change_post_status to schedule it.`,
      'Pass `idempotencyKey` so that a retry after a timeout does not post twice.',
    ].join(' '),
    input: createPostsBody.extend({ workspace: workspaceArg, idempotencyKey: idempotencyKey.optional() }),
    output: z.object({ posts: createPostsResponse }),
    scope: 'posts:draft',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: async (ctx, access, { workspace: _workspace, idempotencyKey: key, ...input }) => ({
      posts: await ctx.services.posts.create(access, input, key as string | undefined),
    }),
    summary: (o) =>
      `Created ${plural(o.posts.length, 'post')}: ${o.posts.map((p) => `${p.postId} on channel ${p.integration}`).join('; ')}.`,
  }),
  operationTool(changePostStatus),
  operationTool(checkPostMissing),
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
];
