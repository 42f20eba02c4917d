import { ProviderError, type ProviderContext, type PublishedRef } from './provider.ts';

/**
 * The normalised names of the numbers platforms report (see docs/providers.md for each
 * platform's fields). A name a platform does not report is absent from its readings, never 0.
 */
export const METRIC_NAMES = [
  'impressions',
  'views',
  'reach',
  'likes',
  'reposts',
  'shares',
  'replies',
  'quotes',
  'bookmarks',
  'saves',
  'clicks',
  'profile_visits',
  'watch_time',
  'score',
  'zaps',
  'followers',
  'following',
  'posts',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** Numbers by normalised name; only those the platform reported. */
export type Metrics = Partial<Record<MetricName, number>>;

/** One reading: the normalised numbers, and the platform's own fields they came from. */
export type MetricsReading = { metrics: Metrics; raw: Record<string, number> };

/**
 * The optional metrics capability of a provider: read the numbers of a batch of published posts
 * and of the channel's account. Calls go through the platform-call module, so failures arrive
 * as ProviderError kinds (`rate_limited` with the platform's wait, `auth` when the credentials
 * or a needed permission are refused).
 */
export interface ProviderMetrics {
  /** The names its post readings may hold, and those of its account readings. */
  readonly reports: { readonly post: readonly MetricName[]; readonly account: readonly MetricName[] };
  /** Posts read in one call at most (the API's own maximum). */
  readonly batchSize: number;
  /** The numbers of up to `batchSize` published parts, by release id; a part the platform no longer has is absent. */
  posts(ctx: ProviderContext, refs: readonly PublishedRef[]): Promise<Map<string, MetricsReading>>;
  /** The numbers of the channel's account. */
  account(ctx: ProviderContext): Promise<MetricsReading>;
}

/**
 * A platform refused a permission that reading numbers needs (a scope the channel was connected
 * without, or page analytics rights): an `auth` failure of the reading only. The channel's
 * credentials still publish, so it is not disabled; it is reconnected to grant the permission.
 */
export class MetricsPermissionError extends ProviderError {
  constructor(message: string, options: ProviderError['options'] = {}) {
    super('auth', message, options);
  }
}

/**
 * `reading`, with a 403 from the platform (the permission `grant` not given) turned into a
 * MetricsPermissionError saying which permission the numbers need.
 */
export async function needingPermission<T>(reading: Promise<T>, platform: string, grant: string): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof ProviderError && error.options.status === 403)
      throw new MetricsPermissionError(`${error.message} (${platform} gives these numbers to tokens granted ${grant})`, { status: 403 });
    throw error;
  }
}

/**
 * Reads `fields` of a platform object into normalised names: `{favourites_count: 'likes'}`.
 * A field that is absent or not a finite number is left out (not reported is not zero).
 */
export function readMetrics(source: unknown, fields: Readonly<Record<string, MetricName>>): MetricsReading {
  const metrics: Metrics = {};
  const raw: Record<string, number> = {};
  const object = (source && typeof source === 'object' ? source : {}) as Record<string, unknown>;
  for (const [field, name] of Object.entries(fields)) {
    const value = object[field];
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    raw[field] = value;
    metrics[name] = (metrics[name] ?? 0) + value;
  }
  return { metrics, raw };
}

/** A 404 from the platform: the part was deleted there, so it has no numbers any more. */
const deleted = (error: ProviderError) => error.options.status === 404;

/**
 * Readings of `refs` for a platform that reads one part a call: `read` for each in turn, by
 * release id. A part whose call fails as `gone` (a 404 unless told) is absent: deleted on the
 * platform, not a failure of the channel. Any other failure ends the batch.
 */
export async function eachPart(
  refs: readonly PublishedRef[],
  read: (ref: PublishedRef) => Promise<MetricsReading>,
  gone: (error: ProviderError) => boolean = deleted,
): Promise<Map<string, MetricsReading>> {
  const found = new Map<string, MetricsReading>();
  for (const ref of refs) {
    try {
      found.set(ref.id, await read(ref));
    } catch (error) {
      if (error instanceof ProviderError && gone(error)) continue;
      throw error;
    }
  }
  return found;
}

/** Every emoji's `count` in a message's `reactions` summed (normal and super reactions alike); 0 when there are none. */
export function reactionTotal(reactions: unknown): number {
  let total = 0;
  for (const reaction of Array.isArray(reactions) ? (reactions as Array<{ count?: unknown }>) : [])
    if (typeof reaction.count === 'number' && Number.isFinite(reaction.count)) total += reaction.count;
  return total;
}
