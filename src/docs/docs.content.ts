import { MCP_SCOPES, REST_SCOPES, ROLE_SCOPES, ROLES } from '../auth/scopes.ts';
import { MIN_NOTICE_DAYS } from '../http/headers.plugin.ts';
import { publicUrls, RATE_LIMIT_HEADERS } from '../status/status.service.ts';
import { CLIENT_LIMITS, REGISTRATIONS_PER_HOUR, UNUSED_CLIENT_TTL_SECONDS } from '../oauth/client-rules.ts';
import { html } from '../web/html.ts';
import { pageDocument } from '../web/layout.ts';

/** llms.txt: a plain map of the API for language models and other machine readers. */
export function llmsTxt(baseUrl: string): string {
  const u = publicUrls(baseUrl);
  return `# Herald

> Herald is a self-hostable social publishing service: schedule and publish posts to connected channels (accounts on social platforms), keep a media library, and read the publishing calendar. Public REST API version 1 lives under ${u.api}.

## Documentation
- [OpenAPI 3.1 description](${u.openapi}): every endpoint, field and error of the public API
- [OpenAPI mirror](${u.openapiMirror})
- [API reference](${u.swaggerUi}): the OpenAPI document, browsable (Swagger UI)
- [Developers' guide](${u.developers})
- [Service status and discovery](${u.api}/status): clock, scopes, URLs; no credential needed

## Essentials
- Authentication: send an API key as the whole header value, \`Authorization: svc_…\` (no "Bearer"). OAuth tokens go as \`Authorization: Bearer svco_…\` (authorization server metadata: ${u.oauthServerMetadata}). MCP keys (\`svc_mcp_…\`) only work on the MCP server at ${u.mcp}.
- Getting a key: sign in with an e-mail code (POST ${u.api}/signup/start with {"email"}, then POST ${u.api}/signup/verify with {"email", "code"}, or the page ${u.signUp}), then create keys in the developer settings at ${u.developerSettings}.
- Workspaces: a key that spans several workspaces must send \`showorg: <workspace id>\` (list them with GET ${u.api}/workspaces).
- REST scopes: ${REST_SCOPES.join(', ')}. MCP scopes: ${MCP_SCOPES.join(', ')}.
- Rate limits: per route and per key; headers ${RATE_LIMIT_HEADERS.join(', ')}; a 429 carries Retry-After in seconds.
- Errors: \`{msg, code}\` for business rules, \`{statusCode, message, error}\` for invalid requests. Another workspace's object answers 404.
- Times are ISO 8601 in UTC; GET /status \`time\` is the authoritative clock.
- MCP server: ${u.mcp} (streamable HTTP, stateless). Send an MCP key as \`Authorization: Bearer svc_mcp_…\`; each tool needs its REST route's scope: \`mcp:read\` stands for reading posts and channels, \`mcp:write\` for the rest (the media library included). Its tools (get_status, list_channels, create_post, check_post_missing, …) take the same inputs as the REST routes and answer errors with the same sentences.
- Channels: POST ${u.api}/integrations/connect with \`provider\` and the platform's credentials (checked live), or for a browser sign-in (Mastodon: \`instance\`) an answer \`{url}\` to open; PATCH and DELETE ${u.api}/integrations/:id (scope channels:write).
`;
}

