import type { FastifyPluginAsync } from 'fastify';
import { isPersonClick } from './short-links.service.ts';

export const shortLinksRoutes: FastifyPluginAsync = async (app) => {
  app.get<{ Params: { code: string } }>(
    '/s/:code',
    { config: { auth: 'none', rateLimited: false }, schema: { hide: true } },
    async (request, reply) => {
      const code = request.params.code;
      const person = isPersonClick({
        method: request.method,
        userAgent: request.headers['user-agent'],
        purpose: [request.headers['purpose'], request.headers['sec-purpose']].filter(Boolean).join(' '),
      });
      const target = /^[0-9A-Za-z]{8}$/.test(code) ? await app.services.shortLinks.follow(code, person) : null;
      if (!target) return reply.status(404).type('text/plain; charset=utf-8').send('This short link does not exist.');
      return reply.header('cache-control', 'no-store').redirect(target, 302);
    },
  );
};
