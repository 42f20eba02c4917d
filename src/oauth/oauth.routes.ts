import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { InteractionDetails } from 'oidc-provider';
import * as z from 'zod';
import { MCP_SCOPES, REST_SCOPES } from '../auth/scopes.ts';
import { csrfToken, requireUser, webPagesPlugin, type WebOptions } from '../web/session.plugin.ts';
import { layout, messagePage, pageHeaders } from '../web/layout.ts';
import { html } from '../web/html.ts';
import { confirmationPage, confirmed } from '../web/confirm.ts';
import { formText, readForm } from '../web/forms.ts';
import { pageChrome } from '../web/navigation.ts';
import { accountIdOf, oauthResources } from './oauth.service.ts';
import { allowedAppsPage, consentPage, ownAppsPage } from './oauth-pages.html.ts';
import { AppError } from '../errors.ts';

export type OAuthRouteOptions = { web: WebOptions; baseUrl: string; trustProxy: boolean };

const uidParam = z.object({ uid: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });
const grantParam = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });
const clientParam = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });

const consentForm = z.object({ decision: formText(200), workspace: formText(200) });
const appForm = z.object({ name: formText(200), redirect_uris: formText(5000), kind: formText(200) });
const noticeQuery = z.object({ revoked: formText(), deleted: formText() });

/**
 * The authorization server inside this app: its endpoints under /oauth (token, authorize,
 * revoke, register, device) and its metadata, served by the protocol library, which is loaded on
 * the first of these requests; and Herald's own pages for the steps that need a person: the
 * consent page (signed in, picks the workspace) and the list of allowed apps.
 */
