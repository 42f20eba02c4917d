import type { z } from 'zod';
import { apiErrorSchema, authErrors } from '../http/common.schema.ts';
import { operation, plural, READ_ONLY, writes } from '../operations/operation.ts';
import type { Media } from './media.service.ts';
import { listMediaQuerySchema, mediaPageSchema, uploadFromUrlBodySchema, uploadResultSchema, type mediaSchema } from './media.schema.ts';

export function presentMedia(media: Media): z.infer<typeof mediaSchema> {
  return {
    id: media.id,
    name: media.name,
    path: media.path,
    type: media.type,
    mimeType: media.mimeType,
    size: media.size,
    width: media.width,
    height: media.height,
    durationMs: media.durationMs,
    createdAt: media.createdAt,
    uploadLinkId: media.uploadLinkId,
  };
}

export const uploadFromUrl = operation({
  name: 'upload_from_url',
  scope: 'media:write',
  body: uploadFromUrlBodySchema,
  call: async (services, access, { url }) => {
    const { media } = await services.media.uploadFromUrl(access, url);
    return { id: media.id, path: media.path };
  },
  rest: {
    method: 'POST',
    url: '/upload-from-url',
    tags: ['Media'],
    summary: 'Add a file to the media library from a URL',
    description:
      'The server fetches the URL (http or https only) with the same checks and deduplication as /upload. Addresses of loopback, private, link-local (cloud metadata), shared, multicast and reserved networks are refused with a 400 naming the reason, also after a redirect (at most 3, each checked again). A source that cannot be found, refuses, fails or is too slow answers 400 or 502 with a sentence saying which.',
    response: uploadResultSchema,
    errors: { ...authErrors, 413: apiErrorSchema, 502: apiErrorSchema },
  },
  mcp: {
    title: 'Add a file from a URL',
    description:
      'Downloads an image or video from a public http(s) URL into the media library and returns its `path` to attach to posts. The same content twice gives the same file.',
    annotations: writes({ idempotent: true, openWorld: true }),
    output: uploadResultSchema,
    summary: (o) => `In the library as ${o.id}: ${o.path}`,
  },
});

export const listMedia = operation({
  name: 'list_media',
  scope: 'media:write',
  query: listMediaQuerySchema,
  call: async (services, access, query) => {
    const page = await services.media.list(access, query);
    return { ...page, results: page.results.map(presentMedia) };
  },
  rest: {
    method: 'GET',
    url: '/media',
    tags: ['Media'],
    summary: 'List the media library',
    description:
      "The workspace's files, newest first, a page at a time (`page` from zero). A listing reaches the newest 10,000 files: `(page + 1) × pageSize` is at most 10,000.",
    response: mediaPageSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'List the media library',
    description:
      "Files in the workspace's media library, newest first, a page at a time. A file's `path` is what create_post takes in `value[].image[].path`. Needs mcp:write, as the library needs media:write on the REST API.",
    annotations: READ_ONLY,
    output: mediaPageSchema,
    summary: (o) =>
      `Page ${o.page} of the library (${plural(o.total, 'file')} in all): ${o.results.map((m) => `${m.name} ${m.path}`).join('; ') || 'empty'}.`,
  },
});
