import cookie from '@fastify/cookie';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiErrorSchema } from '../http/common.schema.ts';
import { signInBrowser, type WebOptions } from '../web/session.plugin.ts';
import { CODE_TTL_MS } from './sign-in.service.ts';
import { signupStartBodySchema, signupStartResponseSchema, signupVerifyBodySchema, signupVerifyResponseSchema } from './signup.schema.ts';

/** Per client address and rate-limit window (RATE_LIMIT_ROUTES can change them). */
export const SIGNUP_START_QUOTA = 10;
export const SIGNUP_VERIFY_QUOTA = 30;

export const START_MESSAGE =
  'If this address may sign in or sign up, a one-time code is on its way to it. Send it to /public/v1/signup/verify, or type it into the sign-in page.';

/** Sign-up and sign-in by e-mail code, without a key. */
export const signupRoutes: FastifyPluginAsyncZod<{ baseUrl: string; web: WebOptions }> = async (app, { baseUrl, web }) => {
  const { signIn } = app.services;
  // The session cookie set on a verified code; the rest of the REST API never touches cookies.
  await app.register(cookie);

  app.post(
    '/signup/start',
    {
      config: { auth: 'none', quota: SIGNUP_START_QUOTA },
      schema: {
        tags: ['Accounts'],
        summary: 'Send a one-time sign-in code by e-mail',
        description:
          'Works without a key. The answer is the same for every well-formed address (new, existing, invited, or refused by the sign-up policy); a code is sent only where the policy lets the address sign in or sign up. A new code replaces the previous one. Rate limited per address and per client address.',
        security: [],
        body: signupStartBodySchema,
        response: { 202: signupStartResponseSchema, 400: apiErrorSchema, 429: apiErrorSchema },
      },
    },
    async (request, reply) => {
      await signIn.start(request.body.email, {
        afterAnswer: (deliver) =>
          void reply.then(
            () => signIn.later(deliver),
            () => signIn.later(deliver),
          ),
      });
      return reply.status(202).send({
        status: 'accepted' as const,
        message: START_MESSAGE,
        codeExpiresInSeconds: CODE_TTL_MS / 1000,
        verify: `${baseUrl}/public/v1/signup/verify`,
      });
    },
  );

  app.post(
    '/signup/verify',
    {
      config: { auth: 'none', quota: SIGNUP_VERIFY_QUOTA },
      schema: {
        tags: ['Accounts'],
        summary: 'Sign in with the code from the mail',
        description:
          'Checks the code and signs the person in: the account is created on the first sign-in when the sign-up policy allows it, and a session cookie (HttpOnly, SameSite=Lax) is set for the pages (developer settings, members). A code expires after 15 minutes and dies after 5 wrong tries; a wrong, expired or used code is a 400 `invalid_code`. The REST API never takes the cookie: create an API key in the developer settings.',
        security: [],
        body: signupVerifyBodySchema,
        response: { 200: signupVerifyResponseSchema, 400: apiErrorSchema, 403: apiErrorSchema, 429: apiErrorSchema },
      },
    },
    async (request, reply) => {
      const { user, created } = await signIn.verify(request.body.email, request.body.code);
      const { expiresAt } = await signInBrowser(reply, web, user.id);
      reply.header('cache-control', 'no-store');
      return {
        signedIn: true as const,
        user: { id: user.id, email: user.email },
        created,
        sessionExpiresAt: expiresAt,
        next: `${baseUrl}/account/keys`,
      };
    },
  );
};
