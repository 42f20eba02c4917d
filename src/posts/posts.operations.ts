import { grouped } from '../lib/numbers.ts';
import { conflictErrors, notFoundErrors } from '../http/common.schema.ts';
import { compileStringify } from '../http/schema-compilers.ts';
import { joinInChunks } from '../http/json-in-chunks.ts';
import { HTML_CONTENT, listSummary, operation, plural, READ_ONLY, TIMES, writes } from '../operations/operation.ts';
import { POSTS_READ_BATCH } from './posts.service.ts';
import {
  changeStatusBody,
  deletedSchema,
  groupParams,
  listPostsQuery,
  MEASURE_MAX_CHANNELS,
  MEASURE_MAX_CONTENT,
  measureBody,
  measureSchema,
  missingSchema,
  postIdParams,
  postListSchema,
  postSchema,
  updatePostBody,
} from './posts.schema.ts';

let stringifyPost: ((post: unknown) => string) | undefined;

function postStringifier(): (post: unknown) => string {
  const schema = postSchema.partial();
  return compileStringify(schema) ?? ((post) => JSON.stringify(schema.parse(post)));
}

/**
 * A calendar page as JSON, its posts written a read batch at a time with a turn of the event loop
 * between batches: a page of 1,000 posts written in one piece held every other request for tens of
 * milliseconds. Each post goes through the Post schema's compiled serializer (every property
 * optional, for `fields`), compiled when it can be and by Zod otherwise, as the route's serializer
 * did: only what the schema names goes out.
 */
async function stringifyPostPage(page: { posts: unknown[]; nextCursor: string | null }): Promise<string> {
  stringifyPost ??= postStringifier();
  const posts = await joinInChunks(page.posts, stringifyPost, POSTS_READ_BATCH);
  return `{"posts":[${posts}],"nextCursor":${JSON.stringify(page.nextCursor)}}`;
}

/** What a change to a post answers while the engine is publishing it. */
export const PUBLISHING_CONFLICT =
  'While a post is being published (state `PUBLISHING`) it cannot be changed: this answers 409 with code `post_publishing`; read the post again once it is `PUBLISHED` or `ERROR`.';

export const listPosts = operation({
  name: 'list_posts',
  scope: 'posts:read',
  query: listPostsQuery,
  call: (services, access, query) => services.posts.list(access, query),
  rest: {
    method: 'GET',
    url: '/posts',
    tags: ['Posts'],
    summary: 'Read the calendar',
    description:
      "Posts whose publish date is within the window (inclusive), oldest first (then by id). The window is at most one year. An answer holds at most 1000 posts (or `limit`: a calendar that shows a page at a time asks for what it shows), and fewer when the posts are large (about 4 MB of content): when the window has more, `nextCursor` is set; send it back as `cursor` with the same window and filters for the next page, until `nextCursor` is null. Posts of deleted channels are included (their `integration` is the deleted channel's id, which GET /integrations no longer lists).",
    response: postListSchema,
    errors: notFoundErrors,
    serialize: stringifyPostPage,
  },
  mcp: {
    title: 'Read the calendar',
    // A tool's answer is checked against its output schema, of whole posts.
    restOnly: ['fields'],
    description: `Posts whose publish date falls in a window (at most one year), oldest first, with their state (DRAFT, QUEUE = scheduled, PUBLISHING, PUBLISHED, ERROR, AWAITING_APPROVAL = scheduled, waiting for an approver). When \`nextCursor\` is set, call again with it as \`cursor\` and the same window. ${TIMES}`,
    annotations: READ_ONLY,
    output: postListSchema,
    summary: (o) =>
      listSummary(o.posts, 'post', (p) => `${p.id} ${p.state} ${p.publishDate}`, o.nextCursor ? ' (more: pass nextCursor as cursor)' : ''),
  },
});

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
    description: "A post of a deleted channel stays readable: `integration` keeps the deleted channel's id and platform.",
    response: postSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Read one post',
    description:
      "One post with its content, state, comments, and the platform's id and address once published; `error` says why it failed.",
    annotations: READ_ONLY,
    output: postSchema,
    summary: (p) =>
      `Post ${p.id} on ${p.integration.providerIdentifier}: ${p.state}, publish date ${p.publishDate}${p.releaseURL ? `, live at ${p.releaseURL}` : ''}${p.error ? `; error: ${p.error}` : ''}.`,
  },
});

