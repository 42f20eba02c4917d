import { authErrors } from '../http/common.schema.ts';
import { operation, plural, READ_ONLY, writes } from '../operations/operation.ts';
import { uploadLinkContentsSchema, uploadLinkParamsSchema, uploadLinkSchema } from './upload-links.schema.ts';

export const createUploadLink = operation({
  name: 'create_upload_link',
  scope: 'media:write',
  call: (services, access) => services.uploadLinks.create(access),
  rest: {
    method: 'POST',
    url: '/upload-link',
    tags: ['Media'],
    summary: 'Create a browser upload link',
    description:
      "A page where a person without an account can drop files into this workspace's library, for two hours. Its secret URL can only add files to this workspace: it cannot read the rest of the library or post. It stops working early if the credential that made it is revoked (this API key, or the app's access for an OAuth token) or its user can no longer upload here; one made in the web app (the browser session) works its two hours while its member can upload here, even after they sign out.",
    response: uploadLinkSchema,
    status: 201,
    errors: authErrors,
  },
  mcp: {
    title: 'Create a browser upload link',
    description:
      "A page, valid two hours, where a person can drop files into this workspace's library from a browser or phone. Give them the `url`, then read what arrived with get_upload_link.",
    annotations: writes({}),
    output: uploadLinkSchema,
    summary: (o) => `Upload page: ${o.url} (link ${o.id}, until ${o.expiresAt} UTC).`,
  },
});

export const getUploadLink = operation({
  name: 'get_upload_link',
  scope: 'media:write',
  params: uploadLinkParamsSchema,
  call: (services, access, { id }) => services.uploadLinks.contents(access, id),
  rest: {
    method: 'GET',
    url: '/upload-link/:id',
    tags: ['Media'],
    summary: 'Read what arrived through an upload link',
    description:
      '`empty` until the first file arrives: that is not an error, ask the person and query again. Files are listed oldest first. A link of another workspace answers like an empty one.',
    response: uploadLinkContentsSchema,
    errors: authErrors,
  },
  mcp: {
    title: 'Read an upload link',
    description:
      'The files that arrived through an upload link, oldest first. `empty` is not an error: the person has not uploaded yet. Needs mcp:write, as on the REST API (media:write).',
    annotations: READ_ONLY,
    output: uploadLinkContentsSchema,
    summary: (o) =>
      o.status === 'empty'
        ? `Nothing has arrived through link ${o.id} yet.`
        : `${plural(o.count, 'file')}: ${o.files.map((f) => `${f.name} ${f.path}`).join('; ')}.`,
  },
});
