import { createHash } from 'node:crypto';
import { requireScope, type WorkspaceAccess } from '../auth/access.service.ts';
import type { ChannelsService } from '../channels/channels.service.ts';
import type { Db } from '../db/database.ts';
import { BadRequestError, ConflictError, ForbiddenError } from '../errors.ts';
import type { Clock } from '../lib/clock.ts';
import { approverRoles, readApprovalRoles, refusal, type PostTransitions } from '../posts/post-transitions.ts';
import { authorOf, type PostRecord, type PostsService, type WithinWrite } from '../posts/posts.service.ts';
import type { PostsTable } from '../posts/posts.table.ts';
import type { JobQueue } from '../publishing/job-queue.ts';
import * as repo from './approvals.repository.ts';
import type { ApprovalRole } from './approvals.table.ts';

/** What identifies a decision for an Idempotency-Key: which, on which post, with which comment. */
function decisionHash(decision: 'approve' | 'reject', postId: string, comment: string | null): string {
  return createHash('sha256')
    .update(JSON.stringify([decision, postId, comment]))
    .digest('hex');
}

/** The most posts the list of posts awaiting approval shows. */
export const AWAITING_LIMIT = 500;

export type ApprovalSettings = { roles: ApprovalRole[]; approvers: string[]; updatedAt: string | null };

/**
 * Approval before publishing: the workspace's setting, the approvers' list, and their decisions.
 * Which state a scheduled post enters is decided by `PostTransitions.scheduledState`; the moves
 * themselves are `PostTransitions.approve` and `reject`.
 */
