import { grouped } from '../lib/numbers.ts';
import * as z from 'zod';
import { APPROVAL_DECISIONS } from '../approvals/approvals.table.ts';
import { count, wholeNumber } from '../http/common.schema.ts';
import { ERROR_KINDS, POST_STATES } from './posts.table.ts';

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Why a value is not an instant, and how to write one. */
function instantError(input: unknown): string {
  const text = typeof input === 'string' ? input : '';
  if (LOCAL_TIME.test(text)) {
    return `"${text}" has no time zone, so it does not name one instant; add "Z" for UTC (${text}Z) or an offset (${text}+01:00).`;
  }
  if (DATE_ONLY.test(text)) return `"${text}" is a date without a time; send a date-time with a zone, e.g. ${text}T09:30:00Z.`;
  return 'expected an ISO 8601 date-time with "Z" or an offset, e.g. 2026-12-01T09:30:00Z.';
}

/** True when the instant, in UTC, has a four-digit year (0000–9999): what the calendar and the engine can order. */
export function isStorableInstant(value: string): boolean {
  const date = new Date(value);
  // Not a date at all is the format check's to report.
  if (Number.isNaN(date.getTime())) return true;
  const iso = date.toISOString();
  return !iso.startsWith('+') && !iso.startsWith('-');
}

/**
 * An instant: ISO 8601 with `Z` or an offset, within the years 0000–9999 once in UTC. A local
 * time without a zone is ambiguous and refused, with a message that says how to fix it.
 */
export const instantSchema = z.iso
  .datetime({ offset: true, abort: true, error: (issue) => instantError(issue.input) })
  .refine(isStorableInstant, { error: (issue) => `"${String(issue.input)}" falls outside the years 0000–9999 once converted to UTC.` })
  .describe(
    'ISO 8601 date-time in UTC (e.g. 2026-12-01T09:30:00Z); an explicit offset is accepted and converted to UTC. A time without a zone is refused.',
  );

export const imageRefSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Optional and ignored: `path` is what counts. Clients that send an id of their own (even a random one) are accepted; the post records the library file's id.",
      ),
    path: z.url().describe("The `path` of a file in this workspace's media library, as returned by POST /upload."),
  })
  .meta({ id: 'ImageRef' });

export const valueItemSchema = z
  .object({
    content: z
      .string()
      .max(100_000)
      .describe(
        'HTML (a paragraph lives in <p> tags). Stored sanitised to a safe subset; each platform receives its own text form. Content with no HTML tag at all is plain text: a blank line starts a new paragraph and a single newline is a line break (`"line one\\nline two"` becomes `<p>line one<br>line two</p>`), and characters such as `<` and `&` are kept as written.',
      ),
    image: z.array(imageRefSchema).max(50).default([]).describe('Media to attach, by their library `path`.'),
    delay: z
      .number()
      .int()
      .min(0)
      .max(10_080)
      .optional()
      .describe('Comments only: minutes after the previous element that this one goes out (default 0).'),
  })
  .meta({ id: 'PostValue' });

export const postItemSchema = z
  .object({
    integration: z.object({ id: z.string().min(1).describe('The channel ID.') }),
    value: z
      .array(valueItemSchema)
      .min(1)
      .max(26)
      .describe('The first element is the post; the rest are published as comments under it, in order.'),
    settings: z
      .looseObject({ __type: z.string().min(1).describe("The platform ID; must equal the channel's `identifier`.") })
      .optional()
      .describe('Platform-specific settings; GET /integration-settings/:id lists them.'),
  })
  .meta({ id: 'PostItem' });

const postType = z.enum(['draft', 'schedule', 'now']);
const tagsSchema = z.array(z.string().trim().min(1).max(64)).max(50);
const settingsSchema = z.looseObject({
  __type: z.string().min(1).optional().describe("The platform ID; when given, it must equal the channel's `identifier`."),
});

