import { ApiRefusal } from './errors.ts';

/**
 * How a command words the API's sentences: each API field (or request) a sentence names, and the
 * flag or command that sets it on this command line. The API keeps its own wording for every
 * client; the command says `--now` where the API says `type "now"`. `--json` prints the API's body
 * unchanged.
 */
export type Wording = ReadonlyArray<readonly [RegExp, string]>;

/** Rewords an API refusal in place; anything else is left alone. */
export function reword(error: unknown, wording: Wording): void {
  if (!(error instanceof ApiRefusal)) return;
  error.message = wording.reduce((message, [field, flag]) => message.replace(field, flag), error.message);
}

/** The schema validation's prefixes (`body.`, `querystring.`) before a field, for the patterns below. */
const at = (where: string, field: string) => new RegExp(`\\b${where}\\.${field}\\b`, 'g');

/** `posts create`. */
export const CREATE_WORDING: Wording = [
  [/use type "now"/g, 'use --now'],
  [/\bposts\[\d+\]\.integration\.id\b/g, '--channel'],
  [
    /\bposts\[\d+\]\.value\[0\]\.image\[\d+\]: (\S+) is not a file of this workspace's media library; upload it first \(POST \/upload\) and use the path it returns\./g,
    "--image $1: not a file of this workspace's media library; give a local file (it is uploaded first) or a path `herald media list` shows.",
  ],
  [/\bposts\[\d+\]\.value\[(\d+)\]\.image\[\d+\]/g, '--image'],
  [/\bposts\[\d+\]\.settings\.(?!__type)([\w.]+)/g, '--setting $1'],
  [at('body', 'date'), '--at'],
  [at('body', 'posts\\.\\d+\\.value\\.0\\.content'), 'the content'],
  [at('body', 'posts\\.\\d+\\.value\\.(\\d+)\\.content'), '--comment $1'],
  [at('body', 'posts\\.\\d+\\.value\\.\\d+\\.delay'), '--delay'],
  [at('body', 'posts\\.\\d+\\.value\\.\\d+\\.image(?:\\.\\d+)?'), '--image'],
  [at('body', 'posts\\.\\d+\\.settings\\.([\\w.]+)'), '--setting $1'],
  [at('body', 'tags(?:\\.\\d+)?'), '--tag'],
  [at('body', 'group'), '--group'],
  [at('headers', 'idempotency-key'), '--idempotency-key'],
];

/** `posts edit`. */
export const EDIT_WORDING: Wording = [
  [/use type "now"/g, 'use --now'],
  [/^integration\.id: /, "the post's channel: "],
  [
    /\bvalue\[0\]\.image\[\d+\]: (\S+) is not a file of this workspace's media library; upload it first \(POST \/upload\) and use the path it returns\./g,
    "--image $1: not a file of this workspace's media library; give a local file (it is uploaded first) or a path `herald media list` shows.",
  ],
  [/^settings\.(?!__type)([\w.]+)/g, '--setting $1'],
  [/; settings\.(?!__type)([\w.]+)/g, '; --setting $1'],
  [at('body', 'date'), '--at'],
  [at('body', 'content'), 'the content'],
  [at('body', 'comments\\.\\d+\\.content'), '--comment'],
  [at('body', 'comments\\.\\d+\\.delay'), '--delay'],
  [at('body', 'comments(?:\\.\\d+)?'), '--comment'],
  [at('body', 'image(?:\\.\\d+)?(?:\\.path)?'), '--image'],
  [at('body', 'settings\\.([\\w.]+)'), '--setting $1'],
  [at('body', 'tags(?:\\.\\d+)?'), '--tag'],
  [at('headers', 'idempotency-key'), '--idempotency-key'],
];

/** `posts list`. */
export const LIST_WORDING: Wording = [
  [
    /^cursor: not a cursor this API gave; .*$/,
    '--cursor: not a cursor this command printed; give the one the previous page printed unchanged, or leave --cursor out for the first page.',
  ],
  [/\bendDate is before startDate\b/g, '--to is before --from'],
  [/\bfrom startDate to endDate\b/g, 'from --from to --to'],
  [at('querystring', 'startDate'), '--from'],
  [at('querystring', 'endDate'), '--to'],
  [at('querystring', 'customer'), '--group'],
  [at('querystring', 'limit'), '--limit'],
  [at('querystring', 'cursor'), '--cursor'],
];

/** `posts status`. */
export const STATUS_WORDING: Wording = [
  [/change the date \(PATCH \/posts\/:id with a later `date`\)/g, 'give it a later date (`herald posts edit <id> --at …`)'],
];

/** `media list` and `notifications`. */
export const PAGE_WORDING: Wording = [
  [at('querystring', 'pageSize'), '--page-size'],
  [at('querystring', 'page'), '--page'],
  [/^page: /, '--page: '],
  [/\bpageSize\b/g, '--page-size'],
];

/** `channels trigger`. */
export const TRIGGER_WORDING: Wording = [
  [/\bUnknown methodName\b/g, 'Unknown tool'],
  [/\bInvalid data for\b/g, 'Invalid --data for'],
  [/\bdata\.([\w.]+):/g, '$1:'],
];

/** `posts release-id`. */
export const RELEASE_WORDING: Wording = [[at('body', 'releaseURL'), '--release-url']];
