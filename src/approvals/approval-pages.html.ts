import { banner, csrfField, when } from '../accounts/account-pages.html.ts';
import { htmlToPlainText } from '../content/html.ts';
import type { PostRecord } from '../posts/posts.service.ts';
import { html } from '../web/html.ts';
import { layout, type PageChrome } from '../web/layout.ts';
import type { ApprovalSettings } from './approvals.service.ts';
import { APPROVAL_ROLES } from './approvals.table.ts';

/** Who asked for a post's approval, as the page names them. */
function askedBy(post: PostRecord): string {
  const by = post.approvals?.findLast((step) => step.decision === 'requested')?.by;
  return by ? (by.name ? `${by.name} (${by.email ?? by.id})` : (by.email ?? by.id)) : 'someone no longer in the workspace';
}

/** The text of a post, shortened for a card. */
function excerpt(content: string, max = 280): string {
  const text = htmlToPlainText(content).trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Approvals: the posts of the current workspace awaiting approval, each with an approve and a
 * reject form for approvers, and the setting (who needs approval) for owners and admins.
 */
export function approvalsPage(input: {
  chrome: PageChrome;
  csrf: string;
  workspaceName: string;
  settings: ApprovalSettings;
  posts: PostRecord[];
  /** Whether the viewer may approve and reject. */
  approver: boolean;
  /** Whether the viewer may change the setting (owners and admins). */
  manager: boolean;
  now: Date;
  error?: string | undefined;
  notice?: string | undefined;
}): string {
  const { csrf, settings } = input;
  const who = settings.roles.length
    ? html`Posts scheduled by <strong>${settings.roles.join(' and ')}s</strong> wait here for an approver (${settings.approvers.join(', ')}).`
    : html`Nobody needs approval in this workspace: scheduled posts go straight to the queue.`;
  const posts = input.posts.length
    ? html`<ul class="cards">${input.posts.map((post) => {
        const overdue = Date.parse(post.publishDate) < input.now.getTime();
        return html`<li data-post-id="${post.id}">
  <div class="title"><strong>${excerpt(post.content)}</strong> <span class="tag">${post.integration.providerIdentifier}</span></div>
  <dl class="facts">
    <dt>For</dt><dd>${when(post.publishDate)}${overdue ? ' (passed: approving publishes it at once)' : ''}</dd>
    <dt>Asked by</dt><dd>${askedBy(post)}</dd>
    <dt>Channel</dt><dd><code>${post.integration.id}</code></dd>
    ${post.value.length > 1 ? html`<dt>Comments</dt><dd>${String(post.value.length - 1)}</dd>` : ''}
  </dl>
  ${
    input.approver
      ? html`<div class="decisions">
    <form method="post" action="/account/approvals/${post.id}/approve">
      ${csrfField(csrf)}
      <label for="approve-${post.id}">Note (optional)</label>
      <input id="approve-${post.id}" name="comment" type="text" maxlength="2000">
      <div class="actions"><button type="submit">Approve</button></div>
    </form>
    <form method="post" action="/account/approvals/${post.id}/reject">
      ${csrfField(csrf)}
      <label for="reject-${post.id}">Why it is rejected (the author sees it)</label>
      <textarea id="reject-${post.id}" name="comment" maxlength="2000" required rows="2"></textarea>
      <div class="actions"><button type="submit" class="danger">Reject</button></div>
    </form>
  </div>`
      : ''
  }
</li>`;
      })}</ul>`
    : html`<p class="muted">No post awaits approval.</p>`;
  const setting = input.manager
    ? html`<h2>Who needs approval</h2>
<form method="post" action="/account/approvals/settings">
  ${csrfField(csrf)}
  <fieldset><legend>Posts scheduled by these roles wait for an approver</legend>${APPROVAL_ROLES.map(
    (role) =>
      html`<label><input type="checkbox" name="roles" value="${role}"${settings.roles.includes(role) ? ' checked' : ''}> ${role}s</label>`,
  )}</fieldset>
  <p class="muted">Owners and admins are never asked. Editors approve unless they need approval themselves.</p>
  <div class="actions"><button type="submit" class="secondary">Save</button></div>
</form>`
    : '';
  const body = html`<h1>Approvals</h1>
<p class="muted">${who} Workspace: <strong>${input.workspaceName}</strong>.</p>
${banner('bad', input.error)}${banner('good', input.notice)}
<h2>Awaiting approval</h2>
${input.approver || input.posts.length === 0 ? '' : html`<p class="muted">Only approvers approve or reject; you can follow your posts here.</p>`}
${posts}
${setting}`;
  return layout('Approvals', body, input.chrome);
}