/** The developers' page: quick start, authentication, limits and the deprecation policy. */
export function developersHtml(baseUrl: string): string {
  const u = publicUrls(baseUrl);
  const roles = ROLES.map(
    (role) =>
      html`<tr><td><code>${role}</code></td><td>${[...ROLE_SCOPES[role]].map((s, i) => html`${i ? ' ' : ''}<code>${s}</code>`)}</td></tr>`,
  );
  const main = html`<h1>Herald for developers</h1>
<p>The public API (version 1) is at <code>${u.api}</code>. Its full description is the <a href="${u.openapi}">OpenAPI document</a>, browsable as the <a href="${u.swaggerUi}">API reference</a>; a summary for machines is at <a href="${u.llms}">llms.txt</a>.</p>
<h2 id="quick-start">Quick start</h2>
<p>List the channels your key can post to; each one's <code>id</code> is what a post names as <code>integration.id</code>:</p>
<pre>curl -H "Authorization: svc_…" ${u.api}/integrations</pre>
<h2 id="create-a-post">Create a post</h2>
<p>Schedule a post on one channel (send <code>"type": "now"</code> to publish at once, or <code>"draft"</code> to keep it unpublished; <code>date</code> is required for every type, and needs <code>Z</code> or an offset):</p>
<pre>curl -X POST ${u.api}/posts \\
  -H "Authorization: svc_…" \\
  -H "Content-Type: application/json" \\
  -d '{
    "type": "schedule",
    "date": "2026-12-01T09:30:00Z",
    "posts": [{
      "integration": { "id": "&lt;channel id&gt;" },
      "value": [{ "content": "Hello from Herald!" }]
    }]
  }'</pre>
<p>The answer lists one post per channel, <code>[{"postId": "…", "integration": "…", "group": "…"}]</code>; read it back with <code>GET /posts/&lt;postId&gt;</code>, whose <code>state</code> goes from <code>QUEUE</code> to <code>PUBLISHED</code> (or <code>ERROR</code>, with the platform's reason). <code>content</code> is HTML; text without any tag is taken as plain text, its blank lines as paragraphs and its newlines as line breaks. Send an <code>Idempotency-Key</code> header to make a retry safe.</p>
<p>To change a post that is not yet published, <code>PATCH /posts/&lt;postId&gt;</code> with only what changes, e.g. <code>{"content": "Corrected text"}</code> or <code>{"date": "2026-12-02T09:30:00Z"}</code> (<code>PUT</code> replaces it as a whole); sending the composition again to <code>POST /posts</code> with its <code>group</code> edits every channel's post at once.</p>
<h2 id="connect-a-channel">Connect a channel</h2>
<p>With the <code>channels:write</code> scope, <code>POST /integrations/connect</code> takes <code>provider</code> and the platform's fields. A token is checked with the platform at once; when that fails nothing is stored, and the answer says what happened: a 400 <code>platform_refused</code> when the platform refused the credentials (with its reason), a 400 <code>outbound_refused</code> when Herald's outbound policy refused the address, a 502 <code>platform_unreachable</code> when the platform could not be reached:</p>
<pre>curl -X POST ${u.api}/integrations/connect \\
  -H "Authorization: svc_…" -H "Content-Type: application/json" \\
  -d '{"provider": "telegram", "botToken": "123456:ABC…", "chatId": "@yourchannel"}'</pre>
<p>A platform with a browser sign-in answers <code>{"url": …}</code> to open, e.g. <code>{"provider": "mastodon", "instance": "mastodon.social"}</code>; the channel appears once the person approves (the link works once, for 15 minutes). Connecting an account again reconnects its channel, keeping the id. <code>POST /integrations/:id/reconnect</code> renews credentials, <code>PATCH /integrations/:id</code> renames it, files it under a client group or sets its preferred settings, and <code>DELETE /integrations/:id</code> removes it from the workspace (409 while posts are scheduled on it, unless <code>?force=true</code>, which moves them to draft). Its posts are kept: drafts and published history stay readable in <code>GET /posts</code> under the deleted channel's id, but cannot be scheduled (409 <code>channel_deleted</code>) until the same account is connected again, which restores the channel with the same id.</p>
<h2 id="accounts">Accounts and keys</h2>
<p>Sign in (or sign up, where the instance allows it) at <a href="${u.signUp}">${u.signUp}</a> with a one-time code sent to your e-mail address, or through the API: <code>POST /signup/start</code> with <code>{"email": "…"}</code>, then <code>POST /signup/verify</code> with <code>{"email", "code"}</code>. Then create REST and MCP keys yourself in the <a href="${u.developerSettings}">developer settings</a>, no approval needed; owners and admins invite members there too, and an invitation makes its recipient a member only once they sign in with the invited address and accept it there. The operator can also create users, workspaces and keys with the <code>herald admin</code> command. A key is shown once, when it is created; only its hash is stored. Rotating it takes effect at once: the old secret answers 401 on its next call.</p>
<h2 id="authentication">Authentication</h2>
<ul>
<li>API keys (<code>svc_…</code>) go as the whole <code>Authorization</code> value, without <code>Bearer</code>.</li>
<li>OAuth access tokens (<code>svco_…</code>) go as <code>Authorization: Bearer …</code>.</li>
<li>MCP keys (<code>svc_mcp_…</code>) only work on the MCP server; REST keys are refused there, and MCP keys here.</li>
<li>A key that spans several workspaces must send <code>showorg: &lt;workspace id&gt;</code>.</li>
<li>What a key may do is its scopes, within its owner's current role in the workspace. A demotion applies on the next call.</li>
</ul>
<table><tr><th>Role</th><th>Scopes it allows</th></tr>${roles}</table>
<h2 id="oauth">OAuth 2.1: apps acting for someone else</h2>
<p>Herald is an OAuth 2.1 authorization server (issuer <code>${u.oauthIssuer}</code>, metadata at <code>${u.oauthServerMetadata}</code>, RFC 8414). Grants: authorization code with PKCE (S256 only), refresh tokens (rotated on every use; reusing an old one revokes the whole grant), and the device authorization grant (RFC 8628, confirmed at <code>${u.oauthIssuer}/oauth/device</code>). Revoke tokens at <code>/oauth/revoke</code> (RFC 7009): a revoked token is refused from its next call, on the REST API and the MCP server; revoking a refresh token ends its grant. Every authorization the user allows is its own grant: allowing the same app again, or a second <code>herald login</code>, leaves the earlier ones working until they are revoked or expire. The authorization response carries <code>iss</code> (RFC 9207).</p>
<ul>
<li>Register an app in the developer settings under “Your apps” (confidential with a secret shown once, or public), or dynamically at <code>/oauth/register</code> (RFC 7591: public clients, redirect URIs on https or a loopback address). A <code>client_id</code> that is an https URL is read as a Client ID Metadata Document, with the same rules.</li>
<li>Limits of an app, on every path: a name of at most ${CLIENT_LIMITS.name} characters, never containing “Herald” (reserved for Herald's own apps, however it is written); at most ${CLIENT_LIMITS.redirectUris} redirect URIs of at most ${CLIENT_LIMITS.text} characters each. A dynamic registration also keeps every other text under ${CLIENT_LIMITS.text} characters and every list under ${CLIENT_LIMITS.listItems + 1} entries, ${CLIENT_LIMITS.metadataBytes / 1024} KiB of metadata in all (refused with <code>invalid_client_metadata</code>); each client address may register ${REGISTRATIONS_PER_HOUR} apps an hour (then 429 with <code>Retry-After</code>). An app registered dynamically that nobody has allowed within ${UNUSED_CLIENT_TTL_SECONDS / 3600} hours of its registration is deleted (its <code>client_id</code> then answers <code>invalid_client</code>); once allowed it stays. No registration access token is issued: registrations are not read back or changed (RFC 7592).</li>
<li>The pages that ask a person to trust an app (the device confirmation and the consent page) mark Herald's own command line as such, and show every other app's <code>client_id</code> and registration date beside the name it chose.</li>
<li>Ask for a <code>resource</code> (RFC 8707): <code>${u.api}</code> with the REST scopes, or <code>${u.mcp}</code> with <code>mcp:read</code> / <code>mcp:write</code>. A token works only on its resource.</li>
<li>On the consent page the user picks the workspace and allows or denies; they can revoke access later under “Apps you allowed”.</li>
<li>Access tokens (<code>svco_…</code>) last one hour, refresh tokens start with <code>svcr_</code>. What a token may do is its scopes within the user's current role in that workspace, checked on every call: a demoted or removed user's tokens shrink at once.</li>
</ul>
<h2 id="mcp">MCP server</h2>
<p>AI agents connect to <code>${u.mcp}</code> (streamable HTTP) with an MCP key, sent as <code>Authorization: Bearer svc_mcp_…</code>, or with an OAuth access token for that resource (clients that support MCP authorization find everything from the 401 below). Each tool needs the scope of the REST route it mirrors: <code>mcp:read</code> stands for reading posts and channels, <code>mcp:write</code> for the rest (the media library included), always within the owner's role. The tools call the same code as the REST API: same inputs, same rules, same error sentences (as tool errors). A request without a credential is answered 401 with a <code>WWW-Authenticate</code> header pointing at <code>${u.mcpOauthMetadata}</code>. For example, in Claude Code:</p>
<pre><code>claude mcp add --transport http herald ${u.mcp} --header "Authorization: Bearer svc_mcp_…"</code></pre>
<h2 id="rate-limits">Rate limits</h2>
<p>Each route has its own quota per key (per client address without a valid key). Every response carries ${RATE_LIMIT_HEADERS.map((h, i) => html`${i ? ', ' : ''}<code>${h}</code>`)}; <code>RateLimit-Reset</code> is in seconds and <code>RateLimit-Policy</code> reads <code>&lt;quota&gt;;w=&lt;window seconds&gt;</code>. A 429 carries <code>Retry-After</code>.</p>
<h2 id="errors">Errors</h2>
<p>Business rules answer <code>{"msg": "…", "code": "…"}</code>; invalid requests answer <code>{"statusCode": 400, "message": […], "error": "Bad Request"}</code>. An object of another workspace is a 404, exactly like one that does not exist.</p>
<h2 id="deprecation-policy">Deprecation policy</h2>
<p>The version is in the path (<code>/public/v1</code>). Breaking changes come as a new version; v1 only gains optional fields, new paths and new enum values, so clients must ignore fields they do not know. A route being retired answers with <code>Deprecation: true</code> and a <code>Sunset</code> date at least ${MIN_NOTICE_DAYS} days after the first such answer. Every response links here with <code>Link: &lt;…&gt;; rel="sunset"</code>. Nothing is deprecated today.</p>`;
  return pageDocument({ title: 'Herald for developers', main });
}

export const CHANNEL_AVATAR_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="32" fill="#c9d2e3"/><circle cx="32" cy="25" r="11" fill="#8793ab"/><path d="M12 54c3-11 11-17 20-17s17 6 20 17" fill="#8793ab"/></svg>`;