export class ApprovalsService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      queue: JobQueue;
      channels: ChannelsService;
      posts: PostsService;
      transitions: PostTransitions;
    },
  ) {}

  async settings(access: WorkspaceAccess): Promise<ApprovalSettings> {
    requireScope(access, 'posts:read');
    const row = await repo.findSettings(this.deps.db, access.workspace.id);
    const roles = readApprovalRoles(row?.roles);
    return { roles, approvers: approverRoles(roles), updatedAt: row?.updated_at ?? null };
  }

  /** Owners and admins set who needs approval. Posts already awaiting approval keep waiting for a decision whatever the new setting. */
  async setSettings(access: WorkspaceAccess, input: { roles: ApprovalRole[] }): Promise<ApprovalSettings> {
    requireScope(access, 'posts:publish');
    if (access.role !== 'owner' && access.role !== 'admin')
      throw new ForbiddenError(`Only owners and admins set who needs approval; your role here is "${access.role}".`, {
        code: 'role_forbidden',
        details: { role: access.role },
      });
    await repo.saveSettings(this.deps.db, {
      workspace_id: access.workspace.id,
      roles: JSON.stringify(input.roles),
      updated_by: access.principal.userId,
      updated_at: this.deps.clock.now().toISOString(),
    });
    return this.settings(access);
  }

  /** The posts awaiting approval that the key can see, earliest first. */
  async awaiting(access: WorkspaceAccess): Promise<{ posts: PostRecord[] }> {
    requireScope(access, 'posts:read');
    const rows = await repo.listAwaiting(this.deps.db, access.workspace.id, access.channelIds, AWAITING_LIMIT);
    const posts: PostRecord[] = [];
    for (const row of rows) posts.push(await this.deps.posts.record(row));
    return { posts };
  }

  /**
   * Approves a post awaiting approval: it is scheduled for its date, or published at once when
   * that has passed. Approving a post already approved (the last step of its approval) answers it
   * unchanged, so a retry is harmless. With an idempotency key, a retry answers the first answer
   * (the same key with another post or comment is refused), as POST /posts does.
   */
  async approve(
    access: WorkspaceAccess,
    id: string,
    input: { comment?: string | undefined },
    idempotencyKey?: string,
  ): Promise<PostRecord> {
    const post = await this.#decidable(access, id);
    return this.deps.posts.idempotent(
      access,
      idempotencyKey,
      () => decisionHash('approve', id, input.comment || null),
      (withinWrite) => this.#approveOnce(access, post, input.comment || null, withinWrite),
    );
  }

  async #approveOnce(
    access: WorkspaceAccess,
    post: PostsTable,
    comment: string | null,
    withinWrite?: WithinWrite<PostRecord>,
  ): Promise<PostRecord> {
    if (post.state !== 'AWAITING_APPROVAL') {
      const last = post.state === 'QUEUE' || post.state === 'DRAFT' ? await this.#lastDecision(post.id) : null;
      if (post.state === 'QUEUE' && last === 'approved') return this.deps.posts.record(post);
      if (post.state === 'DRAFT' && last === 'rejected') throw this.#decided(post, 'rejected');
      throw this.#notAwaiting(post);
    }
    const channel = await this.deps.channels.forPosts(post.workspace_id, post.channel_id);
    if (channel.disabled)
      throw new BadRequestError(`Channel "${channel.name}" cannot post right now; reconnect it, then approve the post.`, {
        code: 'channel_disabled',
      });
    const answer: { post?: PostRecord } = {};
    const decided = await this.deps.transitions.approve(post, authorOf(access), comment, async (trx) => {
      answer.post = await this.deps.posts.recordIn(trx, post.workspace_id, post.id, channel.provider);
      await withinWrite?.(trx, answer.post);
    });
    const shown = answer.post;
    if (!decided || !shown) return this.#raced(access, post, 'approved');
    await this.deps.queue.enqueue({ postId: post.id, runAt: new Date(shown.publishDate), provider: channel.provider });
    return shown;
  }

  /**
   * Rejects a post awaiting approval with a reason: it becomes a draft and its author is told. A
   * retry of the same rejection answers it unchanged; idempotency keys as for `approve`.
   */
  async reject(access: WorkspaceAccess, id: string, input: { comment: string }, idempotencyKey?: string): Promise<PostRecord> {
    const post = await this.#decidable(access, id);
    return this.deps.posts.idempotent(
      access,
      idempotencyKey,
      () => decisionHash('reject', id, input.comment),
      (withinWrite) => this.#rejectOnce(access, post, input.comment, withinWrite),
    );
  }

  async #rejectOnce(
    access: WorkspaceAccess,
    post: PostsTable,
    comment: string,
    withinWrite?: WithinWrite<PostRecord>,
  ): Promise<PostRecord> {
    if (post.state !== 'AWAITING_APPROVAL') {
      if (post.state === 'DRAFT' && (await this.#lastDecision(post.id, comment)) === 'rejected') return this.deps.posts.record(post);
      if (post.state === 'QUEUE' && (await this.#lastDecision(post.id)) === 'approved') throw this.#decided(post, 'approved');
      throw this.#notAwaiting(post);
    }
    const channel = await this.deps.channels.getAnyState(post.workspace_id, post.channel_id);
    const answer: { post?: PostRecord } = {};
    const decided = await this.deps.transitions.reject(post, authorOf(access), comment, async (trx) => {
      answer.post = await this.deps.posts.recordIn(trx, post.workspace_id, post.id, channel?.provider ?? '');
      await withinWrite?.(trx, answer.post);
    });
    const shown = answer.post;
    if (!decided || !shown) return this.#raced(access, post, 'rejected');
    await this.deps.queue.remove(post.id);
    return shown;
  }

  /** A post the caller may decide on: the publisher's scope, an approving role, a post it can see (another workspace's is 404). */
  async #decidable(access: WorkspaceAccess, id: string): Promise<PostsTable> {
    requireScope(access, 'posts:publish');
    const roles = await this.deps.transitions.approvalRoles(this.deps.db, access.workspace.id);
    if (!approverRoles(roles).includes(access.role))
      throw new ForbiddenError(
        `Your role "${access.role}" may not approve or reject posts in this workspace; approvers: ${approverRoles(roles).join(', ')}.`,
        { code: 'approval_forbidden', details: { role: access.role } },
      );
    return this.deps.posts.findVisible(access, id);
  }

  /** The decision that ended the post's last approval (with `comment`, a rejection only with that comment), or null. */
  async #lastDecision(postId: string, comment?: string): Promise<'approved' | 'rejected' | null> {
    const steps = await repo.listSteps(this.deps.db, [postId]);
    const last = steps.at(-1);
    if (!last || last.decision === 'requested') return null;
    if (comment !== undefined && last.comment !== comment) return null;
    return last.decision;
  }

  #notAwaiting(post: PostsTable) {
    if (post.state === 'PUBLISHING' || post.state === 'PUBLISHED' || post.state === 'ERROR')
      return refusal(post.state, post.id, 'approved or rejected');
    return new BadRequestError(`Post ${post.id} is not awaiting approval: it is ${post.state}.`, { code: 'not_awaiting_approval' });
  }

  /** The other decision was made on the post (by another approver, perhaps a moment before), and it stands: a conflict, as a race lost. */
  #decided(post: PostsTable, decision: 'approved' | 'rejected') {
    return new ConflictError(`Post ${post.id} was already ${decision}; read it again and decide on what it is now.`, {
      code: 'post_changed',
      details: { decision },
    });
  }

  /** The post moved between the read and the decision: the same decision made by someone else is this one's answer; anything else is a conflict. */
  async #raced(access: WorkspaceAccess, post: PostsTable, decision: 'approved' | 'rejected'): Promise<PostRecord> {
    const now = await this.deps.posts.findVisible(access, post.id);
    if ((await this.#lastDecision(post.id)) === decision && now.state !== 'AWAITING_APPROVAL') return this.deps.posts.record(now);
    throw new ConflictError(`Post ${post.id} changed while it was being ${decision}; read it again and decide on what it is now.`, {
      code: 'post_changed',
    });
  }
}
