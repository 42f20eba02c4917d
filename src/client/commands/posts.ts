import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { components } from '../api-types.ts';
import { formatOf, readStdin, readText, toHtml, type Format } from '../content.ts';
import { ApiRefusal, NetworkFailure, UsageError } from '../errors.ts';
import { excerpt, fields, notice, show, table } from '../output.ts';
import { act, collect, examples, integer, seg, type Context } from '../program.ts';
import { formatWhen, localTime, parseWhen, timeZone } from '../time.ts';
import { checkFiles, progressBar, uploadFile } from '../upload.ts';
import { channelNames, resolveChannels } from './channels.ts';
import { stdio } from '../stdio.ts';
import { CREATE_WORDING, EDIT_WORDING, LIST_WORDING, RELEASE_WORDING, STATUS_WORDING } from '../wording.ts';

type S = components['schemas'];

const DAY = 24 * 3600_000;

/** Channel names by ID (empty without `channels:read`: the IDs show instead). */
type Names = Map<string, string>;

/** The names a readable answer shows (none are fetched for --json, which prints the API's answer). */
function namesShown({ out, api }: Pick<Context, 'out' | 'api'>): Promise<Names> {
  return out.json ? Promise.resolve(new Map()) : channelNames(api());
}

function postTable(posts: S['Post'][], tz: string | undefined, names: Names): string {
  return table(
    ['ID', 'STATE', 'WHEN', 'PLATFORM', 'CHANNEL', 'GROUP', 'CONTENT'],
    posts.map((p) => [
      p.id,
      p.state,
      formatWhen(p.publishDate, tz),
      p.integration.providerIdentifier,
      names.get(p.integration.id) ?? p.integration.id,
      p.group,
      excerpt(p.content, 40),
    ]),
    'No posts.',
  );
}

/** The last step of a post's approval, in a line (null when it never needed one). */
function approvalLine(steps: S['Post']['approvals'], tz: string | undefined): string | null {
  const last = steps?.at(-1);
  if (!last) return null;
  const who = last.by ? (last.by.name ?? last.by.email ?? last.by.id) : 'someone no longer here';
  return `${last.decision} by ${who}, ${formatWhen(last.at, tz)}${last.comment ? `: ${last.comment}` : ''}`;
}

function postFields(p: S['Post'], tz: string | undefined, names: Names): string[] {
  const name = names.get(p.integration.id);
  return [
    fields([
      ['id', p.id],
      ['group', p.group],
      ['state', p.state],
      ['when', `${formatWhen(p.publishDate, tz)} (${p.publishDate})`],
      ['channel', name ? `${name} (${p.integration.id})` : p.integration.id],
      ['platform', p.integration.providerIdentifier],
      ['tags', p.tags.join(', ')],
      ['released', p.releaseURL ?? p.releaseId],
      ['error', p.error],
      ['approval', approvalLine(p.approvals, tz)],
    ]),
    ...p.value.map(
      (v, i) =>
        `  ${i === 0 ? 'post' : `comment ${i} (+${v.delay} min)`}: [${v.state}] ${excerpt(v.content, 60)}${v.image.length ? ` (${v.image.length} media)` : ''}`,
    ),
  ];
}

