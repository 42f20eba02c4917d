import * as z from 'zod';
import { roleSchema } from '../auth/scopes.ts';
import { postSchema } from '../posts/posts.schema.ts';
import { APPROVAL_ROLES } from './approvals.table.ts';

const approvalRolesSchema = z
  .array(z.enum(APPROVAL_ROLES))
  .max(APPROVAL_ROLES.length)
  .refine((roles) => new Set(roles).size === roles.length, 'a role is named twice')
  .describe(
    'The roles whose scheduled posts wait for approval: `contributor`, `editor`, both, or none (empty: nobody is asked, the default). Owners and admins are never asked.',
  );

export const approvalSettingsSchema = z
  .object({
    roles: approvalRolesSchema,
    approvers: z
      .array(roleSchema)
      .describe('Who may approve and reject: owners, admins, and editors unless editors themselves need approval.'),
    updatedAt: z.string().nullable().describe('When the setting was last changed; null while it was never set.'),
  })
  .meta({ id: 'ApprovalSettings', examples: [{ roles: ['contributor'], approvers: ['owner', 'admin', 'editor'], updatedAt: null }] });

export const setApprovalSettingsBody = z
  .object({ roles: approvalRolesSchema })
  .meta({ id: 'SetApprovalSettings', examples: [{ roles: ['contributor'] }] });

const comment = z.string().trim().max(2000);

export const approveBody = z
  .object({ comment: comment.optional().describe('A note kept with the decision (optional).') })
  .meta({ id: 'ApprovePost', examples: [{ comment: 'Good to go.' }] });

export const rejectBody = z
  .object({ comment: comment.min(1, 'say why, for the author').describe('Why it is rejected: shown to the author (required).') })
  .meta({ id: 'RejectPost', examples: [{ comment: 'Please link the announcement, not the home page.' }] });

export const awaitingPostsSchema = z
  .object({
    posts: z.array(postSchema).describe('Posts awaiting approval, earliest publish date first (at most 500).'),
  })
  .meta({ id: 'AwaitingApproval' });
