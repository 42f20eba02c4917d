import type { Role } from '../auth/scopes.ts';
import { html } from '../web/html.ts';
import { layout, type PageChrome } from '../web/layout.ts';

/** Each scope in words, for people deciding whether to allow an app. */
export const SCOPE_WORDS: Record<string, string> = {
  'posts:read': 'Read your posts and the calendar',
  'posts:draft': 'Write drafts and edit posts that are not published',
  'posts:publish': 'Schedule and publish posts',
  'channels:read': 'See your connected channels',
  'channels:write': 'Connect, change and remove channels',
  'media:write': 'Upload files to the media library',
  'analytics:read': 'Read analytics',
  'mcp:read': 'Read through the MCP server (posts, channels, analytics)',
  'mcp:write': 'Act through the MCP server: draft, schedule and publish posts, manage channels and media',
  offline_access: 'Stay connected when you are away (refresh tokens)',
};

function csrfField(csrf: string) {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

export type ConsentInput = {
  chrome: PageChrome;
  csrf: string;
  uid: string;
  clientName: string;
  clientId: string;
  redirectHost: string | null;
  resourceName: string;
  scopes: string[];
  workspaces: Array<{ id: string; name: string; role: Role }>;
  currentWorkspaceId: string | null;
  error?: string | undefined;
};

/** Allow or deny an app: who asks, where it sends you back, the workspace and the scopes in words. */
export function consentPage(input: ConsentInput): string {
  const error = input.error ? html`<div class="banner bad" role="alert">${input.error}</div>` : '';
  if (input.workspaces.length === 0) {
    return layout('Allow access', html`<h1>${input.clientName} asks for access</h1><p>You are not a member of any workspace, so there is nothing to allow. Ask an owner to invite you.</p>
<form method="post" action="/oauth/interaction/${input.uid}">${csrfField(input.csrf)}<input type="hidden" name="decision" value="deny"><div class="actions"><button type="submit" class="secondary">Back to the app</button></div></form>`, input.chrome);
  }
  const body = html`<h1>Allow <span id="client-name">${input.clientName}</span> to use Herald for you?</h1>
${error}
<p class="muted">App id <code>${input.clientId}</code>${input.redirectHost ? html`; after you answer, you go back to <strong>${input.redirectHost}</strong>` : ''}. It asks for access to ${input.resourceName}.</p>
<form method="post" action="/oauth/interaction/${input.uid}">
  ${csrfField(input.csrf)}
  <label for="workspace">Workspace</label>
  <select id="workspace" name="workspace">${input.workspaces.map((w) => html`<option value="${w.id}"${w.id === input.currentWorkspaceId ? html` selected` : ''}>${w.name} (your role: ${w.role})</option>`)}</select>
  <h2>It will be able to</h2>
  <ul id="scopes">${input.scopes.map((s) => html`<li data-scope="${s}">${SCOPE_WORDS[s] ?? s} <span class="muted">(${s})</span></li>`)}</ul>
  <p class="muted">Never more than your role in the chosen workspace allows, now or later. You can revoke this access at any time under “Apps you allowed”.</p>
  <div class="actions">
    <button type="submit" name="decision" value="allow" id="allow">Allow</button>
    <button type="submit" name="decision" value="deny" class="secondary" id="deny">Deny</button>
  </div>
</form>`;
  return layout('Allow access', body, input.chrome);
}

export type AllowedApp = { grantId: string; clientName: string; clientId: string; workspaceName: string; scopes: string[]; resources: string[] };

/** The apps the user allowed, each with “revoke access”. */
export function allowedAppsPage(input: { chrome: PageChrome; csrf: string; apps: AllowedApp[]; notice?: string | undefined }): string {
  const notice = input.notice ? html`<div class="banner good" role="status">${input.notice}</div>` : '';
  const list = input.apps.length
    ? html`<ul class="cards">${input.apps.map(
        (app) => html`<li data-grant-id="${app.grantId}">
  <div class="title"><strong>${app.clientName}</strong> <span class="tag">${app.workspaceName}</span></div>
  <dl class="facts"><dt>App id</dt><dd><code>${app.clientId}</code></dd><dt>Access to</dt><dd>${app.resources.join(', ')}</dd><dt>Scopes</dt><dd>${app.scopes.join(', ') || 'none'}</dd></dl>
  <form class="inline" method="post" action="/account/apps/${app.grantId}/revoke">${csrfField(input.csrf)}<button type="submit" class="danger">Revoke access</button></form>
</li>`,
      )}</ul>`
    : html`<p class="muted">You have not allowed any app.</p>`;
  return layout('Apps you allowed', html`<h1>Apps you allowed</h1>${notice}<p class="muted">Apps that act for you with OAuth. Revoking access ends their tokens at once.</p>${list}`, input.chrome);
}