/** Media for `--image`: a library path (http/https URL) as it is, a local file uploaded first. */
async function images(ctx: Context, values: string[]): Promise<S['ImageRefInput'][]> {
  const local = values.filter((v) => !/^https?:\/\//i.test(v));
  const checked = new Map(checkFiles(local).map((f) => [f.file, f.size]));
  const refs: S['ImageRefInput'][] = [];
  for (const value of values) {
    const size = checked.get(value);
    if (size === undefined) {
      refs.push({ path: value });
      continue;
    }
    const bar = progressBar(value, size);
    const uploaded = await uploadFile(ctx.api(), value, size, bar);
    bar(size, true);
    refs.push({ id: uploaded.id, path: uploaded.path });
  }
  return refs;
}

/** `key=value` pairs of `--setting`; a value that reads as JSON (number, boolean, list) is sent as such. */
function settingsOf(pairs: string[]): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--setting takes key=value, not "${pair}".`);
    const raw = pair.slice(at + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    settings[pair.slice(0, at)] = value;
  }
  return settings;
}

/** The comments of `--comment` (in `format`), each with its `--delay`. */
async function commentsOf(o: { comment?: string[]; delay?: number[] }, format: Format): Promise<S['PostValueInput'][]> {
  const delays = o.delay ?? [];
  const comments = await Promise.all((o.comment ?? []).map((c) => toHtml(c, format)));
  // The n-th --delay goes with the n-th --comment; later comments take the last one given.
  return comments.map((content, i) => ({ content, image: [], delay: delays[Math.min(i, delays.length - 1)] ?? 0 }));
}

/** Runs a write that takes an Idempotency-Key; when its outcome is unknown, says how to retry it safely. */
async function once<T>(key: string, what: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof NetworkFailure || (error instanceof ApiRefusal && error.status >= 500)) {
      notice(`The server may have ${what}. To try again without doing it twice, run the same command with --idempotency-key ${key}`);
    }
    throw error;
  }
}

type CreateOptions = {
  channel?: string[];
  file?: string;
  format?: string;
  comment?: string[];
  delay?: number[];
  at?: string;
  tz?: string;
  now?: boolean;
  draft?: boolean;
  queue?: boolean;
  commonSlot?: boolean;
  image?: string[];
  tag?: string[];
  setting?: string[];
  shortLink?: boolean;
  group?: string;
  idempotencyKey?: string;
  repeat?: string;
  days?: string;
  count?: number;
  until?: string;
};

const DAY_NAMES: Record<string, S['CreateSeriesInput']['repeat']['days'] extends (infer D)[] | undefined ? D : never> = {
  mon: 'monday',
  tue: 'tuesday',
  wed: 'wednesday',
  thu: 'thursday',
  fri: 'friday',
  sat: 'saturday',
  sun: 'sunday',
};

/** The `repeat` of POST /series from `--repeat`, `--days`, `--count`, `--until`, with `--at` (read in `--tz`) as its first occurrence. */
function repeatOf(o: CreateOptions): S['CreateSeriesInput']['repeat'] {
  if (!o.at) throw new UsageError('--repeat needs --at: the first occurrence (its local time in --tz is kept every time).');
  if (o.now || o.draft || o.queue || o.group) throw new UsageError('--repeat goes with --at only, not --now, --draft, --queue or --group.');
  const given = o.repeat!.trim();
  const frequency = ['daily', 'weekly', 'monthly'].includes(given.toLowerCase())
    ? (given.toLowerCase() as 'daily' | 'weekly' | 'monthly')
    : 'rrule';
  if (o.days && frequency !== 'weekly') throw new UsageError('--days goes with --repeat weekly.');
  const days = o.days?.split(',').map((day) => {
    const name = DAY_NAMES[day.trim().toLowerCase().slice(0, 3)];
    if (!name) throw new UsageError(`--days: "${day}" is not a day of the week (mon, tue, wed, thu, fri, sat, sun).`);
    return name;
  });
  return {
    frequency,
    ...(frequency === 'rrule' && { rrule: given }),
    ...(days && { days }),
    timeZone: timeZone(o.tz),
    start: localTime(parseWhen(o.at, o.tz), o.tz),
    ...(o.count !== undefined && { count: o.count }),
    ...(o.until && { until: parseWhen(o.until, o.tz) }),
  };
}

async function create(ctx: Context, text: string | undefined): Promise<void> {
  const o = ctx.opts as CreateOptions;
  const file = o.file;
  if (text !== undefined && file) throw new UsageError('Give the content either as an argument or with --file, not both.');
  if (!o.channel?.length)
    throw new UsageError('Which channels? Add --channel <id|name|handle> (repeat it for several; see `herald channels list`).');
  if (o.now && o.at) throw new UsageError('--now publishes immediately; leave out --at, or use --at without --now to schedule.');
  if ([o.now, o.draft, o.queue].filter(Boolean).length > 1) throw new UsageError('Choose one of --now, --draft and --queue.');
  if (o.queue && o.at) throw new UsageError("--queue takes each channel's next free slot; leave out --at, or use --at without --queue.");
  if (o.commonSlot && !o.queue) throw new UsageError('--common-slot goes with --queue.');
  const type: S['CreatePostsInput']['type'] = o.now ? 'now' : o.queue ? 'queue' : o.draft || !o.at ? 'draft' : 'schedule';
  const date = o.at ? parseWhen(o.at, o.tz) : new Date().toISOString();
  const format = formatOf(file, o.format);
  let source: string;
  if (text !== undefined) source = text;
  else if (file === '-' || (!file && !stdio().stdin.isTTY)) source = await readStdin();
  else if (file) source = readText(file);
  else throw new UsageError('No content: give it as an argument, with --file <path>, or on standard input.');
  if (!source.trim()) throw new UsageError('The content is empty.');

  const api = ctx.api();
  const channels = await resolveChannels(() => api.get<S['Channel'][]>('/integrations'), o.channel);
  const media = await images(ctx, o.image ?? []);
  const settings = o.setting?.length ? settingsOf(o.setting) : undefined;
  const value: S['PostValueInput'][] = [{ content: await toHtml(source, format), image: media }, ...(await commentsOf(o, format))];
  const items = channels.map((c) => ({
    integration: { id: c.id },
    value,
    ...(settings && { settings: { __type: c.identifier ?? '', ...settings } as S['PostItemInput']['settings'] }),
  }));
  if (o.repeat) {
    const json = { repeat: repeatOf(o), shortLink: Boolean(o.shortLink), tags: o.tag ?? [], posts: items } satisfies S['CreateSeriesInput'];
    const seriesKey = o.idempotencyKey ?? randomUUID();
    const series = await once(seriesKey, 'made the series', () =>
      api.request<S['Series']>('POST', '/series', { json, headers: { 'idempotency-key': seriesKey }, retry: true }),
    );
    show(ctx.out, series, () => [
      `Series ${series.id} (${series.rule}, ${series.repeat.timeZone}) on ${channels.length} channel(s); first occurrence ${series.nextOccurrence ? formatWhen(series.nextOccurrence, o.tz) : 'none'}.`,
      'Each occurrence is a post of its own in `herald posts list`.',
    ]);
    return;
  }
  const body: S['CreatePostsInput'] = {
    type,
    ...(type === 'queue' ? { queueSlot: o.commonSlot ? 'common' : 'channel' } : { date }),
    shortLink: Boolean(o.shortLink),
    tags: o.tag ?? [],
    ...(o.group && { group: o.group }),
    posts: channels.map((c) => ({
      integration: { id: c.id },
      value,
      ...(settings && { settings: { __type: c.identifier ?? '', ...settings } as S['PostItemInput']['settings'] }),
    })),
  };
  // One key per invocation, kept across its retries: the server answers a repeat with the first result.
  const key = o.idempotencyKey ?? randomUUID();
  const created = await once(key, 'made the post', () =>
    api.request<S['CreatedPost'][]>('POST', '/posts', { json: body, headers: { 'idempotency-key': key }, retry: true }),
  );
  // The channel's name, or what was given for it when the credential may not list channels.
  const names = new Map(channels.map((c, i) => [c.id, c.name ?? o.channel![i]!]));
  // A queued post's slot is the server's choice: read it back to say when it goes out.
  const slots =
    type === 'queue'
      ? await Promise.all(created.map(async (c) => formatWhen((await api.get<S['Post']>(`/posts/${c.postId}`)).publishDate, o.tz)))
      : [];
  // Where approval is on for the caller's role, a scheduled post waits for an approver: read one back to say so.
  const awaiting =
    type !== 'draft' && created[0] && !ctx.out.json
      ? (await api.get<S['Post']>(`/posts/${created[0].postId}`)).state === 'AWAITING_APPROVAL'
      : false;
  show(ctx.out, created, () => [
    awaiting
      ? `Awaiting approval on ${created.length} channel(s): nothing is published until an approver approves it (${type === 'queue' ? `slots ${slots.join(', ')}` : type === 'now' ? 'then at once' : `for ${formatWhen(date, o.tz)}`}).`
      : type === 'now'
        ? `Publishing now on ${created.length} channel(s).`
        : type === 'queue'
          ? `Queued on ${created.length} channel(s): ${slots.join(', ')}.`
          : type === 'schedule'
            ? `Scheduled for ${formatWhen(date, o.tz)} on ${created.length} channel(s).`
            : `Saved as a draft on ${created.length} channel(s).`,
    table(
      ['POST', 'CHANNEL'],
      created.map((c) => [
        c.postId,
        names.get(c.integration) === c.integration ? c.integration : `${names.get(c.integration) ?? ''} (${c.integration})`,
      ]),
      '',
    ),
  ]);
}

type EditOptions = {
  file?: string;
  format?: string;
  comment?: string[];
  delay?: number[];
  /** False with --no-comments. */
  comments?: boolean;
  at?: string;
  tz?: string;
  now?: boolean;
  draft?: boolean;
  schedule?: boolean;
  image?: string[];
  /** False with --no-media. */
  media?: boolean;
  tag?: string[];
  /** False with --no-tags. */
  tags?: boolean;
  setting?: string[];
  shortLink?: boolean;
  idempotencyKey?: string;
};

/** `posts edit`: only what is given changes (PATCH /posts/:id). */
async function edit(ctx: Context, id: string, text: string | undefined): Promise<void> {
  const o = ctx.opts as EditOptions;
  if (text !== undefined && o.file) throw new UsageError('Give the new content either as an argument or with --file, not both.');
  if ([o.now, o.draft, o.schedule].filter(Boolean).length > 1) throw new UsageError('Choose one of --now, --draft and --schedule.');
  if (o.now && o.at) throw new UsageError('--now publishes immediately; leave out --at, or use --at to move the date.');
  if (o.comment?.length && o.comments === false) throw new UsageError('Choose --comment (new comments) or --no-comments (none), not both.');
  if (o.image?.length && o.media === false) throw new UsageError('Choose --image (new media) or --no-media (none), not both.');
  if (o.tag?.length && o.tags === false) throw new UsageError('Choose --tag (new tags) or --no-tags (none), not both.');
  const format = formatOf(o.file, o.format);
  const source = text ?? (o.file === '-' ? await readStdin() : o.file ? readText(o.file) : undefined);
  if (source !== undefined && !source.trim()) throw new UsageError('The content is empty.');
  const body: S['UpdatePostInput'] = {
    ...(o.now ? { type: 'now' } : o.draft ? { type: 'draft' } : o.schedule ? { type: 'schedule' } : {}),
    ...(o.at && { date: parseWhen(o.at, o.tz) }),
    ...(source !== undefined && { content: await toHtml(source, format) }),
    ...(o.image?.length ? { image: await images(ctx, o.image) } : o.media === false ? { image: [] } : {}),
    ...(o.comment?.length ? { comments: await commentsOf(o, format) } : o.comments === false ? { comments: [] } : {}),
    ...(o.setting?.length && { settings: settingsOf(o.setting) as S['UpdatePostInput']['settings'] }),
    ...(o.tag?.length ? { tags: o.tag } : o.tags === false ? { tags: [] } : {}),
    ...(o.shortLink !== undefined && { shortLink: o.shortLink }),
  };
  if (Object.keys(body).length === 0) {
    throw new UsageError(
      'Nothing to change: give new content (an argument or --file), --at, --draft, --schedule, --now, --image, --comment, --tag, --setting or --short-link.',
    );
  }
  const key = o.idempotencyKey ?? randomUUID();
  const api = ctx.api();
  const post = await once(key, 'edited the post', () =>
    api.request<S['Post']>('PATCH', `/posts/${seg(id)}`, { json: body, headers: { 'idempotency-key': key }, retry: true }),
  );
  const names = await namesShown(ctx);
  show(ctx.out, post, () => [
    post.state === 'AWAITING_APPROVAL'
      ? `Post ${post.id} is updated and awaits approval (for ${formatWhen(post.publishDate, o.tz)}).`
      : post.state === 'QUEUE'
        ? `Post ${post.id} is updated, scheduled for ${formatWhen(post.publishDate, o.tz)}.`
        : post.state === 'DRAFT'
          ? `Post ${post.id} is updated, as a draft.`
          : `Post ${post.id} is updated, publishing now.`,
    ...postFields(post, o.tz, names),
  ]);
}

export function register(program: Command): void {
  const posts = examples(program.command('posts').description('create, edit, read and remove posts'), [
    'herald posts create "Hello" --channel ch_123 --at "2026-11-24 09:30"',
    'herald posts edit post_123 "Corrected text"',
    'herald posts list',
    'herald posts get post_123',
  ]);
  examples(
    posts
      .command('create [content]')
      .description(
        'create a post on one or more channels (a draft, scheduled with --at or at the next free slot with --queue, or published with --now).\n' +
          'Every create sends an Idempotency-Key; the command retries a server failure with the same key, so the post is made once. If it still fails, it prints the key: run the same command again with --idempotency-key <key> and the server answers with the first result instead of posting twice.',
      )
      .option('-c, --channel <channel>', 'a channel ID, name or handle (repeat for several)', collect)
      .option('-f, --file <path>', 'read the content from a file (- for standard input)')
      .option('--format <format>', "text, markdown or html (default: by the file's extension, else text)")
      .option('--comment <text>', 'a comment published under the post (repeat for several)', collect)
      .option(
        '--delay <minutes>',
        'minutes after the post a comment goes out (repeat, one per --comment)',
        (v: string, prev: number[] = []) => [...prev, integer('--delay', 0, 525600)(v)],
      )
      .option('--at <time>', 'schedule: ISO 8601 (2026-11-24T09:30:00Z) or local time (2026-11-24 09:30) read in --tz')
      .option('--tz <zone>', "time zone of a local --at and of times shown (default: this machine's)")
      .option('--now', 'publish immediately (cannot be undone)')
      .option('--draft', 'save as a draft (the default without --at or --now)')
      .option('--queue', "schedule at each channel's next free slot of its posting schedule (see `channels schedule`)")
      .option('--common-slot', "with --queue and several channels: one slot free on all of them (of the first channel's schedule)")
      .option('--repeat <rule>', 'repeat from --at: daily, weekly, monthly, or an RFC 5545 RRULE (FREQ=MONTHLY;BYDAY=MO;BYSETPOS=1)')
      .option('--days <days>', 'with --repeat weekly: the days, e.g. mon,thu (default: the day of --at)')
      .option('--count <n>', 'with --repeat: end after this many occurrences', integer('--count', 1, 10_000))
      .option('--until <time>', 'with --repeat: no occurrence after this time (ISO 8601 or local in --tz)')
      .option('--image <file|url>', 'attach media: a local file (uploaded first) or a library URL (repeat)', collect)
      .option('--tag <tag>', 'an internal tag (repeat)', collect)
      .option('--setting <key=value>', 'a platform setting (repeat; see `channels settings`)', collect)
      .option('--short-link', 'shorten the links in the text')
      .option('--group <group>', 'update the posts of this existing group instead of creating new ones')
      .option('--idempotency-key <key>', 'the key of an earlier attempt, to retry it without posting twice')
      .action(act(create, CREATE_WORDING)),
    [
      'herald posts create "Hello, world" --channel ch_123',
      'herald posts create --file launch.md --channel bluesky-main --channel @acme --at "2026-11-24 09:30" --tz Europe/Paris',
      'echo "<p>Now live</p>" | herald posts create --format html --channel ch_123 --now',
      'herald posts create "Thread start" -c ch_123 --comment "Second" --delay 5 --comment "Third" --delay 10 --at 2026-11-24T08:00:00Z',
      'herald posts create "Photo day" -c ch_123 --image ./cat.jpg --draft',
      'herald posts create "Evergreen tip" -c ch_123 -c ch_456 --queue',
      'herald posts create "Weekly tips" -c @acme --at "2026-12-07 09:00" --tz Europe/Berlin --repeat weekly --days mon,thu --count 20',
      'herald posts create "Hello" -c ch_123 --idempotency-key 7d5e…   # retry of a failed attempt',
    ],
  );
  examples(
    posts
      .command('edit <id> [content]')
      .description(
        'change one post in place: only what is given changes (its content, comments, media, date, state, tags, settings); its comments, media and date stay unless replaced.\n' +
          'A published post, or one being published, cannot be edited. Like create, every edit sends an Idempotency-Key and retries a server failure with it.',
      )
      .option('-f, --file <path>', 'read the new content from a file (- for standard input)')
      .option('--format <format>', "text, markdown or html (default: by the file's extension, else text)")
      .option('--comment <text>', 'replace the comments with these (repeat for several)', collect)
      .option(
        '--delay <minutes>',
        'minutes after the post a comment goes out (repeat, one per --comment)',
        (v: string, prev: number[] = []) => [...prev, integer('--delay', 0, 525600)(v)],
      )
      .option('--no-comments', 'remove the comments')
      .option('--at <time>', 'move it: ISO 8601 (2026-11-24T09:30:00Z) or local time (2026-11-24 09:30) read in --tz')
      .option('--tz <zone>', "time zone of a local --at and of times shown (default: this machine's)")
      .option('--schedule', 'put it in the queue for its date (a draft, or a post that failed)')
      .option('--draft', 'take it out of the queue, as a draft')
      .option('--now', 'publish it immediately (cannot be undone)')
      .option('--image <file|url>', "replace the post's media: a local file (uploaded first) or a library URL (repeat)", collect)
      .option('--no-media', "remove the post's media")
      .option('--tag <tag>', 'replace the tags (repeat)', collect)
      .option('--no-tags', 'remove the tags')
      .option('--setting <key=value>', 'change a platform setting, keeping the others (repeat; key=null removes one)', collect)
      .option('--short-link', 'shorten the links in the text')
      .option('--no-short-link', 'stop shortening the links in the text')
      .option('--idempotency-key <key>', 'the key of an earlier attempt, to retry it without editing twice')
      .action(act(edit, EDIT_WORDING)),
    [
      'herald posts edit post_123 "Corrected text"',
      'herald posts edit post_123 --at "2026-11-25 10:00" --tz Europe/Paris',
      'herald posts edit post_123 --file launch.md --comment "More soon" --delay 10',
      'herald posts edit post_123 --draft',
      'herald posts edit post_123 --image ./cat.jpg --tag launch --setting title="Launch day"',
    ],
  );
  examples(
    posts
      .command('list')
      .description(
        'the calendar: posts between two times (default: from a day ago to seven days ahead, so what was just published or drafted shows)',
      )
      .option('--from <time>', 'start: ISO 8601 or a local time read in --tz')
      .option('--to <time>', 'end: ISO 8601 or a local time read in --tz')
      .option('--tz <zone>', 'time zone of local times, and of the times shown')
      .option('--group <id>', 'only posts of the channels of this client group')
      .option('--limit <n>', 'at most this many posts (1 to 1000)', integer('--limit', 1, 1000))
      .option('--cursor <cursor>', 'the next page, from an earlier answer')
      .action(
        act(async ({ out, opts, api }) => {
          const now = Date.now();
          const start = opts.from ? parseWhen(opts.from as string, opts.tz) : new Date(now - DAY).toISOString();
          const end = opts.to
            ? parseWhen(opts.to as string, opts.tz)
            : new Date(opts.from ? Date.parse(start) + 7 * DAY : now + 7 * DAY).toISOString();
          const page = await api().get<S['PostList']>('/posts', {
            startDate: start,
            endDate: end,
            customer: opts.group as string | undefined,
            limit: opts.limit as number | undefined,
            cursor: opts.cursor as string | undefined,
          });
          const names = await namesShown({ out, api });
          show(out, page, () => [
            postTable(page.posts, opts.tz, names),
            ...(page.nextCursor ? [`More posts: add --cursor ${page.nextCursor}`] : []),
          ]);
        }, LIST_WORDING),
      ),
    [
      'herald posts list',
      'herald posts list --from 2026-11-01 --to 2026-12-01 --tz Europe/Paris',
      'herald posts list --group grp_123 --json',
    ],
  );
  examples(
    posts
      .command('get <id>')
      .description('one post, with its comments and their states')
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }, id: string) => {
          const post = await api().get<S['Post']>(`/posts/${seg(id)}`);
          const names = await namesShown({ out, api });
          show(out, post, () => postFields(post, opts.tz, names));
        }),
      ),
    ['herald posts get post_123', 'herald posts get post_123 --json'],
  );
  examples(
    posts
      .command('status <id> <status>')
      .description('move a post: `schedule` puts a draft in the queue for its date, `draft` takes a scheduled post out')
      .action(
        act(async ({ out, opts, api }, id: string, status: string) => {
          if (status !== 'draft' && status !== 'schedule') throw new UsageError(`The status is draft or schedule, not "${status}".`);
          const post = await api().request<S['Post']>('PUT', `/posts/${seg(id)}/status`, { json: { status } });
          const names = await namesShown({ out, api });
          show(out, post, () => [
            `Post ${post.id} is now ${post.state}.`,
            ...postFields(post, opts.tz as string | undefined, names).slice(0, 1),
          ]);
        }, STATUS_WORDING),
      ),
    ['herald posts status post_123 schedule', 'herald posts status post_123 draft'],
  );
  examples(
    posts
      .command('missing <id>')
      .description('what a post still lacks before it can publish (platform settings, media, title)')
      .action(
        act(async ({ out, api }, id: string) => {
          const check = await api().get<S['MissingCheck']>(`/posts/${seg(id)}/missing`);
          show(out, check, () =>
            check.ready
              ? `Post ${check.postId} is ready to publish.`
              : [`Post ${check.postId} is missing:`, ...check.missing.map((m) => `  ${m.field}: ${m.reason}`)],
          );
        }),
      ),
    ['herald posts missing post_123'],
  );
  examples(
    posts
      .command('release-id <id> <releaseId>')
      .description("record the post's ID (and address) on the platform")
      .option('--release-url <url>', "the post's address on the platform")
      .action(
        act(async ({ out, opts, api }, id: string, releaseId: string) => {
          const post = await api().request<S['Post']>('PUT', `/posts/${seg(id)}/release-id`, {
            json: { releaseId, ...(opts.releaseUrl ? { releaseURL: opts.releaseUrl } : {}) },
          });
          show(out, post, () => `Post ${post.id} is recorded as ${post.releaseId}${post.releaseURL ? ` (${post.releaseURL})` : ''}.`);
        }, RELEASE_WORDING),
      ),
    ['herald posts release-id post_123 3kx2abc --release-url https://bsky.app/profile/acme/post/3kx2abc'],
  );
  const deleted = (d: S['Deleted']) => (d.deleted ? `Deleted ${d.deleted} post(s): ${d.ids.join(', ')}.` : 'Nothing was deleted.');
  examples(
    posts
      .command('delete <id>')
      .description('delete a post (one already published stays on the platform)')
      .action(
        act(async ({ out, api }, id: string) => {
          const d = await api().request<S['Deleted']>('DELETE', `/posts/${seg(id)}`);
          show(out, d, () => deleted(d));
        }),
      ),
    ['herald posts delete post_123'],
  );
  examples(
    posts
      .command('delete-group <group>')
      .description('delete every post of a group (a composition sent to several channels)')
      .action(
        act(async ({ out, api }, group: string) => {
          const d = await api().request<S['Deleted']>('DELETE', `/posts/group/${seg(group)}`);
          show(out, d, () => deleted(d));
        }),
      ),
    ['herald posts delete-group grp_abc'],
  );
  examples(
    posts
      .command('approvals')
      .description('the posts awaiting approval, earliest first (approve or reject them with `posts approve` and `posts reject`)')
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }) => {
          const list = await api().get<S['AwaitingApproval']>('/posts/awaiting-approval');
          const names = await namesShown({ out, api });
          show(out, list, () =>
            table(
              ['ID', 'WHEN', 'CHANNEL', 'ASKED BY', 'CONTENT'],
              list.posts.map((p) => {
                const asked = p.approvals?.findLast((step) => step.decision === 'requested')?.by;
                return [
                  p.id,
                  formatWhen(p.publishDate, opts.tz as string | undefined),
                  names.get(p.integration.id) ?? p.integration.id,
                  asked ? (asked.name ?? asked.email ?? asked.id) : '',
                  excerpt(p.content, 40),
                ];
              }),
              'No post awaits approval.',
            ),
          );
        }),
      ),
    ['herald posts approvals', 'herald posts approvals --json'],
  );
  examples(
    posts
      .command('approve <id>')
      .description('approve a post awaiting approval: it is scheduled for its date, or published at once if that has passed')
      .option('--comment <text>', 'a note kept with the decision')
      .option('--tz <zone>', 'time zone of the times shown')
      .action(
        act(async ({ out, opts, api }, id: string) => {
          // One key per invocation, kept across its retries: a repeat answers the first decision.
          const post = await api().request<S['Post']>('POST', `/posts/${seg(id)}/approve`, {
            json: opts.comment ? { comment: opts.comment as string } : {},
            headers: { 'idempotency-key': randomUUID() },
            retry: true,
          });
          show(
            out,
            post,
            () => `Post ${post.id} is approved: scheduled for ${formatWhen(post.publishDate, opts.tz as string | undefined)}.`,
          );
        }),
      ),
    ['herald posts approve post_123', 'herald posts approve post_123 --comment "Good to go"'],
  );
  examples(
    posts
      .command('reject <id>')
      .description('reject a post awaiting approval: it becomes a draft again and its author is told why')
      .requiredOption('--comment <text>', 'why, for the author (required)')
      .action(
        act(async ({ out, api, opts }, id: string) => {
          const post = await api().request<S['Post']>('POST', `/posts/${seg(id)}/reject`, {
            json: { comment: opts.comment as string },
            headers: { 'idempotency-key': randomUUID() },
            retry: true,
          });
          show(out, post, () => `Post ${post.id} is rejected and back to ${post.state}.`);
        }),
      ),
    ['herald posts reject post_123 --comment "Link the announcement, not the home page"'],
  );
  examples(
    posts
      .command('approval-settings')
      .description('show, or set (owners and admins), the roles whose scheduled posts wait for approval')
      .option('--require <roles>', 'comma-separated roles that need approval: contributor, editor')
      .option('--off', 'nobody needs approval')
      .action(
        act(async ({ out, opts, api }) => {
          if (opts.require !== undefined && opts.off) throw new UsageError('Give --require or --off, not both.');
          const roles =
            opts.off === true
              ? []
              : opts.require !== undefined
                ? (opts.require as string)
                    .split(',')
                    .map((role) => role.trim())
                    .filter(Boolean)
                : null;
          const settings =
            roles === null
              ? await api().get<S['ApprovalSettings']>('/approval-settings')
              : await api().request<S['ApprovalSettings']>('PUT', '/approval-settings', {
                  json: { roles: roles as S['SetApprovalSettings']['roles'] },
                });
          show(out, settings, () =>
            settings.roles.length
              ? `Approval is needed for: ${settings.roles.join(', ')}. Approvers: ${settings.approvers.join(', ')}.`
              : 'Nobody needs approval: scheduled posts go straight to the queue.',
          );
        }),
      ),
    ['herald posts approval-settings', 'herald posts approval-settings --require contributor', 'herald posts approval-settings --off'],
  );
}
