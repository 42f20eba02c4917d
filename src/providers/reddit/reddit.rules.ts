import { field } from '../oauth-api.ts';
import { ProviderError, type MissingItem, type ProviderContext } from '../provider.ts';
import { callReddit } from './reddit.client.ts';

/**
 * What a subreddit accepts, as Reddit's API says: `GET /r/{sr}/about` (`submission_type` any,
 * link or self; `allow_images`; `over18`; whether the account is banned) and
 * `GET /api/v1/{sr}/post_requirements` (a required flair, title lengths, whether a body is
 * required or refused).
 */
export type SubredditRules = {
  name: string;
  submissionType: 'any' | 'link' | 'self';
  allowImages: boolean;
  nsfw: boolean;
  banned: boolean;
  flairRequired: boolean;
  titleMin: number | null;
  titleMax: number | null;
  body: 'required' | 'notAllowed' | 'none';
};

/** How long rules read from Reddit are trusted by `GET /posts/:id/missing`; a publish always reads them again. */
const RULES_TTL_MS = 60 * 60_000;
const known = new Map<string, { at: number; rules: SubredditRules }>();

/** The subreddit's name as Reddit takes it in `sr`: `r/pics`, `/r/pics/` and `pics` are all `pics`. */
export function subredditName(value: string): string {
  return value
    .trim()
    .replace(/^\/?r\//i, '')
    .replace(/\/+$/, '');
}

/** The rules this process read for a subreddit in the last hour, or null. */
export function knownRules(subreddit: string, now = Date.now()): SubredditRules | null {
  const entry = known.get(subredditName(subreddit).toLowerCase());
  return entry && now - entry.at < RULES_TTL_MS ? entry.rules : null;
}

/**
 * Remembers a subreddit's rules. From a listing (`partial`: no post requirements read), the
 * requirements already known for it are kept rather than forgotten.
 */
export function rememberRules(rules: SubredditRules, options: { partial?: boolean; now?: number } = {}): void {
  const now = options.now ?? Date.now();
  const previous = options.partial ? knownRules(rules.name, now) : null;
  const merged = previous
    ? { ...rules, flairRequired: previous.flairRequired, titleMin: previous.titleMin, titleMax: previous.titleMax, body: previous.body }
    : rules;
  known.set(rules.name.toLowerCase(), { at: now, rules: merged });
}

/** Forgets what was read about subreddits (tests). */
export function clearSubredditRules(): void {
  known.clear();
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/** A subreddit listing child or about answer (`{kind:'t5', data}`) as rules; the post requirements come separately. */
export function aboutRules(data: unknown, requirements: unknown = null): SubredditRules | null {
  const name = field(data, 'display_name');
  if (typeof name !== 'string') return null;
  const type = field(data, 'submission_type');
  const body = field(requirements, 'body_restriction_policy');
  return {
    name,
    submissionType: type === 'link' || type === 'self' ? type : 'any',
    allowImages: field(data, 'allow_images') !== false,
    nsfw: field(data, 'over18') === true,
    banned: field(data, 'user_is_banned') === true,
    flairRequired: field(requirements, 'is_flair_required') === true,
    titleMin: numberOrNull(field(requirements, 'title_text_min_length')),
    titleMax: numberOrNull(field(requirements, 'title_text_max_length')),
    body: body === 'required' || body === 'notAllowed' ? body : 'none',
  };
}

/** Reads a subreddit's rules live and remembers them; a subreddit Reddit does not know is a refusal. */
export async function readRules(ctx: ProviderContext, token: string, username: string, subreddit: string): Promise<SubredditRules> {
  const sr = subredditName(subreddit);
  const about = await callReddit(ctx, `/r/${encodeURIComponent(sr)}/about?raw_json=1`, { token, username }).catch((error: unknown) => {
    if (error instanceof ProviderError && (error.options.status === 404 || error.options.status === 403))
      throw new ProviderError('rejected', `Reddit has no subreddit r/${sr} this account can post in (${error.message}).`, {
        status: error.options.status,
      });
    throw error;
  });
  if (field(about.json, 'kind') !== 't5')
    throw new ProviderError('rejected', `Reddit has no subreddit r/${sr} (it answered with a search instead).`, { status: 404 });
  const requirements = await callReddit(ctx, `/api/v1/${encodeURIComponent(sr)}/post_requirements`, { token, username }).then(
    (answer) => answer.json,
    // Older or special subreddits may have none: the about page's rules still hold.
    (error: unknown) => {
      if (error instanceof ProviderError && error.kind === 'rejected') return null;
      throw error;
    },
  );
  const rules = aboutRules(field(about.json, 'data'), requirements);
  if (!rules) throw new ProviderError('rejected', `Reddit did not describe r/${sr}.`);
  rememberRules(rules);
  return rules;
}

export type RedditPostShape = { kind: 'self' | 'link' | 'image'; title: string; hasBody: boolean; flair: boolean; nsfw: boolean };

/** Where a post breaks the subreddit's rules, as missing items. */
export function breaksRules(rules: SubredditRules, post: RedditPostShape, part: number): MissingItem[] {
  const missing: MissingItem[] = [];
  const sr = `r/${rules.name}`;
  if (rules.banned) missing.push({ field: 'settings.subreddit', reason: `This account is banned from ${sr}.` });
  if (post.kind === 'self' && rules.submissionType === 'link')
    missing.push({ field: 'settings.kind', reason: `${sr} takes link posts only (its submission type is "link").` });
  if (post.kind !== 'self' && rules.submissionType === 'self')
    missing.push({ field: 'settings.kind', reason: `${sr} takes text posts only (its submission type is "self").` });
  if (post.kind === 'image' && !rules.allowImages)
    missing.push({ field: `value[${part}].image`, reason: `${sr} does not allow image posts.` });
  if (rules.flairRequired && !post.flair)
    missing.push({ field: 'settings.flairId', reason: `${sr} requires a flair: pick one with the flairs tool.` });
  if (rules.titleMin !== null && post.title.length < rules.titleMin)
    missing.push({ field: 'settings.title', reason: `${sr} wants titles of at least ${rules.titleMin} characters.` });
  if (rules.titleMax !== null && post.title.length > rules.titleMax)
    missing.push({ field: 'settings.title', reason: `${sr} takes titles of at most ${rules.titleMax} characters.` });
  if (post.kind === 'self' && rules.body === 'required' && !post.hasBody)
    missing.push({ field: `value[${part}].content`, reason: `${sr} requires text in the post's body.` });
  if (post.kind === 'self' && rules.body === 'notAllowed' && post.hasBody)
    missing.push({ field: `value[${part}].content`, reason: `${sr} takes posts with a title only, no body text.` });
  return missing;
}