export const createPostsBody = z
  .object({
    type: z
      .enum([...postType.options, 'queue'])
      .describe(
        "`schedule`, `now` and `queue` need the `posts:publish` scope. `now` publishes at once and cannot be undone. `queue` schedules each post at its channel's next free slot (see `queueSlot` and GET /integrations/{id}/schedule); `date` is then ignored and may be left out.",
      ),
    queueSlot: z
      .enum(['channel', 'common'])
      .optional()
      .describe(
        'With `type: "queue"` and several channels: `channel` (the default) gives each channel its own next free slot in its own schedule; `common` gives every post one slot, the first slot of the first channel\'s schedule that is free on all of them. A slot is free on a channel when none of its posts (scheduled, being published, published or failed; drafts do not count) is at that instant.',
      ),
    date: instantSchema
      .optional()
      .describe(
        "Publish time, ISO 8601 UTC (e.g. `2026-12-01T09:30:00Z`; an offset is converted to UTC; a time without `Z` or an offset is refused). Required for every type but `queue`: for `draft` it places the draft in the calendar; for `now` it is still required but the server's clock is used instead. A `schedule` date may be at most 5 minutes in the past (it then goes out at once) and at most 10 years ahead.",
      ),
    shortLink: z.boolean().default(false).describe('Replace links in the published text with short links served by this service.'),
    tags: tagsSchema.default([]).describe('Internal labels; not sent to the platform.'),
    group: z
      .string()
      .min(1)
      .optional()
      .describe(
        'An existing group ID: update that composition in place (posts for channels no longer listed are removed) instead of creating a new one.',
      ),
    posts: z.array(postItemSchema).min(1).max(100).describe('One item per channel; a channel may appear once.'),
  })
  .superRefine((body, ctx) => {
    // Every type but `queue` takes its date from the request.
    if (body.type !== 'queue' && body.date === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['date'],
        message: `required for type "${body.type}" (only "queue" takes its date from the schedule)`,
      });
    }
  })
  .meta({
    id: 'CreatePosts',
    examples: [
      {
        type: 'schedule',
        date: '2026-12-01T09:30:00Z',
        posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>Hello from Herald</p>' }] }],
      },
      {
        type: 'draft',
        date: '2026-12-01T09:30:00+01:00',
        tags: ['launch'],
        posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>A draft: date is still required</p>' }] }],
      },
      {
        type: 'queue',
        queueSlot: 'channel',
        posts: [{ integration: { id: 'CHANNEL_ID' }, value: [{ content: "<p>At the channel's next free slot</p>" }] }],
      },
      {
        type: 'now',
        date: '2026-12-01T09:30:00Z',
        posts: [
          { integration: { id: 'CHANNEL_ID' }, value: [{ content: '<p>Out at once; date is required but the server clock is used</p>' }] },
        ],
      },
    ],
  });

export const createPostsResponse = z.array(
  z
    .object({
      postId: z.string(),
      integration: z.string().describe('The channel ID.'),
      group: z
        .string()
        .describe('The group ID of the composition (the same for every item): send it as `group` to edit the composition as a whole.'),
    })
    .meta({ id: 'CreatedPost' }),
);