export const checkPostMissing = operation({
  name: 'check_post_missing',
  scope: 'posts:read',
  params: postIdParams,
  call: (services, access, { id }) => services.posts.missing(access, id),
  rest: {
    method: 'GET',
    url: '/posts/:id/missing',
    tags: ['Posts'],
    summary: 'What a publish would lack right now',
    description:
      "Required platform settings, media, title, text over the platform's limit, a channel that needs reconnecting: each entry names the field and the reason. Empty when ready. A post of a deleted channel answers 409 `channel_deleted`.",
    response: missingSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Check a post before publishing',
    description:
      "What a publish of this post would lack right now: required platform settings, media, a title, text over the platform's limit, a channel that needs reconnecting. Run it before scheduling; `ready` true means nothing is missing.",
    annotations: READ_ONLY,
    output: missingSchema,
    summary: (o) =>
      o.ready
        ? `Post ${o.postId} is ready to publish.`
        : `Post ${o.postId} is missing: ${o.missing.map((m) => `${m.field}: ${m.reason}`).join('; ')}`,
  },
});

export const measurePostText = operation({
  name: 'measure_post_text',
  scope: 'posts:read',
  body: measureBody,
  call: (services, access, input) => services.posts.measure(access, input),
  rest: {
    method: 'POST',
    url: '/posts/measure',
    tags: ['Posts'],
    summary: "Count a thread's text as each channel's platform counts it",
    description: `Nothing is stored. For each channel, each part of \`value\` is converted as a publish converts it (plain text, Markdown or HTML, per platform) and counted as the platform counts it: X weighs links as 23 and wide characters as 2; Mastodon counts links as 23 and a mention \`@user@domain\` by its \`@user\`; YouTube counts bytes. \`max\` is the channel's limit with these settings (X's \`longPosts\`, a Mastodon instance's own limit), and \`over\` says the readiness check (GET /posts/:id/missing) and the publish would refuse the text for its length. Scope \`posts:read\`. A channel of another workspace, or outside a channel-limited key, answers 404. At most ${MEASURE_MAX_CHANNELS} channels, 26 parts and ${grouped(MEASURE_MAX_CONTENT)} characters of content in all (400). Short links (\`shortLink\`) are not applied: the count is of the links as written.`,
    response: measureSchema,
    errors: notFoundErrors,
  },
  mcp: {
    title: 'Count text as each platform counts it',
    description: `Counts a thread's text (the post, then its comments, as HTML or plain text) for each channel as its platform counts it after Herald converts it (X: links 23; Mastodon: links 23, mentions by their local part), with the channel's limit and whether it is over. Nothing is stored. At most ${MEASURE_MAX_CHANNELS} channels. ${HTML_CONTENT}`,
    annotations: READ_ONLY,
    output: measureSchema,
    summary: (o) =>
      o.channels
        .map(
          (c) =>
            `${c.integration} (${c.identifier}): ${c.parts.map((p) => `${p.length}/${p.max}${p.over ? ' over' : ''}`).join(', ')} ${c.unit}`,
        )
        .join('; '),
  },
});

/** What an edit of one post in place does, for both REST routes (PATCH and PUT /posts/:id). */
export const EDIT_RULES = `The same rules as an edit through the group (POST /posts with \`group\`): the post must be a draft, scheduled, awaiting approval or in error (a published one answers 400 \`invalid_transition\`); scopes \`posts:draft\`, plus \`posts:publish\` when the post is or becomes scheduled (or is published with \`now\`), unless the caller's role needs approval: its scheduled post then awaits approval (\`AWAITING_APPROVAL\`), and its edit of an approved post sends it back; a key limited to other channels gets 404, as for another workspace's post. A scheduled post's new content is what the engine publishes: an edit lands before the engine takes the post, or is refused. If another edit landed between this one's read and its write, it answers 409 \`post_changed\`: read the post and send it again. Send \`Idempotency-Key\` to make a retry safe. ${PUBLISHING_CONFLICT}`;

