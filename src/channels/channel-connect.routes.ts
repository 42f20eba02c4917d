import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { isProviderIdentifier } from '../providers/registry.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'",
};

/**
 * Where a platform sends the person back after a browser sign-in. The single-use state is the
 * only credential; the answer is a page for the person, who then closes the window.
 */
export const channelConnectRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/integrations/callback/:provider',
    {
      config: { auth: 'none' },
      schema: {
        hide: true,
        params: z.object({ provider: z.string().min(1).max(50) }),
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
      if (!isProviderIdentifier(provider) || !state) return reply.status(400).send(page('Not connected', 'This sign-in link is incomplete; start connecting again.'));
      try {
        const { channel, reconnected } = await app.services.connect.finish(provider, { state, code, error });
        return reply.send(page(reconnected ? 'Channel reconnected' : 'Channel connected', `"${channel.name}" is ${reconnected ? 'reconnected' : 'connected'} to Herald. You can close this window.`));
      } catch (failure) {
        if (!(failure instanceof AppError) || failure.statusCode >= 500 && failure.statusCode !== 502) throw failure;
        request.log.info({ err: failure, provider }, 'a channel sign-in did not finish');
        return reply.status(failure.statusCode).send(page('Not connected', failure.message));
      }
    },
  );
};
