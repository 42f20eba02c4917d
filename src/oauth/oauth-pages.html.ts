import type { Role } from '../auth/scopes.ts';
import { html } from '../web/html.ts';
import { layout, type PageChrome } from '../web/layout.ts';
import type { ClientFacts } from './client-rules.ts';

/** Each scope in words, for people deciding whether to allow an app. */
export const SCOPE_WORDS: Record<string, string> = {
  'posts:read': 'Read your posts and the calendar',
  'posts:draft': 'Write drafts and edit posts that are not published',
  'posts:publish': 'Schedule and publish posts',
  'channels:read': 'See your connected channels',
  'channels:write': 'Connect, change and remove channels',
  'media:write': 'Upload files to the media library',
  'analytics:read': 'Read analytics',
  'webhooks:read': 'See your webhook endpoints and their delivery log',
  'webhooks:write': 'Create, change and remove webhook endpoints that receive your events',
  'mcp:read': 'Read through the MCP server (posts, channels, analytics)',
  'mcp:write': 'Act through the MCP server: draft, schedule and publish posts, manage channels and media',
  offline_access: 'Stay connected when you are away (refresh tokens)',
};

/**
 * Who asks, beyond the name anyone may choose (RFC 8628 §5.4): Herald's own app is marked so;
 * any other shows its id and when it was registered.
 */
export function clientIdentity(client: ClientFacts) {
  if (client.firstParty) return html` <span class="tag" id="first-party">Herald’s own app</span>`;
  const registered = client.registeredAt
    ? html`registered <time id="client-registered" datetime="${client.registeredAt}">${client.registeredAt.slice(0, 16).replace('T', ' ')} UTC</time>`
    : html`described at that address`;
  return html` <span id="client-facts">Not one of Herald’s own apps: app id <code>${client.clientId}</code>, ${registered}.</span>`;
}

function csrfField(csrf: string) {
  return html`<input type="hidden" name="_csrf" value="${csrf}">`;
}

export type ConsentInput = {
  chrome: PageChrome;
  csrf: string;
  uid: string;
  client: ClientFacts;
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
    return layout(
      'Allow access',
      html`<h1>${input.client.name} asks for access</h1><p>You are not a member of any workspace, so there is nothing to allow. Ask an owner to invite you.</p>
<form method="post" action="/oauth/interaction/${input.uid}">${csrfField(input.csrf)}<input type="hidden" name="decision" value="deny"><div class="actions"><button type="submit" class="secondary">Back to the app</button></div></form>`,
      input.chrome,
    );
  }
  const body = html`<h1>Allow <span id="client-name">${input.client.name}</span> to use Herald for you?</h1>
${error}
<p class="muted">${clientIdentity(input.client)}${input.redirectHost ? html` After you answer, you go back to <strong>${input.redirectHost}</strong>.` : ''} It asks for access to ${input.resourceName}.</p>
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

export type AllowedApp = {
  grantId: string;
  clientName: string;
  clientId: string;
  workspaceName: string;
  scopes: string[];
  resources: string[];
};

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
  return layout(
    'Apps you allowed',
    html`<h1>Apps you allowed</h1>${notice}<p class="muted">Apps that act for you with OAuth. Revoking access ends their tokens at once.</p>${list}`,
    input.chrome,
  );
}

export type OwnApp = { clientId: string; name: string; redirectUris: string[]; confidential: boolean; createdAt: string };

/** “Your apps”: apps the user registered, each with rotate and delete, a form to register one, and a new secret shown once. */
export function ownAppsPage(input: {
  chrome: PageChrome;
  csrf: string;
  apps: OwnApp[];
  created?: { app: OwnApp; secret: string | null; rotated: boolean } | undefined;
  error?: string | undefined;
  notice?: string | undefined;
  form?: { name: string; redirectUris: string; confidential: boolean } | undefined;
}): string {
  const created = input.created
    ? html`<section class="secret" aria-labelledby="secret-title">
  <h2 id="secret-title">${input.created.rotated ? 'New secret for' : 'Registered'} “${input.created.app.name}”</h2>
  <p>Client id: <code id="new-client-id">${input.created.app.clientId}</code></p>
  ${
    input.created.secret
      ? html`<p>Client secret (copy it now: it is shown only this once${input.created.rotated ? '; the old one has stopped working' : ''}):</p><code id="new-secret">${input.created.secret}</code><button type="button" class="secondary" data-copy="new-secret" hidden>Copy</button>`
      : html`<p>A public app has no secret: it uses PKCE.</p>`
  }
</section>`
    : '';
  const list = input.apps.length
    ? html`<ul class="cards">${input.apps.map(
        (app) => html`<li data-client-id="${app.clientId}">
  <div class="title"><strong>${app.name}</strong> <span class="tag">${app.confidential ? 'confidential' : 'public'}</span></div>
  <dl class="facts"><dt>Client id</dt><dd><code>${app.clientId}</code></dd><dt>Redirect URIs</dt><dd>${app.redirectUris.join(', ')}</dd><dt>Registered</dt><dd>${app.createdAt.slice(0, 16).replace('T', ' ')} UTC</dd></dl>
  <div class="actions">
    ${app.confidential ? html`<form class="inline" method="post" action="/account/developer-apps/${app.clientId}/rotate">${csrfField(input.csrf)}<button type="submit" class="secondary">Rotate secret</button></form>` : ''}
    <form class="inline" method="post" action="/account/developer-apps/${app.clientId}/delete">${csrfField(input.csrf)}<button type="submit" class="danger">Delete</button></form>
  </div>
</li>`,
      )}</ul>`
    : html`<p class="muted">You have not registered an app.</p>`;
  const form = input.form ?? { name: '', redirectUris: '', confidential: true };
  return layout(
    'Your apps',
    html`<h1>Your apps</h1>
<p class="muted">Apps that act for Herald users through OAuth 2.1 (authorization code with PKCE). Deleting an app ends every token it was given.</p>
${input.error ? html`<div class="banner bad" role="alert">${input.error}</div>` : ''}${input.notice ? html`<div class="banner good" role="status">${input.notice}</div>` : ''}${created}
${list}
<h2>Register an app</h2>
<form method="post" action="/account/developer-apps">
  ${csrfField(input.csrf)}
  <label for="app-name">Name (shown on the consent page)</label>
  <input id="app-name" name="name" type="text" maxlength="100" required value="${form.name}">
  <label for="app-redirects">Redirect URIs, one per line (https, or http on 127.0.0.1)</label>
  <textarea id="app-redirects" name="redirect_uris" rows="3" required>${form.redirectUris}</textarea>
  <fieldset><legend>Kind</legend>
    <label><input type="radio" name="kind" value="confidential"${form.confidential ? html` checked` : ''}> Confidential: a server that can keep a secret</label>
    <label><input type="radio" name="kind" value="public"${form.confidential ? '' : html` checked`}> Public: a browser or desktop app (no secret)</label>
  </fieldset>
  <div class="actions"><button type="submit">Register</button></div>
</form>`,
    input.chrome,
  );
}
