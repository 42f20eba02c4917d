import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as z from 'zod';
import { AppError } from '../errors.ts';
import { confirmationPage, confirmed } from '../web/confirm.ts';
import { formList, formText, readForm } from '../web/forms.ts';
import { html } from '../web/html.ts';
import { layout, messagePage, pageHeaders } from '../web/layout.ts';
import { pageChrome } from '../web/navigation.ts';
import {
  clearBrowserSession,
  csrfToken,
  requireUser,
  safeNext,
  signInBrowser,
  webPagesPlugin,
  type WebOptions,
} from '../web/session.plugin.ts';
import { webhooksPage, type ShownSecret } from '../webhooks/webhook-pages.html.ts';
import { approvalsPage } from '../approvals/approval-pages.html.ts';
import { APPROVAL_ROLES, type ApprovalRole } from '../approvals/approvals.table.ts';
import { ROLE_SCOPES } from '../auth/scopes.ts';
import type { WorkspaceAccess } from '../auth/access.service.ts';
import type { Clock } from '../lib/clock.ts';
import { keysPage, linkPage, membersPage, signInPage, when, type CreatedSecret } from './account-pages.html.ts';
import { scopesFor } from './developer-keys.service.ts';
import { grantableRoles, mayManageMembers, type Actor } from './members.service.ts';
import type { Session } from './sessions.service.ts';
import { SIGNUP_START_QUOTA, SIGNUP_VERIFY_QUOTA } from './signup.routes.ts';
import { emailSchema, normaliseEmail } from '../users/users.schema.ts';
import { createWebhookBody } from '../webhooks/webhooks.schema.ts';

/** The account pages' forms (and the sign-in page's query), each field as `formText` reads it. */
const signInQuery = z.object({ email: formText(), next: formText(), code: formText(), sent: formText() });
const signInForm = z.object({ email: formText(), next: formText(), code: formText() });
const workspaceForm = z.object({ workspace: formText(), back: formText() });
const keyForm = z.object({ kind: formText(), name: formText(), scopes: formList(), channels: formList() });
const inviteForm = z.object({ email: formText(), role: formText() });
const roleForm = z.object({ role: formText() });
const webhookForm = z.object({ url: formText(2000), description: formText(), eventTypes: formList() });
const commentForm = z.object({ comment: formText(2000) });
const approvalRolesForm = z.object({ roles: formList() });

const idParam = z.object({ id: z.string().min(1).max(100) });
const tokenParam = z.object({ token: z.string().regex(/^[0-9A-Za-z]{1,100}$/) });

/**
 * The account pages: sign up / sign in by e-mail code, developer settings (keys), workspace
 * members, the workspace switcher and sign out. Server-rendered; every form works without
 * JavaScript and carries a CSRF token. The OAuth consent pages register beside these, in the
 * same scope, to share the session, the layout and the CSRF check.
 */
