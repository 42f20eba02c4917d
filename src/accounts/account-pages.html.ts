import type { Invitation, ReceivedInvitation } from '../accounts/members.service.ts';
import type { Role, Scope } from '../auth/scopes.ts';
import type { ApiKey } from '../keys/api-keys.service.ts';
import { html, type SafeHtml } from '../web/html.ts';
import { layout, type PageChrome } from '../web/layout.ts';

export function banner(kind: 'bad' | 'good' | 'info', text: string | undefined): SafeHtml | '' {
  if (!text) return '';
  return html`<div class="banner ${kind === 'info' ? '' : kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${text}</div>`;
}

export function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

/** Sign up / sign in: the e-mail address, then the code the mail carries. */
export function signInPage(input: {
  csrf: string;
  step: 'email' | 'code';
  email?: string | undefined;
  code?: string | undefined;
  next?: string | undefined;
  error?: string | undefined;
  policy: 'open' | 'invite' | 'closed';
}): string {
  const next = input.next ? html`<input type="hidden" name="next" value="${input.next}">` : '';
  const who =
    input.policy === 'open'
      ? 'New here? The same form creates your account.'
      : input.policy === 'invite'
        ? 'New accounts are by invitation: use the address you were invited with.'
        : 'Only existing accounts can sign in here.';
  const body =
    input.step === 'email'
      ? html`<h1>Sign in or sign up</h1>
<p class="muted">We send a one-time code to your e-mail address. ${who}</p>
${banner('bad', input.error)}
<form method="post" action="/account/sign-in">
  ${csrfField(input.csrf)}${next}
  <label for="email">E-mail address</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${input.email ?? ''}">
  <div class="actions"><button type="submit">Send me a code</button></div>
</form>`
      : html`<h1>Enter your code</h1>
<p class="muted">If <strong>${input.email ?? ''}</strong> may sign in, a code is on its way. It works once, for 15 minutes; a new code replaces the old one.</p>
${banner('bad', input.error)}
<form method="post" action="/account/sign-in/verify">
  ${csrfField(input.csrf)}${next}
  <input type="hidden" name="email" value="${input.email ?? ''}">
  <label for="code">Code</label>
  <input id="code" class="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,12}" required maxlength="12" value="${input.code ?? ''}">
  <div class="actions"><button type="submit">Sign in</button></div>
</form>
<form method="post" action="/account/sign-in">
  ${csrfField(input.csrf)}${next}
  <input type="hidden" name="email" value="${input.email ?? ''}">
  <p class="muted">No mail? <button type="submit" class="link">Send a new code</button> or <a href="/account/sign-in">use another address</a>.</p>
</form>`;
  return layout(input.step === 'email' ? 'Sign in' : 'Enter your code', body);
}

/** The one-time link's landing page: a button, so a mail scanner fetching the link signs nobody in. */
export function linkPage(input: { csrf: string; token: string }): string {
  return layout(
    'Sign in',
    html`<h1>Sign in to Herald</h1>
<p>This one-time link signs you in to your account. It works once.</p>
<form method="post" action="/account/link/${input.token}">${csrfField(input.csrf)}<div class="actions"><button type="submit">Continue</button></div></form>`,
  );
}

export function when(iso: string | null): string {
  return iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'never';
}

export type CreatedSecret = { key: ApiKey; secret: string; rotated: boolean };