export async function oauthRoutes(app: FastifyInstance, options: OAuthRouteOptions): Promise<void> {
  const { oauth } = app.services;
  const provider = () => oauth.provider({ trustProxy: options.trustProxy });
  const resources = oauthResources(options.baseUrl);

  // The library reads its own request bodies: this scope leaves them unread.
  await app.register(async (mount) => {
    mount.removeAllContentTypeParsers();
    mount.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // The library's request handler, made once per server (a new one after the keys are rotated).
    let served:
      | { provider: Awaited<ReturnType<typeof provider>>; handler: (req: FastifyRequest['raw'], res: FastifyReply['raw']) => void }
      | undefined;
    const forward = async (request: FastifyRequest, reply: FastifyReply, url?: string) => {
      const current = await provider();
      if (served?.provider !== current) served = { provider: current, handler: current.callback() };
      const { handler } = served;
      // The library answers on the raw response: Fastify then does not send the headers set so far
      // (rate limit, Link), so they are set there; its request line is written when the response
      // finishes, under the URL asked for (the metadata's is rewritten for the library).
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      const asked = request.raw.url;
      reply.raw.prependOnceListener('finish', () => {
        request.raw.url = asked;
      });
      if (url !== undefined) request.raw.url = url;
      reply.hijack();
      handler(request.raw, reply.raw);
    };
    const route = { config: { auth: 'none' as const }, schema: { hide: true } };
    mount.all('/oauth/*', route, async (request, reply) => forward(request, reply));
    mount.post('/oauth/register', route, async (request, reply) => {
      await oauth.countRegistration(request.ip);
      return forward(request, reply);
    });
    mount.get('/.well-known/openid-configuration', route, async (request, reply) => forward(request, reply));
    // RFC 8414 metadata: the same document, at the name OAuth clients look for.
    mount.get('/.well-known/oauth-authorization-server', route, async (request, reply) =>
      forward(request, reply, '/.well-known/openid-configuration'),
    );
  });

  // Pages a person sees: the session, the layout and the CSRF check of the account pages.
  await app.register(async (pages) => {
    await pages.register(webPagesPlugin, options.web);
    const page = { config: { auth: 'none' as const, rateLimited: false }, schema: { hide: true } };
    const send = (reply: FastifyReply, body: string, status = 200, headers: Record<string, string> = pageHeaders()) =>
      reply.status(status).headers(headers).send(body);

    const chrome = (request: FastifyRequest, reply: FastifyReply, current: string) => pageChrome(request, reply, options.web, current);

    async function details(request: FastifyRequest, reply: FastifyReply): Promise<InteractionDetails | null> {
      try {
        return await (await provider()).interactionDetails(request.raw, reply.raw);
      } catch {
        return null;
      }
    }

    const expired = (reply: FastifyReply) =>
      send(
        reply,
        messagePage(
          'This request has expired',
          'The app’s request is no longer open (it was answered, or it waited too long). Go back to the app and start again.',
          { href: '/account', label: 'Your account' },
        ),
        400,
      );

    function scopesAsked(interaction: InteractionDetails): { resource: string; scopes: string[] } {
      const asked = interaction.params.resource;
      const resource = Array.isArray(asked) ? (asked[0] ?? resources.rest) : (asked ?? resources.rest);
      const allowed: readonly string[] = resource === resources.mcp ? MCP_SCOPES : REST_SCOPES;
      const requested = String(interaction.params.scope ?? '')
        .split(' ')
        .filter(Boolean);
      return { resource, scopes: requested.filter((s) => allowed.includes(s)) };
    }

    pages.get('/oauth/interaction/:uid', { ...page, preHandler: requireUser }, async (request, reply) => {
      const { uid } = uidParam.parse(request.params);
      const interaction = await details(request, reply);
      if (!interaction || interaction.uid !== uid) return expired(reply);
      const clientId = String(interaction.params.client_id ?? '');
      const { resource, scopes } = scopesAsked(interaction);
      const redirect = typeof interaction.params.redirect_uri === 'string' ? interaction.params.redirect_uri : null;
      let redirectOrigin: string | null = null;
      try {
        redirectOrigin = redirect ? new URL(redirect).origin : null;
      } catch {
        redirectOrigin = null;
      }
      const account = request.account!;
      // The answer redirects to the app: the form may lead there (form-action covers redirects).
      const headers = pageHeaders(redirectOrigin && redirectOrigin !== 'null' ? { formAction: `'self' ${redirectOrigin}` } : {});
      return send(
        reply,
        consentPage({
          chrome: chrome(request, reply, `/oauth/interaction/${uid}`),
          csrf: csrfToken(request, reply, options.web),
          uid,
          client: await oauth.clientFacts(clientId),
          redirectHost: redirectOrigin,
          resourceName: resource === resources.mcp ? `the MCP server (${resource})` : `the REST API (${resource})`,
          scopes,
          workspaces: account.memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name, role: m.role })),
          currentWorkspaceId: account.current?.workspace.id ?? null,
        }),
        200,
        headers,
      );
    });

    pages.post('/oauth/interaction/:uid', { ...page, preHandler: requireUser }, async (request, reply) => {
      const { uid } = uidParam.parse(request.params);
      const interaction = await details(request, reply);
      if (!interaction || interaction.uid !== uid) return expired(reply);
      const p = await provider();
      const account = request.account!;
      const form = readForm(consentForm, request.body);
      let result: Record<string, unknown>;
      if (form.decision !== 'allow') {
        result = { error: 'access_denied', error_description: 'The user denied the request.' };
      } else {
        const membership = account.memberships.find((m) => m.workspace.id === form.workspace);
        if (!membership)
          return send(
            reply,
            messagePage('Choose a workspace', 'Pick one of your workspaces for the app to act in.', {
              href: `/oauth/interaction/${uid}`,
              label: 'Back',
            }),
            400,
          );
        const { resource, scopes } = scopesAsked(interaction);
        const accountId = accountIdOf(account.session.userId, membership.workspace.id);
        const grant = new p.Grant({ accountId, clientId: String(interaction.params.client_id) });
        if (scopes.length) grant.addResourceScope(resource, scopes.join(' '));
        const offline = String(interaction.params.scope ?? '')
          .split(' ')
          .includes('offline_access');
        if (offline) grant.addOAuthScope('offline_access');
        const grantId = await grant.save();
        result = { login: { accountId }, consent: { grantId } };
      }
      const target = await p.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
      return reply.redirect(target, 303);
    });

    // --- Apps you allowed ---
    pages.get('/account/apps', { ...page, preHandler: requireUser }, async (request, reply) => {
      const account = request.account!;
      const names = new Map(account.memberships.map((m) => [m.workspace.id, m.workspace.name]));
      const apps = (await oauth.allowedApps(account.session.userId)).map((a) => ({
        ...a,
        workspaceName: names.get(a.workspaceId) ?? 'a workspace you left',
      }));
      const notice = readForm(noticeQuery, request.query).revoked === '1' ? 'Access revoked: the app’s tokens no longer work.' : undefined;
      return send(
        reply,
        allowedAppsPage({ chrome: chrome(request, reply, '/account/apps'), csrf: csrfToken(request, reply, options.web), apps, notice }),
      );
    });

    /** A destructive action's confirmation page (see confirmationPage), posting back to the action's URL. */
    const askFirst = (
      request: FastifyRequest,
      reply: FastifyReply,
      back: '/account/apps' | '/account/developer-apps',
      ask: { title: string; consequence: string; button: string },
    ) =>
      send(
        reply,
        confirmationPage({
          chrome: chrome(request, reply, back),
          csrf: csrfToken(request, reply, options.web),
          action: request.url,
          back,
          ...ask,
        }),
      );

    pages.post('/account/apps/:id/revoke', { ...page, preHandler: requireUser }, async (request, reply) => {
      const { id } = grantParam.parse(request.params);
      const userId = request.account!.session.userId;
      if (!confirmed(request.body)) {
        const allowed = (await oauth.allowedApps(userId)).find((a) => a.grantId === id);
        if (allowed)
          return askFirst(request, reply, '/account/apps', {
            title: `Revoke the access of ${allowed.clientName}?`,
            consequence: 'Its tokens stop working at once; to act for you again, it must ask you again.',
            button: 'Revoke access',
          });
      } else if (await oauth.revokeGrant(userId, id)) return reply.redirect('/account/apps?revoked=1', 303);
      return send(
        reply,
        layout('Not found', html`<h1>Not found</h1><p>No such app access.</p><p><a href="/account/apps">Apps you allowed</a></p>`),
        404,
      );
    });

    // --- Your apps (registered by the user) ---
    const ownApps = async (
      request: FastifyRequest,
      reply: FastifyReply,
      extra: Omit<Parameters<typeof ownAppsPage>[0], 'chrome' | 'csrf' | 'apps'> = {},
      status = 200,
    ) =>
      send(
        reply,
        ownAppsPage({
          chrome: chrome(request, reply, '/account/developer-apps'),
          csrf: csrfToken(request, reply, options.web),
          apps: await oauth.ownApps(request.account!.session.userId),
          ...extra,
        }),
        status,
      );
    const refusal = (error: unknown) => {
      if (error instanceof AppError && error.statusCode < 500) return error;
      throw error;
    };

    pages.get('/account/developer-apps', { ...page, preHandler: requireUser }, async (request, reply) => {
      const notice = readForm(noticeQuery, request.query).deleted === '1' ? 'App deleted: its tokens no longer work.' : undefined;
      return ownApps(request, reply, { notice });
    });

    pages.post('/account/developer-apps', { ...page, preHandler: requireUser }, async (request, reply) => {
      const posted = readForm(appForm, request.body);
      const form = { name: posted.name, redirectUris: posted.redirect_uris, confidential: posted.kind !== 'public' };
      try {
        const created = await oauth.registerApp(request.account!.session.userId, {
          name: form.name,
          redirectUris: form.redirectUris.split(/\r?\n/),
          confidential: form.confidential,
        });
        return ownApps(request, reply, { created: { ...created, rotated: false } });
      } catch (error) {
        const e = refusal(error);
        return ownApps(request, reply, { error: e.message, form }, e.statusCode);
      }
    });

    /**
     * A POST on one of the signed-in user's apps: unless confirmed, the page that asks first (`ask`, given the app; a 404
     * when the app is not theirs); once confirmed, `act`. A refusal shows the apps page with its message.
     */
    const ownAppAction = (
      action: 'rotate' | 'delete',
      ask: (app: { name: string }) => { title: string; consequence: string; button: string },
      act: (userId: string, id: string, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
    ) =>
      pages.post(`/account/developer-apps/:id/${action}`, { ...page, preHandler: requireUser }, async (request, reply) => {
        const { id } = clientParam.parse(request.params);
        const userId = request.account!.session.userId;
        try {
          if (!confirmed(request.body)) {
            const found = (await oauth.ownApps(userId)).find((a) => a.clientId === id);
            if (!found) throw new AppError(404, 'not_found', 'No such app among yours.');
            return askFirst(request, reply, '/account/developer-apps', ask(found));
          }
          return await act(userId, id, request, reply);
        } catch (error) {
          const e = refusal(error);
          return ownApps(request, reply, { error: e.message }, e.statusCode);
        }
      });

    ownAppAction(
      'rotate',
      (app) => ({
        title: `Rotate the secret of ${app.name}?`,
        consequence: 'A new secret is shown once, and the current one stops working at once: the app must be given the new one.',
        button: 'Rotate the secret',
      }),
      async (userId, id, request, reply) => {
        const rotated = await oauth.rotateAppSecret(userId, id);
        return ownApps(request, reply, { created: { ...rotated, rotated: true } });
      },
    );

    ownAppAction(
      'delete',
      (app) => ({
        title: `Delete ${app.name}?`,
        consequence: 'Every token it was given stops working at once, and nobody can allow it again. This cannot be undone.',
        button: 'Delete the app',
      }),
      async (userId, id, _request, reply) => {
        await oauth.deleteApp(userId, id);
        return reply.redirect('/account/developer-apps?deleted=1', 303);
      },
    );
  });
}