/** PATCH /posts/:id: every field optional; what is left out stays as it is. */
export const updatePostBody = z
  .object({
    type: postType
      .optional()
      .describe(
        'What the post becomes: `draft`, `schedule` (published at its date) or `now` (published at once; cannot be undone). Left out, a draft stays a draft and a scheduled post stays scheduled; a post in ERROR becomes a draft (send `schedule` to try again). `schedule` and `now` need `posts:publish`, and so does any edit of a scheduled post (taking it out of the queue or keeping it there).',
      ),
    date: instantSchema
      .optional()
      .describe(
        'The new publish time, ISO 8601 UTC (an offset is converted; a time without a zone is refused). Left out, the post keeps its date; a `schedule` date may be at most 5 minutes in the past and at most 10 years ahead, so a scheduled post whose time has passed needs a new date.',
      ),
    content: valueItemSchema.shape.content
      .optional()
      .describe("The post's text (`value[0].content`), HTML or plain text as in POST /posts; its media and comments stay."),
    image: z
      .array(imageRefSchema)
      .max(50)
      .optional()
      .describe("The post's media (`value[0].image`), by their library `path`, replacing what it had; `[]` removes them."),
    comments: z
      .array(valueItemSchema)
      .max(25)
      .optional()
      .describe('The comments under the post (`value[1…]`), in order, replacing all of them; `[]` removes them.'),
    value: z
      .array(valueItemSchema)
      .min(1)
      .max(26)
      .optional()
      .describe(
        'The whole thread at once, as in POST /posts: the post, then its comments. Not together with `content`, `image` or `comments`.',
      ),
    settings: settingsSchema
      .optional()
      .describe(
        "Platform-specific settings, merged into the post's: each key given replaces its value, a key set to null is removed, the others stay.",
      ),
    tags: tagsSchema.optional().describe('Internal labels, replacing the current ones; `[]` removes them.'),
    shortLink: z.boolean().optional().describe('Replace links in the published text with short links served by this service.'),
  })
  .meta({
    id: 'UpdatePost',
    examples: [
      { content: '<p>Corrected text</p>' },
      { date: '2026-12-02T09:30:00Z', tags: ['launch', 'moved'] },
      { type: 'draft' },
      { comments: [{ content: '<p>More in the thread</p>', delay: 5 }], settings: { title: 'Launch day' } },
    ],
  });

/** PUT /posts/:id: the post for its channel as a whole, as one item of POST /posts gives it. */
export const replacePostBody = z
  .object({
    type: postType.describe('`schedule` and `now` need the `posts:publish` scope, and so does replacing a scheduled post.'),
    date: instantSchema.describe('Publish time, ISO 8601 UTC, with the same rules as in POST /posts.'),
    value: z
      .array(valueItemSchema)
      .min(1)
      .max(26)
      .describe('The first element is the post; the rest are published as comments under it, in order.'),
    settings: settingsSchema.optional().describe('Platform-specific settings, replacing the current ones (left out: none).'),
    tags: tagsSchema.default([]).describe('Internal labels, replacing the current ones.'),
    shortLink: z.boolean().default(false).describe('Replace links in the published text with short links served by this service.'),
  })
  .meta({
    id: 'ReplacePost',
    examples: [{ type: 'schedule', date: '2026-12-01T09:30:00Z', value: [{ content: '<p>The whole post, again</p>' }] }],
  });

export const postStateSchema = z
  .enum(POST_STATES)
  .describe(
    'DRAFT, QUEUE (scheduled), PUBLISHING, PUBLISHED, ERROR, or AWAITING_APPROVAL (scheduled by a role whose posts need approval in this workspace: nothing is published until an approver approves it; added in v1, clients should treat an unknown state as not yet published).',
  );

export const approvalStepSchema = z
  .object({
    decision: z
      .enum(APPROVAL_DECISIONS)
      .describe('`requested` (scheduled by a role that needs approval, or sent back by its edit), `approved` or `rejected`.'),
    by: z
      .object({ id: z.string(), email: z.string().nullable(), name: z.string().nullable() })
      .nullable()
      .describe('Who took the step: the author for `requested`, the approver otherwise.'),
    at: z.string().describe('When, ISO 8601 UTC.'),
    comment: z.string().nullable().describe("The approver's comment: a rejection's reason, an approval's note (or null)."),
  })
  .meta({ id: 'ApprovalStep' });

