import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SESSION_TTL_MS, type SessionContext, type SessionsService } from '../accounts/sessions.service.ts';
import { newToken, sameHash } from '../accounts/tokens.ts';
import { csrfFor } from './csrf.ts';
import { messagePage, pageHeaders } from './layout.ts';

export const SESSION_COOKIE = 'herald_session';
/** A signed-out browser's CSRF secret, for the forms shown before signing in. */
export const CSRF_COOKIE = 'herald_csrf';
export const CSRF_FIELD = '_csrf';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user on a page (never on the REST API), with their workspaces. */
    account: SessionContext | null;
    sessionToken: string | null;
  }
}

export type WebOptions = { sessions: SessionsService; secureCookies: boolean };

function cookieOptions(secure: boolean, maxAgeSeconds?: number) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure, ...(maxAgeSeconds !== undefined && { maxAge: maxAgeSeconds }) };
}

/** Starts a browser session for a user: the cookie is HttpOnly, SameSite=Lax, and Secure on https. */
export async function signInBrowser(reply: FastifyReply, options: WebOptions, userId: string): Promise<{ expiresAt: string }> {
  const { token, session } = await options.sessions.create(userId);
  reply.setCookie(SESSION_COOKIE, token, cookieOptions(options.secureCookies, SESSION_TTL_MS / 1000));
  return { expiresAt: session.expiresAt };
}

export function clearBrowserSession(reply: FastifyReply, options: WebOptions): void {
  reply.clearCookie(SESSION_COOKIE, cookieOptions(options.secureCookies));
}

/**
 * The token a form on this page must send back. Signed in, it is derived from the session's
 * (HttpOnly) token; signed out, from a random cookie set here. Another site can read neither.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, options: WebOptions): string {
  if (request.account && request.sessionToken) return csrfFor('session', request.sessionToken);
  let secret = request.cookies[CSRF_COOKIE];
  if (!secret || secret.length > 100) {
    secret = newToken();
    reply.setCookie(CSRF_COOKIE, secret, cookieOptions(options.secureCookies));
    request.cookies[CSRF_COOKIE] = secret;
  }
  return csrfFor('anonymous', secret);
}

function csrfValid(request: FastifyRequest): boolean {
  // Browsers that say so: a form posted from another site is refused outright.
  if (request.headers['sec-fetch-site'] === 'cross-site') return false;
  const body = request.body as Record<string, unknown> | undefined;
  const sent = body && typeof body[CSRF_FIELD] === 'string' ? (body[CSRF_FIELD] as string) : '';
  if (!/^[0-9a-f]{64}$/.test(sent)) return false;
  const expected: string[] = [];
  if (request.sessionToken) expected.push(csrfFor('session', request.sessionToken));
  const anonymous = request.cookies[CSRF_COOKIE];
  if (anonymous) expected.push(csrfFor('anonymous', anonymous));
  return expected.some((token) => sameHash(token, sent));
}

/**
 * Browser pages: reads the session cookie, parses HTML forms, and refuses every POST whose CSRF
 * token does not match. Register it in the scope of the page routes only; the REST API never
 * reads cookies, and its requests pay for no cookie parsing.
 */
export const webPagesPlugin = fp<WebOptions>(
  async (app, options) => {
    await app.register(cookie);
    await app.register(formbody, { bodyLimit: 64 * 1024 });
    app.decorateRequest('account', null);
    app.decorateRequest('sessionToken', null);

    app.addHook('onRequest', async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (!token) return;
      const session = await options.sessions.resolve(token);
      if (!session) {
        clearBrowserSession(reply, options);
        return;
      }
      request.sessionToken = token;
      request.account = await options.sessions.context(session);
    });

    app.addHook('preHandler', async (request, reply) => {
      if (request.method !== 'POST' || csrfValid(request)) return;
      return reply
        .status(403)
        .headers(pageHeaders())
        .send(
          messagePage(
            'This form has expired',
            'The form was not sent from this site, or the page was open too long. Go back, reload the page and try again.',
            { href: '/account', label: 'Back to your account' },
          ),
        );
    });
  },
  { name: 'herald-web-pages' },
);

/** Only a path on this site (never `//host` or a scheme) is followed after signing in. */
export function safeNext(next: unknown, fallback = '/account/keys'): string {
  return typeof next === 'string' && /^\/(?![/\\])[\x21-\x7e]*$/.test(next) && next.length <= 500 ? next : fallback;
}

/** A preHandler for pages that need a signed-in user: others go to sign in, and come back after. */
export async function requireUser(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.account) return;
  const target = request.method === 'GET' ? request.url : '/account/keys';
  return reply.redirect(`/account/sign-in?${new URLSearchParams({ next: target }).toString()}`, 303);
}
