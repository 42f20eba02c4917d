import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appBuild, chooseEncoding } from './app-assets.ts';
import { html, sha256Source } from './html.ts';
import { pageDocument, pageHeaders } from './layout.ts';
import { appSection, pageChrome } from './navigation.ts';
import { csrfToken, requireUser, webPagesPlugin, type WebOptions } from './session.plugin.ts';

/**
 * FullCalendar 6 adds its styles as rules to a `<style data-fullcalendar>` element (through the
 * CSS object model, which the CSP allows); the page carries that element, empty, allowed by the
 * hash of nothing, so no inline style is ever allowed.
 */
const EMPTY_STYLE = sha256Source('');

/**
 * The web app: one page at /app (and /app/… for the app's own routes) with the site's header,
 * the app's module script and stylesheet (content-hashed, cached for good), and the CSRF token
 * its API calls send in `X-Herald-CSRF`. The app is a client of the public REST API.
 */
export async function appPages(app: FastifyInstance, options: { web: WebOptions; developersUrl: string; baseUrl: string }): Promise<void> {
  const { web } = options;
  // Thumbnails and previews come from the media store's public address (the site's, or a bucket's under it).
  const mediaOrigin = new URL(options.baseUrl).origin;
  const headers = pageHeaders({
    scriptSrc: "'self'",
    styleSrc: `${EMPTY_STYLE} 'self'`,
    font: 'data:',
    img: `'self' ${mediaOrigin} data: blob:`,
    media: `'self' ${mediaOrigin} blob:`,
  });
  await app.register(webPagesPlugin, web);
  const page = { config: { auth: 'none' as const, rateLimited: false }, schema: { hide: true } };

  async function shell(request: FastifyRequest, reply: FastifyReply) {
    const build = await appBuild();
    const account = request.account!;
    const section = appSection(request.url);
    const csrf = csrfToken(request, reply, web);
    const head = html`<meta name="herald-csrf" content="${csrf}">
<meta name="herald-role" content="${account.current?.role ?? ''}">
<style data-fullcalendar></style>
${build.stylesheet ? html`<link rel="stylesheet" href="/app/assets/${build.stylesheet}">` : ''}
<script type="module" src="/app/assets/${build.script}"></script>
`;
    const main = account.current
      ? html`<div id="app" data-workspace="${account.current.workspace.name}"><p class="muted">Loading…</p></div>
<noscript><p>The app needs JavaScript. Your keys and members are under <a href="/account/keys">Developer settings</a>.</p></noscript>`
      : html`<h1>No workspace yet</h1><p>You are not a member of any workspace. Ask an owner for an invitation.</p>`;
    return reply
      .status(200)
      .headers(headers)
      .send(pageDocument({ title: `${section.label} · Herald`, main, chrome: pageChrome(request, reply, web, section.href), head }));
  }

  app.get('/app', { ...page, preHandler: requireUser }, shell);
  app.get('/app/*', { ...page, preHandler: requireUser }, async (request, reply) => {
    if (request.url.startsWith('/app/assets/')) return reply.callNotFound();
    return shell(request, reply);
  });

  // The app's files: content-hashed names, so they never change and are cached for a year; brotli
  // or gzip as the browser accepts, compressed once when the app was built.
  app.get<{ Params: { '*': string } }>('/app/assets/*', page, async (request, reply) => {
    const build = await appBuild();
    const file = build.files.get(request.params['*']);
    if (!file) return reply.callNotFound();
    const coding = chooseEncoding(request.headers['accept-encoding']);
    const sent = coding === 'identity' ? file : (await file.compressed)[coding];
    reply.headers({
      'cache-control': 'public, max-age=31536000, immutable',
      etag: sent.etag,
      vary: 'Accept-Encoding',
      'x-content-type-options': 'nosniff',
    });
    const known = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (known?.includes(sent.etag)) return reply.status(304).send();
    if (coding !== 'identity') reply.header('content-encoding', coding);
    return reply.header('content-type', file.type).send(sent.body);
  });

  // The site's address: a signed-in person goes to the app, anyone else to the developers' guide (as before).
  app.get('/', page, async (request, reply) => reply.redirect(request.account ? '/app' : options.developersUrl));
}