export const postSchema = z
  .object({
    id: z.string(),
    group: z.string().describe('Shared by the posts of one multi-channel composition.'),
    state: postStateSchema,
    series: z
      .object({
        id: z.string().describe('The series (GET /series/{id}).'),
        occurrence: z.string().describe("The rule's instant this post stands for, ISO 8601 UTC."),
        edited: z.boolean().describe('True once this occurrence was edited on its own: an edit of the series leaves it as it is.'),
      })
      .nullable()
      .optional()
      .describe('The recurring series this post is an occurrence of; null for a post of its own.'),
    publishDate: z.string().describe('ISO 8601 UTC.'),
    integration: z.object({ id: z.string(), providerIdentifier: z.string() }),
    content: z.string().describe("The post's sanitised HTML (value[0].content)."),
    value: z.array(
      z.object({
        content: z.string(),
        image: z.array(imageRefSchema),
        delay: wholeNumber(0, 10_080),
        state: z
          .enum(['PENDING', 'SENDING', 'PUBLISHED', 'ERROR'])
          .describe('Where this element is: PENDING, SENDING (being published), PUBLISHED or ERROR.'),
        releaseId: z.string().nullable(),
        releaseURL: z.string().nullable(),
        publishedAt: z.string().nullable(),
        error: z.string().nullable(),
      }),
    ),
    settings: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()),
    shortLink: z.boolean(),
    releaseId: z
      .string()
      .nullable()
      .describe("The post's ID on the platform, once published (or recorded with PUT /posts/:id/release-id)."),
    releaseURL: z.string().nullable(),
    error: z.string().nullable().describe("Why the post (or one of its comments) failed, in the platform's words where it gave any."),
    errorKind: z
      .enum(ERROR_KINDS)
      .nullable()
      .describe(
        'Why it is in ERROR, or why one of its comments failed: `rejected` (the platform refused it), `auth` (the channel needs reconnecting), `unconfirmed` (the outcome is unknown: check the platform; a later confirmation clears it and sends a `publish_confirmed` notification), `missing` (a required piece was missing), `gave_up` (retries ran out) or `channel_disabled`.',
      ),
    publishedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    approvals: z
      .array(approvalStepSchema)
      .optional()
      .describe(
        "Every step of the post's approval, oldest first (empty when it never needed one). Left out when a `fields` list does not name it.",
      ),
  })
  .meta({ id: 'Post' });

/** The properties of a post, in the schema's order: what `fields` may name. */
export const POST_FIELDS = Object.keys(postSchema.shape) as Array<keyof typeof postSchema.shape>;
export type PostField = (typeof POST_FIELDS)[number];

