import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiErrorSchema, authErrors, idempotencyHeaders, showorgHeader } from '../http/common.schema.ts';
import { operationRoute } from '../http/operation-route.ts';
import {
  changePostStatus,
  checkPostMissing,
  deletePost,
  deletePostGroup,
  EDIT_RULES,
  getPost,
  listPosts,
  measurePostText,
  PUBLISHING_CONFLICT,
  updatePost,
} from './posts.operations.ts';
import { createPostsBody, createPostsResponse, postIdParams, postSchema, releaseIdBody, replacePostBody } from './posts.schema.ts';

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
          "Scopes: `posts:draft`, plus `posts:publish` for `schedule`, `queue` and `now`, except for a role whose posts need approval (PUT /approval-settings): its scheduled posts enter `AWAITING_APPROVAL` instead of the queue, with `posts:draft` alone. Each item of the answer carries the composition's `group`. With `group`, the existing composition is updated in place (to change one post, PATCH /posts/:id). Send `Idempotency-Key` to make a retry safe: `now` cannot be undone. A plan's monthly post quota answers 402. A published composition cannot be edited (400 `invalid_transition`). A deleted channel takes no posts (409 `channel_deleted`). " +
          PUBLISHING_CONFLICT,
        headers: idempotencyHeaders,
        body: createPostsBody,
        response: { 200: createPostsResponse, ...errors, 402: apiErrorSchema, 409: apiErrorSchema },
      },
    },
    async (request) => posts().create(request.access!, request.body, request.headers['idempotency-key'] as string | undefined),
  );

  operationRoute(app, listPosts);

  operationRoute(app, measurePostText);

  operationRoute(app, getPost);

  operationRoute(app, updatePost);

  app.put(
    '/posts/:id',
    {
      config: { scope: 'posts:draft' },
      schema: {
        tags: ['Posts'],
        summary: 'Replace one post as a whole',
        description: `The post for its channel as one item of POST /posts gives it, with \`type\` and \`date\`: every field is replaced, and one left out takes its default (no settings, no tags, no short links). PATCH /posts/:id changes only what it is given. ${EDIT_RULES}`,
        headers: idempotencyHeaders,
        params: postIdParams,
        body: replacePostBody,
        response: { 200: postSchema, ...errors, 409: apiErrorSchema },
      },
    },
    async (request) =>
      posts().replace(request.access!, request.params.id, request.body, request.headers['idempotency-key'] as string | undefined),
  );

  operationRoute(app, checkPostMissing);

  operationRoute(app, changePostStatus);

  app.put(
    '/posts/:id/release-id',
    {
      config: { scope: 'posts:publish' },
      schema: {
        tags: ['Posts'],
        summary: "Record the platform's ID (and URL) for a post",
        description: `No state change. ${PUBLISHING_CONFLICT} So does a post one of whose comments is being sent.`,
        headers: showorgHeader,
        params: postIdParams,
        body: releaseIdBody,
        response: { 200: postSchema, ...errors, 409: apiErrorSchema },
      },
    },
    async (request) => posts().setReleaseId(request.access!, request.params.id, request.body.releaseId, request.body.releaseURL),
  );

  operationRoute(app, deletePost);

  operationRoute(app, deletePostGroup);
};
