import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { AppError } from '../errors.ts';
import { html } from '../web/html.ts';
import { layout, messagePage, pageHeaders, type PageChrome } from '../web/layout.ts';
import { clearBrowserSession, csrfToken, requireUser, safeNext, signInBrowser, webPagesPlugin, type WebOptions } from '../web/session.plugin.ts';
import { keysPage, linkPage, membersPage, signInPage, type CreatedSecret } from './account-pages.html.ts';
import { scopesFor } from './developer-keys.service.ts';
import { grantableRoles, mayManageMembers, type Actor } from './members.service.ts';
import type { Session } from './sessions.service.ts';
import { SIGNUP_START_QUOTA, SIGNUP_VERIFY_QUOTA } from './signup.routes.ts';
import { emailSchema, normaliseEmail } from '../users/users.schema.ts';

type Body = Record<string, unknown>;

function field(body: unknown, name: string): string {
  const value = (body as Body | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.slice(0, 1000) : '';
}

function fields(body: unknown, name: string): string[] {
  const value = (body as Body | undefined)?.[name];
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === 'string').slice(0, 100);
}

const idParam = z.object({ id: z.string().min(1).max(100) });
const tokenParam = z.object({ token: z.string().regex(/^[0-9A-Za-z]{1,100}$/) });

/**
 * The account pages: sign up / sign in by e-mail code, developer settings (keys), workspace
 * members, the workspace switcher and sign out. Server-rendered; every form works without
 * JavaScript and carries a CSRF token. The OAuth consent pages register beside these, in the
 * same scope, to share the session, the layout and the CSRF check.
 */
