/**
 * Herald's look for the API reference at /docs (Swagger UI): the page kit's colours and type, the
 * brand and navigation in place of Swagger's top bar, and Herald's icon. Served as files of the
 * Swagger UI plugin (its `theme`), so the page needs no inline script or style.
 */
export const DOCS_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2957d8"/><path d="M9 8h3.5v6.2h7V8H23v16h-3.5v-6.6h-7V24H9z" fill="#fff"/></svg>`;

/** The header the page kit's pages have, put above Swagger UI. */
export const DOCS_THEME_JS = `(function () {
  // Swagger UI's page names no viewport: phones would show it zoomed out to a desktop's width.
  var viewport = document.createElement('meta');
  viewport.name = 'viewport';
  viewport.content = 'width=device-width, initial-scale=1';
  document.head.appendChild(viewport);
  var header = document.createElement('header');
  header.className = 'herald-top';
  header.innerHTML = '<a class="brand" href="/account">Herald</a>' +
    '<nav aria-label="Documentation"><a href="/developers">Developers</a><a href="/docs" aria-current="page">API reference</a><a href="/account">Your account</a></nav>';
  document.body.insertBefore(header, document.body.firstChild);
  // Swagger UI's server list has a caption that is not its label.
  new MutationObserver(function () {
    var servers = document.querySelector('.swagger-ui .servers select:not([aria-label])');
    if (servers) servers.setAttribute('aria-label', 'Server');
  }).observe(document.body, { childList: true, subtree: true });
})();
`;

export const DOCS_THEME_CSS = `
:root{--ink:#1d2330;--muted:#5b6476;--line:#d5d9e2;--soft:#f5f7fb;--accent:#2957d8}
body{margin:0;background:#fff;color:var(--ink)}
.herald-top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.7rem 1rem;border-bottom:1px solid var(--line);background:var(--soft);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
.herald-top .brand{font-weight:700;color:var(--ink);text-decoration:none;font-size:1.1rem}
.herald-top nav{display:flex;flex-wrap:wrap;gap:.3rem .9rem}
.herald-top nav a{color:var(--accent);text-decoration:none}
.herald-top nav a[aria-current=page]{font-weight:700;color:var(--ink)}
.swagger-ui .topbar{display:none}
.swagger-ui,.swagger-ui .info .title,.swagger-ui .opblock-tag,.swagger-ui .opblock .opblock-summary-description,.swagger-ui .btn,.swagger-ui select,.swagger-ui input{font-family:system-ui,-apple-system,"Segoe UI",sans-serif}
.swagger-ui .info .title,.swagger-ui .opblock-tag{color:var(--ink)}
.swagger-ui .info a,.swagger-ui .info .base-url{color:var(--accent)}
.swagger-ui a.nostyle,.swagger-ui .opblock-tag a{color:var(--ink)}
.swagger-ui .renderedMarkdown code,.swagger-ui .markdown code{color:var(--ink);background:var(--soft);border-radius:4px;font-size:.85em;padding:.05em .3em;line-height:1.3;overflow-wrap:anywhere}
.swagger-ui .info p,.swagger-ui .info li,.swagger-ui .renderedMarkdown p{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.55}
.swagger-ui .info{margin:1.5rem 0}
.swagger-ui .btn{border-radius:8px}
.swagger-ui .btn.execute,.swagger-ui .btn.authorize{background:var(--accent);border-color:var(--accent);color:#fff}
.swagger-ui .btn.authorize svg{fill:#fff}
.swagger-ui .scheme-container{background:var(--soft);box-shadow:none;border-bottom:1px solid var(--line)}
.swagger-ui .opblock{border-radius:8px}
.swagger-ui .info .title small pre{background:#4b5563;color:#fff}
.swagger-ui .opblock.opblock-get .opblock-summary-method{background:#1d5fa0}
.swagger-ui .opblock.opblock-post .opblock-summary-method{background:#1b6e47}
.swagger-ui .opblock.opblock-put .opblock-summary-method{background:#8a4b00}
.swagger-ui .opblock.opblock-patch .opblock-summary-method{background:#166a62}
.swagger-ui .opblock.opblock-delete .opblock-summary-method{background:#b3261e}
.swagger-ui .json-schema-2020-12-expand-deep-button{color:#4b5563}
.swagger-ui .opblock-summary-path,.swagger-ui .opblock-summary-path a{display:inline-flex;align-items:center;min-height:24px}
@media (max-width:30rem){.herald-top{flex-direction:column;align-items:flex-start}.swagger-ui .wrapper{padding:0 .6rem}}
`;

/**
 * The CSP of every /docs answer: like the page kit's, but Swagger UI's script and styles are
 * files from this site (no inline code), and it calls the API it documents ("Try it out").
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
