import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiErrorSchema, authErrors, showorgHeader } from '../http/common.schema.ts';
import { operationRoute } from '../http/operation-route.ts';
import { deletePost, getPost, PUBLISHING_CONFLICT } from './posts.operations.ts';
import {
  changeStatusBody,
  createPostsBody,
  createPostsResponse,
  deletedSchema,
  groupParams,
  idempotencyHeaders,
  listPostsQuery,
  missingSchema,
  postIdParams,
  postListSchema,
  postSchema,
  releaseIdBody,
} from './posts.schema.ts';

const errors = { ...authErrors, 404: apiErrorSchema };

export const postsRoutes: FastifyPluginAsyncZod = async (app) => {
  const posts = () => app.services.posts;

  app.post(
    '/posts',
    {
      config: { scope: 'posts:draft' },
      schema: {
        tags: ['Posts'],
        summary: 'Create, schedule or publish posts (one per channel)',
        description:
          'Scopes: `posts:draft`, plus `posts:publish` for `schedule` and `now`. With `group`, the existing composition is updated in place. Send `Idempotency-Key` to make a retry safe: `now` cannot be undone. A plan\'s monthly post quota answers 402. A published composition cannot be edited (400 `invalid_transition`). A deleted channel takes no posts (409 `channel_deleted`). ' +
          PUBLISHING_CONFLICT,
        headers: idempotencyHeaders,
        body: createPostsBody,
        response: { 200: createPostsResponse, ...errors, 402: apiErrorSchema, 409: apiErrorSchema },
      },
    },
    async (request) => posts().create(request.access!, request.body, request.headers['idempotency-key'] as string | undefined),
  );

  app.get(
    '/posts',
    {
      config: { scope: 'posts:read' },
      schema: {
        tags: ['Posts'],
        summary: 'Read the calendar',
        description:
          'Posts whose publish date is within the window (inclusive), oldest first (then by id). The window is at most one year. An answer holds at most 1000 posts (or `limit`), and fewer when the posts are large (about 4 MB of content): when the window has more, `nextCursor` is set; send it back as `cursor` with the same window and filters for the next page, until `nextCursor` is null. Posts of deleted channels are included (their `integration` is the deleted channel\'s id, which GET /integrations no longer lists).',
        headers: showorgHeader,
        querystring: listPostsQuery,
        response: { 200: postListSchema, ...errors },
      },
    },
    async (request) => posts().list(request.access!, request.query),
  );

  operationRoute(app, getPost);

  app.get(
    '/posts/:id/missing',
    {
      config: { scope: 'posts:read' },
      schema: {
        tags: ['Posts'],
        summary: 'What a publish would lack right now',
        description: 'Required platform settings, media, title, text over the platform\'s limit, a channel that needs reconnecting: each entry names the field and the reason. Empty when ready. A post of a deleted channel answers 409 `channel_deleted`.',
        headers: showorgHeader,
        params: postIdParams,
        response: { 200: missingSchema, ...errors, 409: apiErrorSchema },
      },
    },
    async (request) => posts().missing(request.access!, request.params.id),
  );

  app.put(
    '/posts/:id/status',
    {
      config: { scope: 'posts:publish' },
      schema: {
        tags: ['Posts'],
        summary: 'Move a post between draft and scheduled',
        description: `\`schedule\` moves a draft into the queue for its date; \`draft\` takes a scheduled post out. Any other move is a 400. Asking for the current state changes nothing. A post of a deleted channel cannot be scheduled (409 \`channel_deleted\`) until the channel is restored by connecting its account again. ${PUBLISHING_CONFLICT}`,
        headers: showorgHeader,
        params: postIdParams,
        body: changeStatusBody,
        response: { 200: postSchema, ...errors, 409: apiErrorSchema },
      },
    },
    async (request) => posts().changeStatus(request.access!, request.params.id, request.body.status),
  );

  app.put(
    '/posts/:id/release-id',
    {
      config: { scope: 'posts:publish' },
      schema: {
        tags: ['Posts'],
        summary: 'Record the platform\'s ID (and URL) for a post',
        description: 'No state change.',
        headers: showorgHeader,
        params: postIdParams,
        body: releaseIdBody,
        response: { 200: postSchema, ...errors },
      },
    },
    async (request) => posts().setReleaseId(request.access!, request.params.id, request.body.releaseId, request.body.releaseURL),
  );

  operationRoute(app, deletePost);

  app.delete(
    '/posts/group/:group',
    {
      config: { scope: 'posts:draft' },
      schema: {
        tags: ['Posts'],
        summary: 'Remove every post of a group',
        description: `All or none: while one of them is being published, none is removed. ${PUBLISHING_CONFLICT}`,
        headers: showorgHeader,
        params: groupParams,
        response: { 200: deletedSchema, ...errors, 409: apiErrorSchema },
      },
    },
    async (request) => posts().deleteGroup(request.access!, request.params.group),
  );
};
