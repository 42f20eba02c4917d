import { apiErrorSchema, authErrors } from '../http/common.schema.ts';
import { operation, plural } from '../operations/operation.ts';
import { deletedSchema, postIdParams, postSchema } from './posts.schema.ts';

const errors = { ...authErrors, 404: apiErrorSchema };
/** What a change to a post answers while the engine is publishing it. */
export const PUBLISHING_CONFLICT =
  'While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.';

export const getPost = operation({
  name: 'get_post',
  scope: 'posts:read',
  params: postIdParams,
  call: (services, access, { id }) => services.posts.get(access, id),
  rest: {
    method: 'GET',
    url: '/posts/:id',
    tags: ['Posts'],
    summary: 'Read one post',
    description: 'A post of a deleted channel stays readable: `integration` keeps the deleted channel\'s id and platform.',
    response: postSchema,
    errors,
  },
  mcp: {
    title: 'Read one post',
    description: 'One post with its content, state, comments, and the platform\'s id and address once published; `error` says why it failed.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: postSchema,
    summary: (p) => `Post ${p.id} on ${p.integration.providerIdentifier}: ${p.state}, publish date ${p.publishDate}${p.releaseURL ? `, live at ${p.releaseURL}` : ''}${p.error ? `; error: ${p.error}` : ''}.`,
  },
});

export const deletePost = operation({
  name: 'delete_post',
  scope: 'posts:draft',
  params: postIdParams,
  call: (services, access, { id }) => services.posts.delete(access, id),
  rest: {
    method: 'DELETE',
    url: '/posts/:id',
    tags: ['Posts'],
    summary: 'Remove a post',
    description: `Its scheduled publishing stops. A post already published is removed from the calendar only, not from the platform. ${PUBLISHING_CONFLICT}`,
    response: deletedSchema,
    errors: { ...errors, 409: apiErrorSchema },
  },
  mcp: {
    title: 'Delete a post',
    description: 'Removes a post from the calendar and stops its scheduled publishing. A post already published stays on the platform; only Herald\'s record goes.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    output: deletedSchema,
    summary: (o) => `Deleted ${plural(o.deleted, 'post')}: ${o.ids.join(', ')}.`,
  },
});