/** Developer settings: the user's keys in this workspace, creating them, and a new secret shown once. */
export function keysPage(input: {
  chrome: PageChrome;
  csrf: string;
  workspaceName: string | null;
  role: Role | null;
  keys: ApiKey[];
  channels: Array<{ id: string; name: string }>;
  restScopes: Scope[];
  mcpScopes: Scope[];
  invitations: ReceivedInvitation[];
  created?: CreatedSecret | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}): string {
  const answers = html`${banner('bad', input.error)}${banner('good', input.notice)}${receivedInvitations(input.csrf, input.invitations)}`;
  if (!input.workspaceName || !input.role) {
    return layout(
      'Developer settings',
      html`<h1>Developer settings</h1>${answers}<p>You are not a member of any workspace yet. Ask an owner to invite you.</p>`,
      input.chrome,
    );
  }
  const channelName = new Map(input.channels.map((c) => [c.id, c.name]));
  const created = input.created
    ? html`<section class="secret" aria-labelledby="secret-title">
  <h2 id="secret-title">${input.created.rotated ? 'New secret for' : 'Your new key'} “${input.created.key.name}”</h2>
  <p>Copy it now: it is shown only this once and cannot be shown again.${input.created.rotated ? ' The old secret has stopped working.' : ''}</p>
  <code id="new-secret">${input.created.secret}</code>
  <button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>
</section>`
    : '';
  const keys = input.keys.length
    ? html`<ul class="cards">${input.keys.map(
        (key) => html`<li data-key-id="${key.id}">
  <div class="title"><strong>${key.name}</strong> <span class="tag">${key.kind === 'mcp' ? 'MCP' : 'REST'}</span></div>
  <dl class="facts">
    <dt>Prefix</dt><dd><code>${key.kind === 'mcp' ? 'svc_mcp_' : 'svc_'}${key.id}_…</code></dd>
    <dt>Scopes</dt><dd>${key.scopes.join(', ')}</dd>
    <dt>Channels</dt><dd>${key.channelIds === null ? 'all' : key.channelIds.map((id) => channelName.get(id) ?? id).join(', ')}</dd>
    <dt>Workspace</dt><dd>${key.workspaceId === null ? 'all of yours' : 'this one'}</dd>
    <dt>Created</dt><dd>${when(key.createdAt)}</dd>
    <dt>Last used</dt><dd>${when(key.lastUsedAt)}</dd>
  </dl>
  <div class="actions">
    <form class="inline" method="post" action="/account/keys/${key.id}/rotate">${csrfField(input.csrf)}<button type="submit" class="secondary">Rotate</button></form>
    <form class="inline" method="post" action="/account/keys/${key.id}/revoke">${csrfField(input.csrf)}<button type="submit" class="danger">Revoke</button></form>
  </div>
</li>`,
      )}</ul>`
    : html`<p class="muted">No keys yet.</p>`;
  const scopeBoxes = (kind: 'rest' | 'mcp', scopes: Scope[]) =>
    scopes.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}" data-kind="${kind}" checked> ${scope}</label>`);
  const body = html`<h1>Developer settings</h1>
<p class="muted">Your keys in <strong>${input.workspaceName}</strong>, where your role is ${input.role}. A key acts as you, within your role.</p>
${answers}${created}
<h2>Your keys</h2>
${keys}
<h2>Create a key</h2>
<form method="post" action="/account/keys">
  ${csrfField(input.csrf)}
  <label for="key-name">Name</label>
  <input id="key-name" name="name" type="text" maxlength="100" required placeholder="e.g. publishing script">
  <fieldset><legend>Kind</legend>
    <label><input type="radio" name="kind" value="rest" checked> REST API key (svc_…)</label>
    <label><input type="radio" name="kind" value="mcp"> MCP key (svc_mcp_…), for AI agents</label>
  </fieldset>
  <fieldset><legend>REST scopes</legend>${scopeBoxes('rest', input.restScopes)}</fieldset>
  <fieldset><legend>MCP scopes</legend>${scopeBoxes('mcp', input.mcpScopes)}</fieldset>
  <p class="muted">Only the scopes of the chosen kind are used.</p>
  ${
    input.channels.length
      ? html`<fieldset><legend>Channels (none ticked: all)</legend>${input.channels.map((c) => html`<label><input type="checkbox" name="channels" value="${c.id}"> ${c.name}</label>`)}</fieldset>`
      : ''
  }
  <div class="actions"><button type="submit">Create key</button></div>
</form>
<h2>Sessions</h2>
<form method="post" action="/account/sign-out-everywhere">${csrfField(input.csrf)}<button type="submit" class="secondary">Sign out everywhere</button></form>`;
  return layout('Developer settings', body, input.chrome);
}

