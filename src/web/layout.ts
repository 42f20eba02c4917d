import { html, SafeHtml, sha256Source } from './html.ts';
import { STYLE } from './stylesheet.ts';

/** The pages' one script: copy buttons. Every page works without it. */
export const SCRIPT = `
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  button.hidden = false;
  button.addEventListener('click', function () {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target || !navigator.clipboard) return;
    navigator.clipboard.writeText(target.textContent.trim()).then(function () { button.textContent = 'Copied'; });
  });
});
`;

/**
 * What a page may load besides the stylesheet, which every page has. Everything not named is
 * refused (`default-src 'none'`).
 */
export type PageSources = {
  /** The page's inline script: the copy script unless said otherwise; null for none. */
  script?: string | null;
  /** img-src; the site and data: URLs unless said otherwise. */
  img?: string;
  /** media-src: audio and video. */
  media?: string;
  /** font-src (the calendar's icon font is a data: URL in its styles). */
  font?: string;
  /** connect-src: what the scripts may call; the site unless said otherwise. */
  connect?: string;
  /** Where the page's forms may post (and be redirected): the site unless said otherwise. */
  formAction?: string;
  /** A page with no stylesheet, script or header that loads nothing at all (the channel sign-in's last step). */
  bare?: boolean;
  /** script-src instead of the inline script's hash (the web app: `'self'`). */
  scriptSrc?: string;
  /** style-src beside the page kit's stylesheet (the web app: its own file, and an empty style element by hash). */
  styleSrc?: string;
};

/**
 * Response headers of every HTML page: never cached, no referrer (some pages carry a secret in
 * their URL), not indexed, not sniffed, not framed, and a CSP that allows only the page kit's
 * stylesheet and script (by their hashes) and the sources named.
 */
export function pageHeaders(sources: PageSources = {}): Record<string, string> {
  const { bare = false, media } = sources;
  const script = bare ? null : sources.script === undefined ? SCRIPT : sources.script;
  const img = sources.img ?? (bare ? undefined : "'self' data:");
  const connect = sources.connect ?? (bare ? undefined : "'self'");
  const directives = [
    "default-src 'none'",
    sources.scriptSrc !== undefined ? `script-src ${sources.scriptSrc}` : script !== null && `script-src ${sha256Source(script)}`,
    !bare && `style-src ${sha256Source(STYLE)}${sources.styleSrc ? ` ${sources.styleSrc}` : ''}`,
    img && `img-src ${img}`,
    media && `media-src ${media}`,
    sources.font && `font-src ${sources.font}`,
    connect && `connect-src ${connect}`,
    "base-uri 'none'",
    `form-action ${sources.formAction ?? "'self'"}`,
    "frame-ancestors 'none'",
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
    'x-robots-tag': 'noindex, nofollow',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'content-security-policy': directives.filter(Boolean).join('; '),
  };
}

export type NavItem = { href: string; label: string; current?: boolean };

/** The header of a signed-in page: navigation, the workspace switcher, sign out. */
export type PageChrome = {
  nav: NavItem[];
  workspaces: Array<{ id: string; name: string }>;
  currentWorkspaceId: string | null;
  /** Where the switcher returns to. */
  back: string;
  csrf: string;
  email: string;
};

/** The one header: the brand, and for a signed-in person the navigation, workspace switcher and sign out. */
function siteHeader(chrome: PageChrome | undefined): SafeHtml {
  if (!chrome) return html`<header class="top"><a class="brand" href="/account">Herald</a></header>`;
  const switcher =
    chrome.workspaces.length > 1
      ? html`<form class="switcher" method="post" action="/account/workspace">
  <input type="hidden" name="_csrf" value="${chrome.csrf}"><input type="hidden" name="back" value="${chrome.back}">
  <label for="workspace-switch" class="muted">Workspace</label>
  <select id="workspace-switch" name="workspace">${chrome.workspaces.map((w) => html`<option value="${w.id}"${w.id === chrome.currentWorkspaceId ? html` selected` : ''}>${w.name}</option>`)}</select>
  <button type="submit" class="secondary">Switch</button>
</form>`
      : chrome.workspaces.length === 1
        ? html`<span class="muted">${chrome.workspaces[0]!.name}</span>`
        : '';
  return html`<header class="top">
  <a class="brand" href="/account">Herald</a>
  <nav aria-label="Account">${chrome.nav.map((item) => html`<a href="${item.href}"${item.current ? html` aria-current="page"` : ''}>${item.label}</a>`)}</nav>
  ${switcher}
  <form class="inline" method="post" action="/account/sign-out"><input type="hidden" name="_csrf" value="${chrome.csrf}"><span class="muted">${chrome.email}</span> <button type="submit" class="link">Sign out</button></form>
</header>`;
}

/**
 * The one document shell of every page: the head with the stylesheet, the header, `main`, then
 * the page's inline `script` if any (allowed by the same `script` given to `pageHeaders`). A
 * `bare` page (see PageSources) has only its title and `main`.
 */
export function pageDocument(page: {
  title: string;
  main: SafeHtml;
  chrome?: PageChrome | undefined;
  script?: string;
  bare?: boolean;
  /** More of the head (the web app's meta, stylesheet link and module script). */
  head?: SafeHtml;
}): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${page.title}</title>
<link rel="icon" href="data:,">
${page.bare ? '' : html`<style>${new SafeHtml(STYLE)}</style>\n`}${page.head ?? ''}</head><body>
${page.bare ? '' : siteHeader(page.chrome)}
<main>
${page.main}
</main>
${page.script === undefined ? '' : html`<script>${new SafeHtml(page.script)}</script>`}
</body></html>`.value;
}

/** An account or OAuth page: its title followed by the site's name. */
export function layout(title: string, body: SafeHtml, chrome?: PageChrome): string {
  return pageDocument({ title: `${title} · Herald`, main: body, chrome, script: SCRIPT });
}

/** A short page that only says something (an error, a refusal). */
export function messagePage(title: string, text: string, link?: { href: string; label: string }): string {
  return layout(title, html`<h1>${title}</h1><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`);
}
