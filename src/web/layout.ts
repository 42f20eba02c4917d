import { html, type SafeHtml } from './html.ts';
import { pageDocument, securePageHeaders } from './page-shell.ts';

/** The pages' one stylesheet: small, readable, and fits a phone. */
export const STYLE = `
:root{color-scheme:light;--ink:#1d2330;--muted:#5b6476;--line:#d5d9e2;--soft:#f5f7fb;--accent:#2957d8;--bad:#b42318;--good:#16794c}
*{box-sizing:border-box}
a{color:var(--accent)}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--ink);background:#fff}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.7rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
header.top .brand{font-weight:700;color:var(--ink);text-decoration:none;font-size:1.1rem}
nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem;align-items:center}
nav a{color:var(--accent);text-decoration:none}
header.top form.inline{overflow-wrap:anywhere;max-width:100%}
nav a[aria-current=page]{font-weight:700;color:var(--ink)}
main{max-width:48rem;margin:0 auto;padding:1.2rem 1rem 3rem}
h1{font-size:1.45rem;margin:.3rem 0 .8rem}
h2{font-size:1.15rem;margin:1.8rem 0 .6rem}
p{margin:.4rem 0}
.muted{color:var(--muted);font-size:.95rem}
form{margin:0}
form.inline{display:inline}
label{display:block;font-weight:600;margin:.7rem 0 .25rem}
input[type=email],input[type=text],select,textarea{width:100%;max-width:26rem;font:inherit;padding:.5rem .6rem;border:1px solid var(--line);border-radius:8px;background:#fff}
input.code{font-family:ui-monospace,monospace;font-size:1.3rem;letter-spacing:.15em;max-width:14rem}
fieldset{border:1px solid var(--line);border-radius:8px;margin:.8rem 0;padding:.4rem .9rem .7rem}
legend{font-weight:600;padding:0 .3rem}
fieldset label{display:flex;gap:.5rem;align-items:center;font-weight:400;margin:.3rem 0}
button{font:inherit;padding:.5rem 1rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:#fff;font-weight:600;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
button.link{background:none;border:none;color:var(--accent);padding:0;font-weight:400}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:1rem}
.banner{padding:.8rem 1rem;border-radius:8px;margin:1rem 0;background:#eef4ff}
.banner.bad{background:#fdecea;color:var(--bad)}
.banner.good{background:#e8f5ee;color:var(--good)}
.secret{border:2px solid var(--good);border-radius:10px;padding:.9rem 1rem;margin:1rem 0;background:#f3fbf6}
.secret h2{margin-top:0}
.secret code{display:block;font:15px/1.4 ui-monospace,monospace;overflow-wrap:anywhere;word-break:break-all;background:#fff;border:1px solid var(--line);border-radius:6px;padding:.5rem .6rem;margin:.5rem 0;user-select:all}
.cards{list-style:none;margin:0;padding:0}
.cards>li{border:1px solid var(--line);border-radius:10px;padding:.8rem 1rem;margin:.7rem 0}
.cards .title{display:flex;flex-wrap:wrap;gap:.3rem .7rem;align-items:baseline}
.cards .title strong{overflow-wrap:anywhere}
.tag{display:inline-block;font-size:.8rem;padding:.05rem .45rem;border-radius:999px;background:var(--soft);border:1px solid var(--line)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem .8rem;margin:.5rem 0;font-size:.93rem}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.switcher{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;max-width:100%;min-width:0}
.switcher label{margin:0;font-weight:400}
.switcher select{width:auto;flex:1 1 8rem;min-width:0;max-width:14rem;padding:.3rem .4rem}
.switcher button{padding:.3rem .6rem}
@media (max-width:30rem){header.top{flex-direction:column;align-items:flex-start}}
`;

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

/** The account pages' policy: their own style and script, images from the site, forms to the site. */
const ACCOUNT_PAGE_HEADERS = securePageHeaders({ style: STYLE, script: SCRIPT, img: "'self' data:", connect: "'self'", formAction: "'self'" });

/** Headers of every account page: never cached, no referrer, not framed, a strict CSP. */
export function pageHeaders(): Record<string, string> {
  return { ...ACCOUNT_PAGE_HEADERS };
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

function chromeHtml(chrome: PageChrome): SafeHtml {
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

/** A whole page: the stylesheet and script are inline, allowed by their hashes in the CSP. */
export function layout(title: string, body: SafeHtml, chrome?: PageChrome): string {
  return pageDocument({
    title: `${title} · Herald`,
    style: STYLE,
    body: `${chrome ? chromeHtml(chrome).value : '<header class="top"><a class="brand" href="/account">Herald</a></header>'}
<main>
${body.value}
</main>
<script>${SCRIPT}</script>`,
  });
}

/** A short page that only says something (an error, a refusal). */
export function messagePage(title: string, text: string, link?: { href: string; label: string }): string {
  return layout(title, html`<h1>${title}</h1><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`);
}
