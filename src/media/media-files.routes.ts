import type { FastifyPluginAsync } from 'fastify';
import { NotFoundError } from '../errors.ts';
import { contentTypeOfKey } from './media-content.ts';
import { isValidKey } from './media-store.ts';

export type RangeRequest = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * Reads a `Range` header against a file of `size` bytes. One range is served; several, or a
 * header that does not parse, get the whole file (RFC 9110 lets a server ignore Range).
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header) return { kind: 'whole' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return { kind: 'whole' };
  const [, from, to] = match as unknown as [string, string, string];
  if (from === '' && to === '') return { kind: 'whole' };
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (to !== '' && Number(to) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end };
}

/**
 * The library's files at their public `path`. Keys are random and their bytes never change,
 * so answers are cacheable for a year; ranges let video players seek.
 */
export const mediaFilesRoutes: FastifyPluginAsync = async (app) => {
  const media = app.services.media;

  // HEAD is declared rather than derived: Fastify's derived HEAD would read the whole file to discard it.
  app.route<{ Params: { '*': string } }>({
    method: ['GET', 'HEAD'],
    url: '/media/*',
    config: { auth: 'none', rateLimited: false },
    schema: { hide: true },
    handler: async (request, reply) => {
      const key = request.params['*'];
      const type = isValidKey(key) ? contentTypeOfKey(key) : undefined;
      const stat = type ? await media.stat(key) : null;
      if (!type || !stat) throw new NotFoundError('No such file.', { code: 'file_not_found' });

      const etag = `"${key.slice(key.lastIndexOf('/') + 1, key.lastIndexOf('.'))}"`;
      const lastModified = stat.modifiedAt.toUTCString();
      const validators = { etag, 'last-modified': lastModified, 'cache-control': 'public, max-age=31536000, immutable' };
      const ifNoneMatch = request.headers['if-none-match'];
      if (ifNoneMatch && (ifNoneMatch.trim() === '*' || ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))) {
        return reply.status(304).headers(validators).send();
      }
      const ifRange = request.headers['if-range'];
      const rangeAllowed = !ifRange || ifRange === etag || ifRange === lastModified;
      const range = rangeAllowed ? parseRange(request.headers.range, stat.size) : ({ kind: 'whole' } as const);
      if (range.kind === 'unsatisfiable') {
        reply.header('content-range', `bytes */${stat.size}`);
        return reply
          .status(416)
          .send({ msg: `The range ${request.headers.range} is outside the file (${stat.size} bytes).`, code: 'range_not_satisfiable' });
      }

      reply.headers({
        ...validators,
        'content-type': type,
        'accept-ranges': 'bytes',
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'cross-origin',
      });
      const part = range.kind === 'part' ? { start: range.start, end: range.end } : undefined;
      const length = part ? part.end - part.start + 1 : stat.size;
      reply.header('content-length', length);
      if (part) reply.status(206).header('content-range', `bytes ${part.start}-${part.end}/${stat.size}`);
      if (request.method === 'HEAD' || length === 0) return reply.send();
      return reply.send(await media.open(key, part));
    },
  });
};
