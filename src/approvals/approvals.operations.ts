import { authErrors, conflictErrors } from '../http/common.schema.ts';
import { listSummary, operation, READ_ONLY, writes } from '../operations/operation.ts';
import { postIdParams, postSchema } from '../posts/posts.schema.ts';
import { approvalSettingsSchema, approveBody, awaitingPostsSchema, rejectBody, setApprovalSettingsBody } from './approvals.schema.ts';

/** What approval before publishing is, for the routes' and tools' descriptions. */
export const APPROVAL_RULES =
  'With approval on for a role (PUT /approval-settings), a post that role schedules (a date, `now` or the queue; scope `posts:draft` is then enough) enters `AWAITING_APPROVAL` instead of the queue and is never published while it waits; an edit of it keeps it waiting, and an edit of an approved post by such a role sends it back. Approvers are owners, admins, and editors unless editors themselves need approval.';

const DECISION_KEYS =
  'Send `Idempotency-Key` to make a retry safe: the same key answers the first answer (even once another decision was made since), and the same key with another post or comment is a 400 `idempotency_key_reused`.';

export const getApprovalSettings = operation({
  name: 'get_approval_settings',
  scope: 'posts:read',
  call: (services, access) => services.approvals.settings(access),
  rest: {
    method: 'GET',
    url: '/approval-settings',
    tags: ['Approvals'],
    summary: 'Read who needs approval before publishing',
    description: `The roles whose scheduled posts wait for approval, and who may approve. ${APPROVAL_RULES}`,
    response: approvalSettingsSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Read the approval setting',
    description: 'Which roles need approval before their scheduled posts are published, and which roles may approve.',
    annotations: READ_ONLY,
    output: approvalSettingsSchema,
    summary: (o) =>
      o.roles.length
        ? `Approval needed for: ${o.roles.join(', ')}; approvers: ${o.approvers.join(', ')}.`
        : 'No role needs approval: scheduled posts go straight to the queue.',
  },
});

export const setApprovalSettings = operation({
  name: 'set_approval_settings',
  scope: 'posts:publish',
  body: setApprovalSettingsBody,
  call: (services, access, input) => services.approvals.setSettings(access, input),
  rest: {
    method: 'PUT',
    url: '/approval-settings',
    tags: ['Approvals'],
    summary: 'Set who needs approval before publishing',
    description: `Owners and admins only (403 \`role_forbidden\` otherwise). Replaces the list of roles; \`[]\` turns approval off. Posts already awaiting approval keep waiting for a decision. ${APPROVAL_RULES}`,
    response: approvalSettingsSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Set who needs approval',
    description:
      'Owners and admins: the roles (`contributor`, `editor`) whose scheduled posts wait for an approver; an empty list turns approval off.',
    annotations: writes({ idempotent: true }),
    output: approvalSettingsSchema,
    summary: (o) => (o.roles.length ? `Approval now needed for: ${o.roles.join(', ')}.` : 'Approval is off.'),
  },
});

export const listAwaitingApproval = operation({
  name: 'list_posts_awaiting_approval',
  scope: 'posts:read',
  call: (services, access) => services.approvals.awaiting(access),
  rest: {
    method: 'GET',
    url: '/posts/awaiting-approval',
    tags: ['Approvals'],
    summary: 'List the posts awaiting approval',
    description:
      'Earliest publish date first, at most 500, each with its `approvals` steps. A key limited to some channels sees their posts only.',
    response: awaitingPostsSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'List posts awaiting approval',
    description: 'The posts waiting for an approver, earliest publish date first, with who asked and when (`approvals`).',
    annotations: READ_ONLY,
    output: awaitingPostsSchema,
    summary: (o) =>
      listSummary(o.posts, 'post awaiting approval', (p) => `${p.id} for ${p.publishDate} on ${p.integration.providerIdentifier}`),
  },
});

export const approvePost = operation({
  name: 'approve_post',
  scope: 'posts:publish',
  params: postIdParams,
  body: approveBody,
  idempotencyKey: true,
  call: (services, access, { id, comment, idempotencyKey }) => services.approvals.approve(access, id, { comment }, idempotencyKey),
  rest: {
    method: 'POST',
    url: '/posts/:id/approve',
    tags: ['Approvals'],
    summary: 'Approve a post awaiting approval',
    description:
      "Approvers only (403 `approval_forbidden` for other roles). The post enters the queue for its publish date; if that date has passed it is published at once and its publish date becomes the approval time. The decision (who, when, comment) is added to the post's `approvals`. Approving an approved post again answers it unchanged. A rejected post (another approver was first) answers 409 `post_changed`, as does one changed meanwhile (an edit, or a decision made between the read and this one): of two approvers deciding at once, one decision stands and the other gets the 409. A post in another state answers 400 `not_awaiting_approval`." +
      ' ' +
      DECISION_KEYS,
    response: postSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Approve a post',
    description:
      'Owners, admins and approving editors: schedules a post awaiting approval for its date (at once if the date has passed). Optional `comment`. Pass `idempotencyKey` so that a retry answers the first decision.',
    annotations: writes({ idempotent: true, openWorld: true }),
    output: postSchema,
    summary: (p) => `Post ${p.id} approved: ${p.state}, publish date ${p.publishDate}.`,
  },
});

export const rejectPost = operation({
  name: 'reject_post',
  scope: 'posts:publish',
  params: postIdParams,
  body: rejectBody,
  idempotencyKey: true,
  call: (services, access, { id, comment, idempotencyKey }) => services.approvals.reject(access, id, { comment }, idempotencyKey),
  rest: {
    method: 'POST',
    url: '/posts/:id/reject',
    tags: ['Approvals'],
    summary: 'Reject a post awaiting approval',
    description:
      'Approvers only (403 `approval_forbidden` for other roles). `comment` (required) says why; the post becomes a draft, the decision is added to its `approvals`, and the author is notified (notification `post_rejected`, webhook event `post.rejected`). The same rejection sent again answers the post unchanged. An approved post (another approver was first) answers 409 `post_changed`, as does one changed meanwhile: of two approvers deciding at once, one decision stands and the other gets the 409. A post in another state answers 400 `not_awaiting_approval`.' +
      ' ' +
      DECISION_KEYS,
    response: postSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Reject a post',
    description:
      'Owners, admins and approving editors: sends a post awaiting approval back to draft with a `comment` for its author (required). Pass `idempotencyKey` so that a retry answers the first decision.',
    annotations: writes({ idempotent: true }),
    output: postSchema,
    summary: (p) => `Post ${p.id} rejected: back to ${p.state}.`,
  },
});