export async function accountPages(app: FastifyInstance, options: { web: WebOptions }): Promise<void> {
  const { web } = options;
  await app.register(webPagesPlugin, web);
  const { signIn, sessions, developerKeys, members, channels } = app.services;
  const page = { config: { auth: 'none' as const, rateLimited: false }, schema: { hide: true } };
  const send = (reply: FastifyReply, body: string, status = 200) => reply.status(status).headers(pageHeaders()).send(body);

  function chrome(request: FastifyRequest, reply: FastifyReply, current: 'keys' | 'members'): PageChrome {
    const account = request.account!;
    const nav = [{ href: '/account/keys', label: 'Developer settings', current: current === 'keys' }];
    if (account.current && mayManageMembers(account.current.role)) nav.push({ href: '/account/members', label: 'Members', current: current === 'members' });
    nav.push({ href: '/account/apps', label: 'Apps you allowed', current: false }, { href: '/account/developer-apps', label: 'Your apps', current: false });
    return {
      nav,
      workspaces: account.memberships.map((m) => ({ id: m.workspace.id, name: m.workspace.name })),
      currentWorkspaceId: account.current?.workspace.id ?? null,
      back: `/account/${current}`,
      csrf: csrfToken(request, reply, web),
      email: account.session.email,
    };
  }

  /** A refusal to show on the page (with its headers, e.g. a 429's Retry-After); anything else goes to the error handler. */
  function failure(error: unknown, reply: FastifyReply): { status: number; message: string } {
    if (!(error instanceof AppError) || error.statusCode >= 500) throw error;
    reply.headers(error.headers);
    return { status: error.statusCode, message: error.message };
  }

  // The route's rate limit (asking for codes: each one a mail) refuses before the handler: as a page, not the API's JSON.
  app.setErrorHandler((error, _request, reply) => {
    if (!(error instanceof AppError) || error.statusCode !== 429) throw error;
    const { status, message } = failure(error, reply);
    return send(reply, messagePage('Too many requests', message, { href: '/account/sign-in', label: 'Back to sign in' }), status);
  });

  // --- Sign in / sign up ---
  app.get('/account', page, async (request, reply) => reply.redirect(request.account ? '/account/keys' : '/account/sign-in', 303));

  app.get('/account/sign-in', page, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const email = emailSchema.safeParse(field(query, 'email'));
    const next = field(query, 'next') || undefined;
    // Signed in already, with no other address to sign in as (an invitation's link to one's own address).
    if (request.account && (!email.success || normaliseEmail(email.data) === request.account.session.email)) return reply.redirect(safeNext(next), 303);
    const code = field(query, 'code').replace(/\D/g, '').slice(0, 12) || undefined;
    // The code step only after a code was asked for (or with the mailed one); a link with just the address asks for one first.
    const step = email.success && (code !== undefined || field(query, 'sent') === '1') ? 'code' : 'email';
    return send(reply, signInPage({ csrf: csrfToken(request, reply, web), step, email: email.success ? email.data : undefined, code, next: next && safeNext(next), policy: signIn.policy }));
  });

  app.post('/account/sign-in', { ...page, config: { auth: 'none', quota: SIGNUP_START_QUOTA } }, async (request, reply) => {
    const next = field(request.body, 'next');
    const email = emailSchema.safeParse(field(request.body, 'email').trim());
    const render = (status: number, error: string) => send(reply, signInPage({ csrf: csrfToken(request, reply, web), step: 'email', email: field(request.body, 'email'), next: next && safeNext(next), error, policy: signIn.policy }), status);
    if (!email.success) return render(400, 'That is not an e-mail address.');
    try {
      await signIn.start(email.data, { afterAnswer: (deliver) => void reply.then(() => signIn.later(deliver), () => signIn.later(deliver)) });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return render(status, message);
    }
    const query = new URLSearchParams({ email: email.data, sent: '1', ...(next && { next: safeNext(next) }) });
    return reply.redirect(`/account/sign-in?${query.toString()}`, 303);
  });

  app.post('/account/sign-in/verify', { ...page, config: { auth: 'none', quota: SIGNUP_VERIFY_QUOTA } }, async (request, reply) => {
    const next = field(request.body, 'next');
    const email = field(request.body, 'email');
    try {
      if (!emailSchema.safeParse(email).success) throw new AppError(400, 'invalid_email', 'That is not an e-mail address.');
      const { user } = await signIn.verify(email, field(request.body, 'code').replace(/\s/g, ''));
      await signInBrowser(reply, web, user.id);
      return reply.redirect(safeNext(next), 303);
    } catch (error) {
      const { status, message } = failure(error, reply);
      return send(reply, signInPage({ csrf: csrfToken(request, reply, web), step: 'code', email, next: next && safeNext(next), error: message, policy: signIn.policy }), status);
    }
  });

  app.get('/account/link/:token', { ...page, schema: { hide: true, params: tokenParam } }, async (request, reply) => {
    const { token } = request.params as z.infer<typeof tokenParam>;
    return send(reply, linkPage({ csrf: csrfToken(request, reply, web), token }));
  });

  app.post('/account/link/:token', { ...page, config: { auth: 'none', quota: SIGNUP_VERIFY_QUOTA }, schema: { hide: true, params: tokenParam } }, async (request, reply) => {
    const { token } = request.params as z.infer<typeof tokenParam>;
    try {
      const user = await signIn.useLink(token);
      await signInBrowser(reply, web, user.id);
      return reply.redirect('/account/keys', 303);
    } catch (error) {
      const { status, message } = failure(error, reply);
      return send(reply, messagePage('Link not valid', message, { href: '/account/sign-in', label: 'Sign in with your e-mail address' }), status);
    }
  });

  app.post('/account/sign-out', page, async (request, reply) => {
    if (request.account) await sessions.end(request.account.session.id);
    clearBrowserSession(reply, web);
    return reply.redirect('/account/sign-in', 303);
  });

  // --- Signed-in pages ---
  const signedIn = { ...page, preHandler: requireUser };

  app.post('/account/sign-out-everywhere', signedIn, async (request, reply) => {
    await sessions.endAll(request.account!.session.userId);
    clearBrowserSession(reply, web);
    return reply.redirect('/account/sign-in', 303);
  });

  app.post('/account/workspace', signedIn, async (request, reply) => {
    await sessions.selectWorkspace(request.account!.session, field(request.body, 'workspace'));
    const back = field(request.body, 'back');
    return reply.redirect(back === '/account/members' ? back : '/account/keys', 303);
  });

  async function renderKeys(request: FastifyRequest, reply: FastifyReply, extra: { created?: CreatedSecret; error?: string; notice?: string; status?: number } = {}) {
    const account = request.account!;
    const current = account.current;
    const owner = current && { userId: account.session.userId, workspaceId: current.workspace.id, role: current.role };
    const [keys, channelList] = owner ? await Promise.all([developerKeys.list(owner), channels.list(owner.workspaceId)]) : [[], []];
    const invitations = await members.received(account.session);
    return send(
      reply,
      keysPage({
        chrome: chrome(request, reply, 'keys'),
        csrf: csrfToken(request, reply, web),
        workspaceName: current?.workspace.name ?? null,
        role: current?.role ?? null,
        keys,
        channels: channelList.map((c) => ({ id: c.id, name: c.name })),
        restScopes: current ? scopesFor('rest', current.role) : [],
        mcpScopes: current ? scopesFor('mcp', current.role) : [],
        invitations,
        ...extra,
      }),
      extra.status,
    );
  }

  function keyOwner(request: FastifyRequest) {
    const account = request.account!;
    if (!account.current) return null;
    return { userId: account.session.userId, workspaceId: account.current.workspace.id, role: account.current.role };
  }

  app.get('/account/keys', signedIn, async (request, reply) => renderKeys(request, reply));

  app.post('/account/keys', signedIn, async (request, reply) => {
    const owner = keyOwner(request);
    if (!owner) return renderKeys(request, reply, { status: 403, error: 'You are not a member of any workspace.' });
    const kind = field(request.body, 'kind') === 'mcp' ? 'mcp' : 'rest';
    const allOfKind = new Set<string>(scopesFor(kind, 'owner'));
    try {
      const created = await developerKeys.create(owner, {
        kind,
        name: field(request.body, 'name'),
        scopes: fields(request.body, 'scopes').filter((s) => allOfKind.has(s)),
        channelIds: fields(request.body, 'channels'),
      });
      return renderKeys(request, reply, { created: { ...created, rotated: false } });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return renderKeys(request, reply, { status, error: message });
    }
  });

  app.post('/account/keys/:id/rotate', { ...signedIn, schema: { hide: true, params: idParam } }, async (request, reply) => {
    const owner = keyOwner(request);
    try {
      if (!owner) throw new AppError(404, 'not_found', 'No such key.');
      const rotated = await developerKeys.rotate(owner, (request.params as z.infer<typeof idParam>).id);
      return renderKeys(request, reply, { created: { ...rotated, rotated: true } });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return renderKeys(request, reply, { status, error: message });
    }
  });

  app.post('/account/keys/:id/revoke', { ...signedIn, schema: { hide: true, params: idParam } }, async (request, reply) => {
    const owner = keyOwner(request);
    try {
      if (!owner) throw new AppError(404, 'not_found', 'No such key.');
      const key = await developerKeys.revoke(owner, (request.params as z.infer<typeof idParam>).id);
      return renderKeys(request, reply, { notice: `Key “${key.name}” is revoked; it no longer works.` });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return renderKeys(request, reply, { status, error: message });
    }
  });

  // --- Invitations to the signed-in user ---
  /** Answers an invitation sent to the signed-in address, then shows the keys page with what happened. */
  function answerAction(answer: 'accept' | 'decline', action: (session: Session, invitationId: string, request: FastifyRequest) => Promise<string>) {
    app.post(`/account/invitations/:id/${answer}`, { ...signedIn, schema: { hide: true, params: idParam } }, async (request, reply) => {
      try {
        const notice = await action(request.account!.session, (request.params as z.infer<typeof idParam>).id, request);
        return renderKeys(request, reply, { notice });
      } catch (error) {
        const { status, message } = failure(error, reply);
        return renderKeys(request, reply, { status, error: message });
      }
    });
  }

  answerAction('accept', async (session, id, request) => {
    const joined = await members.accept({ id: session.userId, email: session.email }, id);
    // The pages go on in the workspace just joined.
    await sessions.selectWorkspace(session, joined.workspaceId);
    request.account = await sessions.context({ ...session, workspaceId: joined.workspaceId });
    return `You joined ${joined.workspaceName} as ${joined.role}.`;
  });
  answerAction('decline', async (session, id) => {
    await members.decline(session, id);
    return 'Invitation declined.';
  });

  // --- Members ---
  function actorOf(request: FastifyRequest): Actor | null {
    const account = request.account!;
    if (!account.current || !mayManageMembers(account.current.role)) return null;
    return { userId: account.session.userId, email: account.session.email, workspaceId: account.current.workspace.id, role: account.current.role };
  }

  async function renderMembers(request: FastifyRequest, reply: FastifyReply, extra: { error?: string; notice?: string; status?: number } = {}) {
    const actor = actorOf(request);
    if (!actor) {
      return send(reply, layout('Members', html`<h1>Members</h1><p>Only owners and admins of a workspace manage its members.</p>`, chrome(request, reply, 'members')), 403);
    }
    const { members: list, invitations } = await members.list(actor);
    return send(
      reply,
      membersPage({
        chrome: chrome(request, reply, 'members'),
        csrf: csrfToken(request, reply, web),
        workspaceName: request.account!.current!.workspace.name,
        selfId: actor.userId,
        members: list,
        invitations,
        grantable: grantableRoles(actor.role),
        ...extra,
      }),
      extra.status,
    );
  }

  app.get('/account/members', signedIn, async (request, reply) => renderMembers(request, reply));

  /** Runs a members action, then shows the page again with what happened. */
  function membersAction(url: string, action: (actor: Actor, request: FastifyRequest) => Promise<string>, params?: z.ZodType) {
    app.post(url, { ...signedIn, schema: { hide: true, ...(params && { params }) } }, async (request, reply) => {
      const actor = actorOf(request);
      if (!actor) return renderMembers(request, reply);
      try {
        const notice = await action(actor, request);
        // Changing one's own role can end one's right to this page.
        request.account = await sessions.context(request.account!.session);
        if (!actorOf(request)) return reply.redirect('/account/keys', 303);
        return renderMembers(request, reply, { notice });
      } catch (error) {
        const { status, message } = failure(error, reply);
        return renderMembers(request, reply, { status, error: message });
      }
    });
  }

  membersAction('/account/members/invite', async (actor, request) => {
    const email = field(request.body, 'email');
    const { mail } = await members.invite(actor, email, field(request.body, 'role'));
    const joins = 'They join once they sign in with that address and accept.';
    return mail === 'smtp'
      ? `Invitation sent to ${email}. ${joins}`
      : `Invitation saved for ${email}, but no mail server is configured (SMTP_URL): the mail went only to the server's log. Ask them to sign in here with that address. ${joins}`;
  });
  membersAction(
    '/account/members/:id/role',
    async (actor, request) => {
      await members.setRole(actor, (request.params as z.infer<typeof idParam>).id, field(request.body, 'role'));
      return 'Role changed.';
    },
    idParam,
  );
  membersAction(
    '/account/members/:id/remove',
    async (actor, request) => {
      await members.remove(actor, (request.params as z.infer<typeof idParam>).id);
      return 'Member removed.';
    },
    idParam,
  );
  membersAction(
    '/account/invitations/:id/cancel',
    async (actor, request) => {
      await members.cancelInvitation(actor, (request.params as z.infer<typeof idParam>).id);
      return 'Invitation cancelled.';
    },
    idParam,
  );

}