/** Invitations waiting for the signed-in user's answer; nobody joins a workspace without accepting. */
function receivedInvitations(csrf: string, invitations: ReceivedInvitation[]): SafeHtml | '' {
  if (!invitations.length) return '';
  return html`<h2>Invitations for you</h2>
<ul class="cards">${invitations.map(
    (i) => html`<li data-received-invitation="${i.id}">
  <div class="title"><strong>${i.workspaceName}</strong> <span class="tag">${i.role}</span></div>
  <p class="muted">From ${i.invitedBy ?? 'an account that no longer exists'}, until ${when(i.expiresAt)}. Once you are in more than one workspace, your keys that act in all of them must name the workspace of each call.</p>
  <div class="actions">
    <form class="inline" method="post" action="/account/invitations/${i.id}/accept">${csrfField(csrf)}<button type="submit">Accept</button></form>
    <form class="inline" method="post" action="/account/invitations/${i.id}/decline">${csrfField(csrf)}<button type="submit" class="secondary">Decline</button></form>
  </div>
</li>`,
  )}</ul>`;
}

/** Workspace members, for owners and admins. */
export function membersPage(input: {
  chrome: PageChrome;
  csrf: string;
  workspaceName: string;
  selfId: string;
  members: Array<{ userId: string; email: string; name: string | null; role: Role }>;
  invitations: Invitation[];
  grantable: Role[];
  error?: string | undefined;
  notice?: string | undefined;
}): string {
  const roleSelect = (name: string, id: string, selected: Role) =>
    html`<select id="${id}" name="${name}">${input.grantable.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`)}</select>`;
  const members = html`<ul class="cards">${input.members.map((m) => {
    const editable = input.grantable.includes(m.role);
    return html`<li data-member="${m.email}">
  <div class="title"><strong>${m.email}</strong> <span class="tag">${m.role}</span>${m.userId === input.selfId ? html` <span class="muted">(you)</span>` : ''}</div>
  ${
    editable
      ? html`<div class="actions">
    <form class="row-form" method="post" action="/account/members/${m.userId}/role">${csrfField(input.csrf)}<label for="role-${m.userId}" class="muted">Role</label>${roleSelect('role', `role-${m.userId}`, m.role)}<button type="submit" class="secondary">Change</button></form>
    <form class="inline" method="post" action="/account/members/${m.userId}/remove">${csrfField(input.csrf)}<button type="submit" class="danger">Remove</button></form>
  </div>`
      : ''
  }
</li>`;
  })}</ul>`;
  const invitations = input.invitations.length
    ? html`<h2>Invitations waiting</h2><ul class="cards">${input.invitations.map(
        (i) => html`<li data-invitation="${i.email}"><div class="title"><strong>${i.email}</strong> <span class="tag">${i.role}</span></div>
  <p class="muted">Until ${when(i.expiresAt)}</p>
  <form class="inline" method="post" action="/account/invitations/${i.id}/cancel">${csrfField(input.csrf)}<button type="submit" class="danger">Cancel</button></form></li>`,
      )}</ul>`
    : '';
  const body = html`<h1>Members of ${input.workspaceName}</h1>
${banner('bad', input.error)}${banner('good', input.notice)}
${members}
${invitations}
<h2>Invite someone</h2>
<form method="post" action="/account/members/invite">
  ${csrfField(input.csrf)}
  <label for="invite-email">E-mail address</label>
  <input id="invite-email" name="email" type="email" required maxlength="254">
  <label for="invite-role">Role</label>
  ${roleSelect('role', 'invite-role', 'editor')}
  <p class="muted">They get a mail with a sign-in link; they join once they sign in with that address and accept.</p>
  <div class="actions"><button type="submit">Invite</button></div>
</form>`;
  return layout('Members', body, input.chrome);
}
