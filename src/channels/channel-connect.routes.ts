import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod';
import { AppError } from '../errors.ts';
import { isProviderIdentifier } from '../providers/registry.ts';
import { html } from '../web/html.ts';
import { pageDocument, pageHeaders } from '../web/layout.ts';

function page(title: string, message: string): string {
  return pageDocument({ title, main: html`<h1>${title}</h1><p>${message}</p>`, bare: true });
}

/** The page asking which account to connect: one button per option, each posting the single-use state and its id. */
function choicePage(provider: string, choice: { state: string; prompt: string; options: Array<{ id: string; label: string }> }): string {
  const buttons = choice.options.map((o) => html`<li><button type="submit" name="choice" value="${o.id}">${o.label}</button></li>`);
  return pageDocument({
    title: 'Choose what to connect',
    main: html`<h1>Choose what to connect</h1><p>${choice.prompt}</p><form method="post" action="/integrations/callback/${encodeURIComponent(provider)}/choose"><input type="hidden" name="state" value="${choice.state}"><ul class="choices">${buttons}</ul></form>`,
  });
}

const providerParams = z.object({ provider: z.string().min(1).max(50) });

/** The last step's pages load nothing; the choice page loads only the stylesheet, and posts a form to this site. */
const PAGE_HEADERS = pageHeaders({ bare: true, formAction: "'none'" });
const CHOICE_PAGE_HEADERS = pageHeaders({ script: null });

/**
 * Where a platform sends the person back after a browser sign-in. The single-use state is the
 * only credential; the answer is a page for the person, who then closes the window.
 */
export const channelConnectRoutes: FastifyPluginAsyncZod = async (app) => {
  // The choice page posts an HTML form (this scope only).
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  const done = (reply: FastifyReply, result: { channel: { name: string }; reconnected: boolean }) =>
    reply.send(
      page(
        result.reconnected ? 'Channel reconnected' : 'Channel connected',
        `"${result.channel.name}" is ${result.reconnected ? 'reconnected' : 'connected'} to Herald. You can close this window.`,
      ),
    );
  const incomplete = (reply: FastifyReply) =>
    reply.status(400).send(page('Not connected', 'This sign-in link is incomplete; start connecting again.'));
  const failed = (request: FastifyRequest, reply: FastifyReply, provider: string, failure: unknown) => {
    if (!(failure instanceof AppError) || (failure.statusCode >= 500 && failure.statusCode !== 502)) throw failure;
    request.log.info({ err: failure, provider }, 'a channel sign-in did not finish');
    return reply.status(failure.statusCode).send(page('Not connected', failure.message));
  };

  app.get(
    '/integrations/callback/:provider',
    {
      config: { auth: 'none' },
      schema: {
        hide: true,
        params: providerParams,
        querystring: z.looseObject({
          state: z.string().min(1).max(200).optional(),
          code: z.string().min(1).max(2000).optional(),
          error: z.string().max(200).optional(),
        }),
      },
    },
    async (request, reply) => {
      reply.headers(PAGE_HEADERS);
      const { provider } = request.params;
      const { state, code, error } = request.query;
      if (!isProviderIdentifier(provider) || !state) return incomplete(reply);
      try {
        const result = await app.services.connect.finish(provider, { state, code, error });
        if ('kind' in result) return reply.headers(CHOICE_PAGE_HEADERS).send(choicePage(provider, result));
        return done(reply, result);
      } catch (failure) {
        return failed(request, reply, provider, failure);
      }
    },
  );

  app.post(
    '/integrations/callback/:provider/choose',
    {
      config: { auth: 'none' },
      schema: {
        hide: true,
        params: providerParams,
        body: z.object({ state: z.string().min(1).max(200), choice: z.string().min(1).max(200) }),
      },
    },
    async (request, reply) => {
      reply.headers(PAGE_HEADERS);
      const { provider } = request.params;
      if (!isProviderIdentifier(provider)) return incomplete(reply);
      try {
        return done(reply, await app.services.connect.choose(provider, request.body));
      } catch (failure) {
        return failed(request, reply, provider, failure);
      }
    },
  );
};