export const updatePost = operation({
  name: 'update_post',
  scope: 'posts:draft',
  params: postIdParams,
  body: updatePostBody,
  idempotencyKey: true,
  call: (services, access, { id, idempotencyKey, ...input }) => services.posts.update(access, id, input, idempotencyKey),
  rest: {
    method: 'PATCH',
    url: '/posts/:id',
    tags: ['Posts'],
    summary: 'Edit one post in place',
    description: `Each field given replaces the post's; the rest stays: \`content\`, \`image\` and \`comments\` change parts of the thread (or \`value\` replaces it whole), \`settings\` are merged key by key (null removes one), \`tags\` and \`shortLink\` replace theirs, \`date\` moves it, \`type\` moves it between draft, scheduled and published now. Its other posts of the group are left alone. An empty change answers 400 \`nothing_to_change\`. The answer is the post as edited. ${EDIT_RULES}`,
    response: postSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Edit a post',
    description: [
      "Changes one post in place: give only what changes. `content` (the post's text), `image` (its media, by library path), `comments` (replacing all comments), or `value` (the whole thread); `date`; `settings` (merged; null removes a key); `tags`; `type` (`draft`, `schedule`, `now`).",
      'Left out, a draft stays a draft and a scheduled post stays scheduled. A published post, or one being published, cannot be edited.',
      `${HTML_CONTENT} ${TIMES} Pass \`idempotencyKey\` so that a retry does not edit twice.`,
    ].join(' '),
    annotations: writes({ destructive: true, openWorld: true }),
    output: postSchema,
    summary: (p) => `Post ${p.id} updated: ${p.state}, publish date ${p.publishDate}, ${plural(p.value.length - 1, 'comment')}.`,
  },
});

export const changePostStatus = operation({
  name: 'change_post_status',
  // The service asks for `posts:publish`, or `posts:draft` alone from a role whose posts wait for approval.
  scope: 'posts:draft',
  params: postIdParams,
  body: changeStatusBody,
  call: (services, access, { id, status }) => services.posts.changeStatus(access, id, status),
  rest: {
    method: 'PUT',
    url: '/posts/:id/status',
    tags: ['Posts'],
    summary: 'Move a post between draft and scheduled',
    description: `\`schedule\` moves a draft into the queue for its date (or, for a role that needs approval, into \`AWAITING_APPROVAL\`: scope \`posts:draft\` is then enough; otherwise \`posts:publish\`); \`draft\` takes a scheduled post (or one awaiting approval) out. Any other move is a 400. Asking for the current state changes nothing. A post of a deleted channel cannot be scheduled (409 \`channel_deleted\`) until the channel is restored by connecting its account again. ${PUBLISHING_CONFLICT}`,
    response: postSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Schedule or unschedule a post',
    description:
      '`schedule` puts a draft in the queue for its publish date; `draft` takes a scheduled post out of the queue. Asking for the current state changes nothing. Run check_post_missing first: a post missing something fails when its time comes.',
    annotations: writes({ idempotent: true }),
    output: postSchema,
    summary: (p) => `Post ${p.id} is now ${p.state} (publish date ${p.publishDate}).`,
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
    errors: conflictErrors,
  },
  mcp: {
    title: 'Delete a post',
    description:
      "Removes a post from the calendar and stops its scheduled publishing. A post already published stays on the platform; only Herald's record goes.",
    annotations: writes({ destructive: true, idempotent: true }),
    output: deletedSchema,
    summary: (o) => `Deleted ${plural(o.deleted, 'post')}: ${o.ids.join(', ')}.`,
  },
});

export const deletePostGroup = operation({
  name: 'delete_post_group',
  scope: 'posts:draft',
  params: groupParams,
  call: (services, access, { group }) => services.posts.deleteGroup(access, group),
  rest: {
    method: 'DELETE',
    url: '/posts/group/:group',
    tags: ['Posts'],
    summary: 'Remove every post of a group',
    description: `All or none: while one of them is being published, none is removed. ${PUBLISHING_CONFLICT}`,
    response: deletedSchema,
    errors: conflictErrors,
  },
  mcp: {
    title: 'Delete every post of a group',
    description: 'Removes all posts of one composition (`group`), all or none. Published posts stay on their platforms.',
    annotations: writes({ destructive: true, idempotent: true }),
    output: deletedSchema,
    summary: (o) => `Deleted ${plural(o.deleted, 'post')}: ${o.ids.join(', ')}.`,
  },
});