export const listPostsQuery = z.object({
  startDate: instantSchema.describe('Start of the window (inclusive), ISO 8601 UTC.'),
  endDate: instantSchema.describe('End of the window (inclusive), ISO 8601 UTC; at most one year after the start.'),
  customer: z.string().min(1).optional().describe('Only posts of channels in this client group.'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Posts per page, 1 to 1000. Without it an answer holds the whole window, up to 1000 posts.'),
  cursor: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('The `nextCursor` of the previous answer, with the same window and filters: the page after it.'),
  fields: z
    .string()
    .max(500)
    .superRefine((value, ctx) => {
      const names = value.split(',');
      const unknown = names.filter((name) => !(POST_FIELDS as readonly string[]).includes(name));
      if (unknown.length)
        ctx.addIssue({
          code: 'custom',
          message: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; the fields of a post are ${POST_FIELDS.join(', ')}.`,
        });
      else if (new Set(names).size < names.length) ctx.addIssue({ code: 'custom', message: 'a field is named twice.' });
    })
    .optional()
    .describe(
      `Only these properties of each post, comma-separated (e.g. \`id,publishDate,state,integration\`), in the order of the Post schema; without it every property. Any of: ${POST_FIELDS.map((name) => `\`${name}\``).join(', ')}. A calendar that shows neither \`content\` nor \`value\` gets a smaller answer, read with less work.`,
    ),
});

/** Which properties of each post a calendar answer holds: all of them unless `fields` names some. */
export function parsePostFields(fields: string | undefined): PostField[] | null {
  return fields === undefined ? null : (fields.split(',') as PostField[]);
}

export const postListSchema = z
  .object({
    posts: z.array(postSchema).describe('With `fields`, each post holds only the properties named there.'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Null when the window has no more posts; otherwise send it back as `cursor` (same window and filters) for the next page.'),
  })
  .meta({ id: 'PostList' });

export const postIdParams = z.object({ id: z.string().min(1).max(100) });
export const groupParams = z.object({ group: z.string().min(1).max(100) });

export const changeStatusBody = z.object({
  status: z
    .enum(['draft', 'schedule'])
    .describe('`schedule` moves a draft into the queue for its date; `draft` takes a scheduled post out of it.'),
});

export const releaseIdBody = z.object({
  releaseId: z.string().trim().min(1).max(500).describe("The post's ID on the platform."),
  releaseURL: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe("The post's address on the platform."),
});

export const missingSchema = z
  .object({
    postId: z.string(),
    ready: z.boolean().describe('True when nothing is missing.'),
    missing: z.array(
      z.object({
        field: z.string().describe('The request field at fault, e.g. `value[0].content` or `settings.title`.'),
        reason: z.string(),
      }),
    ),
  })
  .meta({ id: 'MissingCheck' });

export const deletedSchema = z
  .object({ deleted: count().describe('How many posts were removed.'), ids: z.array(z.string()) })
  .meta({ id: 'Deleted' });

/** The most channels one POST /posts/measure takes. */
export const MEASURE_MAX_CHANNELS = 20;
/** The most content (characters, all parts together) one POST /posts/measure takes. */
export const MEASURE_MAX_CONTENT = 20_000;

export const measureBody = z
  .object({
    integrations: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(MEASURE_MAX_CHANNELS)
      .refine((ids) => new Set(ids).size === ids.length, { error: 'a channel may appear once' })
      .describe(`The channels to measure for (IDs from GET /integrations), at most ${MEASURE_MAX_CHANNELS}.`),
    value: z
      .array(z.object({ content: valueItemSchema.shape.content }))
      .min(1)
      .max(26)
      .superRefine((parts, ctx) => {
        const total = parts.reduce((sum, part) => sum + part.content.length, 0);
        if (total > MEASURE_MAX_CONTENT)
          ctx.addIssue({
            code: 'custom',
            message: `holds ${total} characters of content; at most ${MEASURE_MAX_CONTENT} are measured at once`,
          });
      })
      .describe(
        `The thread as POST /posts takes it: the post, then its comments (media play no part in the count). At most ${grouped(MEASURE_MAX_CONTENT)} characters of content in all.`,
      ),
    settings: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe(
        "Post settings by channel ID, as each POST /posts item would carry them (the channel's preferred settings fill in the rest): some change the limit, such as X's `longPosts`.",
      ),
    withText: z
      .boolean()
      .default(false)
      .describe('Also answer each part as the platform receives it (`text`): plain text, Markdown or HTML, per platform.'),
  })
  .meta({
    id: 'MeasureText',
    examples: [
      {
        integrations: ['X_CHANNEL_ID', 'MASTODON_CHANNEL_ID'],
        value: [
          { content: '<p>Read it at <a href="https://example.com/a/very/long/address">https://example.com/a/very/long/address</a></p>' },
        ],
      },
    ],
  });

export const measureSchema = z
  .object({
    channels: z.array(
      z.object({
        integration: z.string().describe('The channel ID.'),
        identifier: z.string().describe('Its platform ID.'),
        unit: z
          .enum(['graphemes', 'characters', 'bytes'])
          .describe('What `length` and `max` count (as GET /integration-settings/:id says).'),
        parts: z.array(
          z.object({
            length: count().describe(
              'The length as the platform counts it (X: links 23 and wide characters 2; Mastodon: links 23 and a mention by its local part).',
            ),
            max: count().describe("The channel's limit for this part, with these settings."),
            over: z.boolean().describe('True when `length` is over `max`: the readiness check and the publish refuse it.'),
            text: z.string().optional().describe('With `withText`: the part as the platform receives it.'),
          }),
        ),
      }),
    ),
  })
  .meta({
    id: 'TextMeasure',
    examples: [
      {
        channels: [
          { integration: 'X_CHANNEL_ID', identifier: 'x', unit: 'characters', parts: [{ length: 34, max: 280, over: false }] },
          { integration: 'MASTODON_CHANNEL_ID', identifier: 'mastodon', unit: 'graphemes', parts: [{ length: 34, max: 500, over: false }] },
        ],
      },
    ],
  });