export async function accountPages(app: FastifyInstance, options: { web: WebOptions; clock: Clock }): Promise<void> {
  const { web } = options;
  await app.register(webPagesPlugin, web);
  const { signIn, sessions, developerKeys, members, channels, webhooks, approvals } = app.services;
  const page = { config: { auth: 'none' as const, rateLimited: false }, schema: { hide: true } };
  const send = (reply: FastifyReply, body: string, status = 200) => reply.status(status).headers(pageHeaders()).send(body);

  type Current = 'keys' | 'members' | 'webhooks' | 'approvals';
  const chrome = (request: FastifyRequest, reply: FastifyReply, current: Current) => pageChrome(request, reply, web, `/account/${current}`);

  type Ask = { title: string; consequence: string; button: string };
  /** A destructive action's confirmation page (see confirmationPage), posting back to the action's URL. */
  const askFirst = (request: FastifyRequest, reply: FastifyReply, current: Current, ask: Ask, fields?: Record<string, string>) =>
    send(
      reply,
      confirmationPage({
        chrome: chrome(request, reply, current),
        csrf: csrfToken(request, reply, web),
        action: request.url,
        back: `/account/${current}`,
        fields,
        ...ask,
      }),
    );

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
    const query = readForm(signInQuery, request.query);
    const email = emailSchema.safeParse(query.email);
    const next = query.next || undefined;
    // Signed in already, with no other address to sign in as (an invitation's link to one's own address).
    if (request.account && (!email.success || normaliseEmail(email.data) === request.account.session.email))
      return reply.redirect(safeNext(next), 303);
    const code = query.code.replace(/\D/g, '').slice(0, 12) || undefined;
    // The code step only after a code was asked for (or with the mailed one); a link with just the address asks for one first.
    const step = email.success && (code !== undefined || query.sent === '1') ? 'code' : 'email';
    return send(
      reply,
      signInPage({
        csrf: csrfToken(request, reply, web),
        step,
        email: email.success ? email.data : undefined,
        code,
        next: next && safeNext(next),
        policy: signIn.policy,
      }),
    );
  });

  app.post('/account/sign-in', { ...page, config: { auth: 'none', quota: SIGNUP_START_QUOTA } }, async (request, reply) => {
    const form = readForm(signInForm, request.body);
    const next = form.next;
    const email = emailSchema.safeParse(form.email.trim());
    const render = (status: number, error: string) =>
      send(
        reply,
        signInPage({
          csrf: csrfToken(request, reply, web),
          step: 'email',
          email: form.email,
          next: next && safeNext(next),
          error,
          policy: signIn.policy,
        }),
        status,
      );
    if (!email.success) return render(400, 'That is not an e-mail address.');
    try {
      await signIn.start(email.data, {
        afterAnswer: (deliver) =>
          void reply.then(
            () => signIn.later(deliver),
            () => signIn.later(deliver),
          ),
      });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return render(status, message);
    }
    const query = new URLSearchParams({ email: email.data, sent: '1', ...(next && { next: safeNext(next) }) });
    return reply.redirect(`/account/sign-in?${query.toString()}`, 303);
  });

  app.post('/account/sign-in/verify', { ...page, config: { auth: 'none', quota: SIGNUP_VERIFY_QUOTA } }, async (request, reply) => {
    const { next, email, code } = readForm(signInForm, request.body);
    try {
      if (!emailSchema.safeParse(email).success) throw new AppError(400, 'invalid_email', 'That is not an e-mail address.');
      const { user } = await signIn.verify(email, code.replace(/\s/g, ''));
      await signInBrowser(reply, web, user.id);
      return reply.redirect(safeNext(next), 303);
    } catch (error) {
      const { status, message } = failure(error, reply);
      return send(
        reply,
        signInPage({
          csrf: csrfToken(request, reply, web),
          step: 'code',
          email,
          next: next && safeNext(next),
          error: message,
          policy: signIn.policy,
        }),
        status,
      );
    }
  });

  app.get('/account/link/:token', { ...page, schema: { hide: true, params: tokenParam } }, async (request, reply) => {
    const { token } = tokenParam.parse(request.params);
    return send(reply, linkPage({ csrf: csrfToken(request, reply, web), token }));
  });

  app.post(
    '/account/link/:token',
    { ...page, config: { auth: 'none', quota: SIGNUP_VERIFY_QUOTA }, schema: { hide: true, params: tokenParam } },
    async (request, reply) => {
      const { token } = tokenParam.parse(request.params);
      try {
        const user = await signIn.useLink(token);
        await signInBrowser(reply, web, user.id);
        return reply.redirect('/account/keys', 303);
      } catch (error) {
        const { status, message } = failure(error, reply);
        return send(
          reply,
          messagePage('Link not valid', message, { href: '/account/sign-in', label: 'Sign in with your e-mail address' }),
          status,
        );
      }
    },
  );

  app.post('/account/sign-out', page, async (request, reply) => {
    if (request.account) await sessions.end(request.account.session.id);
    clearBrowserSession(reply, web);
    return reply.redirect('/account/sign-in', 303);
  });

  // --- Signed-in pages ---
  const signedIn = { ...page, preHandler: requireUser };

  app.post('/account/sign-out-everywhere', signedIn, async (request, reply) => {
    if (!confirmed(request.body))
      return askFirst(request, reply, 'keys', {
        title: 'Sign out everywhere?',
        consequence: 'Every browser signed in to your account, this one included, is signed out.',
        button: 'Sign out everywhere',
      });
    await sessions.endAll(request.account!.session.userId);
    clearBrowserSession(reply, web);
    return reply.redirect('/account/sign-in', 303);
  });

  app.post('/account/workspace', signedIn, async (request, reply) => {
    const { workspace, back } = readForm(workspaceForm, request.body);
    await sessions.selectWorkspace(request.account!.session, workspace);
    return reply.redirect(back === '/account/members' || back === '/account/webhooks' ? back : '/account/keys', 303);
  });

  async function renderKeys(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { created?: CreatedSecret; error?: string; notice?: string; status?: number } = {},
  ) {
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
    const form = readForm(keyForm, request.body);
    const kind = form.kind === 'mcp' ? 'mcp' : 'rest';
    const allOfKind = new Set<string>(scopesFor(kind, 'owner'));
    try {
      const created = await developerKeys.create(owner, {
        kind,
        name: form.name,
        scopes: form.scopes.filter((s) => allOfKind.has(s)),
        channelIds: form.channels,
      });
      return renderKeys(request, reply, { created: { ...created, rotated: false } });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return renderKeys(request, reply, { status, error: message });
    }
  });

  /** The signed-in user's key `id` in the current workspace, or a 404. */
  async function keyNamed(owner: ReturnType<typeof keyOwner>, id: string) {
    const key = owner && (await developerKeys.list(owner)).find((k) => k.id === id);
    if (!key) throw new AppError(404, 'not_found', 'No such key.');
    return key;
  }

  app.post('/account/keys/:id/rotate', { ...signedIn, schema: { hide: true, params: idParam } }, async (request, reply) => {
    const owner = keyOwner(request);
    try {
      if (!owner) throw new AppError(404, 'not_found', 'No such key.');
      if (!confirmed(request.body)) {
        const key = await keyNamed(owner, idParam.parse(request.params).id);
        return askFirst(request, reply, 'keys', {
          title: `Rotate the secret of “${key.name}”?`,
          consequence:
            'A new secret is shown once, and the current one stops working at once: every program using it must get the new one.',
          button: 'Rotate the secret',
        });
      }
      const rotated = await developerKeys.rotate(owner, idParam.parse(request.params).id);
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
      if (!confirmed(request.body)) {
        const key = await keyNamed(owner, idParam.parse(request.params).id);
        return askFirst(request, reply, 'keys', {
          title: `Revoke the key “${key.name}”?`,
          consequence: 'Every program using it stops working at once. This cannot be undone.',
          button: 'Revoke the key',
        });
      }
      const key = await developerKeys.revoke(owner, idParam.parse(request.params).id);
      return renderKeys(request, reply, { notice: `Key “${key.name}” is revoked; it no longer works.` });
    } catch (error) {
      const { status, message } = failure(error, reply);
      return renderKeys(request, reply, { status, error: message });
    }
  });

  // --- Invitations to the signed-in user ---
  /** Answers an invitation sent to the signed-in address, then shows the keys page with what happened. */
  function answerAction(
    answer: 'accept' | 'decline',
    action: (session: Session, invitationId: string, request: FastifyRequest) => Promise<string>,
    ask?: (session: Session, invitationId: string) => Promise<Ask>,
  ) {
    app.post(`/account/invitations/:id/${answer}`, { ...signedIn, schema: { hide: true, params: idParam } }, async (request, reply) => {
      try {
        if (ask && !confirmed(request.body))
          return askFirst(request, reply, 'keys', await ask(request.account!.session, idParam.parse(request.params).id));
        const notice = await action(request.account!.session, idParam.parse(request.params).id, request);
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
  answerAction(
    'decline',
    async (session, id) => {
      await members.decline(session, id);
      return 'Invitation declined.';
    },
    async (session, id) => {
      const invitation = (await members.received(session)).find((i) => i.id === id);
      if (!invitation) throw new AppError(404, 'not_found', 'No such invitation: it was cancelled, answered or has expired.');
      return {
        title: `Decline the invitation to ${invitation.workspaceName}?`,
        consequence: 'To join it later, you will need a new invitation.',
        button: 'Decline',
      };
    },
  );

  // --- Members ---
  /** The current workspace of a signed-in owner or admin (who manage members and webhooks); null for other roles. */
  function managed(request: FastifyRequest) {
    const { current } = request.account!;
    return current && mayManageMembers(current.role) ? current : null;
  }

  function actorOf(request: FastifyRequest): Actor | null {
    const current = managed(request);
    if (!current) return null;
    const { session } = request.account!;
    return { userId: session.userId, email: session.email, workspaceId: current.workspace.id, role: current.role };
  }

  async function renderMembers(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; notice?: string; status?: number } = {},
  ) {
    const actor = actorOf(request);
    if (!actor) {
      return send(
        reply,
        layout(
          'Members',
          html`<h1>Members</h1><p>Only owners and admins of a workspace manage its members.</p>`,
          chrome(request, reply, 'members'),
        ),
        403,
      );
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
  function membersAction(
    url: string,
    action: (actor: Actor, request: FastifyRequest) => Promise<string>,
    params?: z.ZodType,
    ask?: (actor: Actor, id: string) => Promise<Ask>,
  ) {
    app.post(url, { ...signedIn, schema: { hide: true, ...(params && { params }) } }, async (request, reply) => {
      const actor = actorOf(request);
      if (!actor) return renderMembers(request, reply);
      try {
        if (ask && !confirmed(request.body)) return askFirst(request, reply, 'members', await ask(actor, idParam.parse(request.params).id));
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
    const { email, role } = readForm(inviteForm, request.body);
    const { mail } = await members.invite(actor, email, role);
    const joins = 'They join once they sign in with that address and accept.';
    return mail === 'smtp'
      ? `Invitation sent to ${email}. ${joins}`
      : `Invitation saved for ${email}, but no mail server is configured (SMTP_URL): the mail went only to the server's log. Ask them to sign in here with that address. ${joins}`;
  });
  membersAction(
    '/account/members/:id/role',
    async (actor, request) => {
      await members.setRole(actor, idParam.parse(request.params).id, readForm(roleForm, request.body).role);
      return 'Role changed.';
    },
    idParam,
  );
  membersAction(
    '/account/members/:id/remove',
    async (actor, request) => {
      await members.remove(actor, idParam.parse(request.params).id);
      return 'Member removed.';
    },
    idParam,
    async (actor, id) => {
      const member = (await members.list(actor)).members.find((m) => m.userId === id);
      if (!member) throw new AppError(404, 'not_found', 'That user is not a member of the workspace.');
      return {
        title: `Remove ${member.email} from this workspace?`,
        consequence: 'They lose access to the workspace at once, and their keys and apps stop acting in it.',
        button: 'Remove',
      };
    },
  );
  membersAction(
    '/account/invitations/:id/cancel',
    async (actor, request) => {
      await members.cancelInvitation(actor, idParam.parse(request.params).id);
      return 'Invitation cancelled.';
    },
    idParam,
    async (actor, id) => {
      const invitation = (await members.list(actor)).invitations.find((i) => i.id === id);
      if (!invitation) throw new AppError(404, 'not_found', 'No such invitation.');
      return {
        title: `Cancel the invitation of ${invitation.email}?`,
        consequence: 'Their invitation link stops working; you can invite them again later.',
        button: 'Cancel the invitation',
      };
    },
  );

  // --- Webhooks (owners and admins) ---
  /** The signed-in owner's or admin's access to the current workspace, as the webhooks service checks it; null for other roles. */
  function webhookAccess(request: FastifyRequest): WorkspaceAccess | null {
    return managed(request) && sessionAccess(request);
  }

  /** The signed-in member's access to the current workspace, with every scope the role allows; null without a workspace. */
  function sessionAccess(request: FastifyRequest): WorkspaceAccess | null {
    const account = request.account!;
    if (!account.current) return null;
    const { workspace, role } = account.current;
    const userId = account.session.userId;
    const scopes = [...ROLE_SCOPES[role]];
    return {
      principal: { keyId: `session:${account.session.id}`, userId, kind: 'rest', scopes, channelIds: null, workspaceId: workspace.id },
      workspace,
      role,
      scopes: ROLE_SCOPES[role],
      channelIds: null,
    };
  }

  async function renderWebhooks(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { shown?: ShownSecret; error?: string; notice?: string; status?: number } = {},
  ) {
    const access = webhookAccess(request);
    if (!access)
      return send(
        reply,
        layout(
          'Webhooks',
          html`<h1>Webhooks</h1><p>Only owners and admins of a workspace manage its webhook endpoints.</p>`,
          chrome(request, reply, 'webhooks'),
        ),
        403,
      );
    const { endpoints } = await webhooks.list(access);
    const withDeliveries = await Promise.all(
      endpoints.map(async (endpoint) => ({ endpoint, deliveries: (await webhooks.listDeliveries(access, endpoint.id, 5)).deliveries })),
    );
    return send(
      reply,
      webhooksPage({
        chrome: chrome(request, reply, 'webhooks'),
        csrf: csrfToken(request, reply, web),
        workspaceName: access.workspace.name,
        endpoints: withDeliveries,
        ...extra,
      }),
      extra.status,
    );
  }

  app.get('/account/webhooks', signedIn, async (request, reply) => renderWebhooks(request, reply));

  /** Runs a webhooks action (after its confirmation, when `ask` is given), then shows the page again with what happened. */
  function webhookAction(
    url: string,
    action: (access: WorkspaceAccess, request: FastifyRequest) => Promise<{ notice?: string; shown?: ShownSecret }>,
    ask?: (access: WorkspaceAccess, id: string) => Promise<Ask>,
  ) {
    const params = url.includes(':id') ? idParam : undefined;
    app.post(url, { ...signedIn, schema: { hide: true, ...(params && { params }) } }, async (request, reply) => {
      const access = webhookAccess(request);
      if (!access) return renderWebhooks(request, reply);
      try {
        if (ask && !confirmed(request.body))
          return askFirst(request, reply, 'webhooks', await ask(access, idParam.parse(request.params).id));
        return await renderWebhooks(request, reply, await action(access, request));
      } catch (error) {
        const { status, message } = failure(error, reply);
        return renderWebhooks(request, reply, { status, error: message });
      }
    });
  }

  const endpointId = (request: FastifyRequest) => idParam.parse(request.params).id;

  webhookAction('/account/webhooks', async (access, request) => {
    const form = readForm(webhookForm, request.body);
    const parsed = createWebhookBody.safeParse({ url: form.url.trim(), description: form.description.trim(), eventTypes: form.eventTypes });
    if (!parsed.success)
      throw new AppError(400, 'invalid_request', parsed.error.issues.map((i) => `${i.path.join('.') || 'form'}: ${i.message}`).join('; '));
    return { shown: { endpoint: await webhooks.create(access, parsed.data), rotated: false } };
  });
  for (const enabled of [true, false])
    webhookAction(`/account/webhooks/:id/${enabled ? 'enable' : 'disable'}`, async (access, request) => {
      const endpoint = await webhooks.update(access, endpointId(request), { enabled });
      return { notice: `${endpoint.url} is ${enabled ? 'enabled' : 'disabled'}.` };
    });
  webhookAction('/account/webhooks/:id/test', async (access, request) => {
    const { eventId } = await webhooks.sendTest(access, endpointId(request));
    return { notice: `Test event ${eventId} queued; its delivery appears below in a moment.` };
  });
  webhookAction(
    '/account/webhooks/:id/rotate',
    async (access, request) => ({ shown: { endpoint: await webhooks.rotateSecret(access, endpointId(request)), rotated: true } }),
    async (access, id) => ({
      title: `Rotate the signing secret of ${(await webhooks.get(access, id)).url}?`,
      consequence:
        'A new secret is shown once. The current one keeps signing deliveries beside it for 24 hours: switch the receiver to the new one within that time.',
      button: 'Rotate the secret',
    }),
  );
  webhookAction(
    '/account/webhooks/:id/delete',
    async (access, request) => {
      const endpoint = await webhooks.get(access, endpointId(request));
      await webhooks.delete(access, endpoint.id);
      return { notice: `${endpoint.url} is deleted; it receives nothing more.` };
    },
    async (access, id) => ({
      title: `Delete the webhook endpoint ${(await webhooks.get(access, id)).url}?`,
      consequence: 'It receives no more events, and its pending deliveries and its delivery log go with it. This cannot be undone.',
      button: 'Delete the endpoint',
    }),
  );

  // --- Approvals (every member reads; approvers decide; owners and admins set who needs approval) ---
  async function renderApprovals(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { error?: string; notice?: string; status?: number } = {},
  ) {
    const access = sessionAccess(request);
    if (!access)
      return send(
        reply,
        layout('Approvals', html`<h1>Approvals</h1><p>Join a workspace first.</p>`, chrome(request, reply, 'approvals')),
        403,
      );
    const settings = await approvals.settings(access);
    const { posts } = await approvals.awaiting(access);
    return send(
      reply,
      approvalsPage({
        chrome: chrome(request, reply, 'approvals'),
        csrf: csrfToken(request, reply, web),
        workspaceName: access.workspace.name,
        settings,
        posts,
        approver: settings.approvers.includes(access.role),
        manager: mayManageMembers(access.role),
        now: options.clock.now(),
        ...extra,
      }),
      extra.status,
    );
  }

  app.get('/account/approvals', signedIn, async (request, reply) => renderApprovals(request, reply));

  /** Runs an approvals action, then shows the page again with what happened (a refusal shown on it, with its status). */
  function approvalAction(
    url: string,
    action: (access: WorkspaceAccess, request: FastifyRequest, reply: FastifyReply) => Promise<{ notice: string } | 'answered'>,
  ) {
    const params = url.includes(':id') ? idParam : undefined;
    app.post(url, { ...signedIn, schema: { hide: true, ...(params && { params }) } }, async (request, reply) => {
      const access = sessionAccess(request);
      if (!access) return renderApprovals(request, reply);
      try {
        const done = await action(access, request, reply);
        return done === 'answered' ? reply : await renderApprovals(request, reply, done);
      } catch (error) {
        const { status, message } = failure(error, reply);
        return renderApprovals(request, reply, { status, error: message });
      }
    });
  }

  approvalAction('/account/approvals/settings', async (access, request) => {
    const roles = readForm(approvalRolesForm, request.body).roles.filter((role): role is ApprovalRole =>
      (APPROVAL_ROLES as readonly string[]).includes(role),
    );
    const saved = await approvals.setSettings(access, { roles });
    return { notice: saved.roles.length ? `Approval is now needed for: ${saved.roles.join(', ')}.` : 'Nobody needs approval now.' };
  });
  approvalAction('/account/approvals/:id/approve', async (access, request, reply) => {
    const id = idParam.parse(request.params).id;
    const { comment } = readForm(commentForm, request.body);
    const post = await app.services.posts.get(access, id);
    // Approving a post whose date has passed publishes it at once: asked first.
    if (post.state === 'AWAITING_APPROVAL' && Date.parse(post.publishDate) < options.clock.now().getTime() && !confirmed(request.body)) {
      await askFirst(
        request,
        reply,
        'approvals',
        {
          title: 'Approve and publish now?',
          consequence: `Its date (${when(post.publishDate)}) has passed: once approved it is published at once, and that cannot be undone.`,
          button: 'Approve and publish now',
        },
        comment ? { comment } : undefined,
      );
      return 'answered';
    }
    const approved = await approvals.approve(access, id, { comment: comment.trim() || undefined });
    return { notice: `Approved: the post is scheduled for ${when(approved.publishDate)}.` };
  });
  approvalAction('/account/approvals/:id/reject', async (access, request) => {
    const comment = readForm(commentForm, request.body).comment.trim();
    if (!comment) throw new AppError(400, 'invalid_request', 'Say why the post is rejected: its author sees the comment.');
    await approvals.reject(access, idParam.parse(request.params).id, { comment });
    return { notice: 'Rejected: the post is a draft again, and its author is told why.' };
  });
}
