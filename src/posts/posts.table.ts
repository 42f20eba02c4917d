/** `AWAITING_APPROVAL`: scheduled by a role whose posts need an approver's yes; the engine never takes it (see src/approvals). */
export const POST_STATES = ['DRAFT', 'QUEUE', 'PUBLISHING', 'PUBLISHED', 'ERROR', 'AWAITING_APPROVAL'] as const;
export type PostState = (typeof POST_STATES)[number];

/** One post: a composition's content for one channel. */
export interface PostsTable {
  id: string;
  workspace_id: string;
  /** Shared by the posts of one multi-channel composition. */
  group_id: string;
  channel_id: string;
  state: PostState;
  /** The instant it is (or was) to be published, ISO 8601 UTC. */
  publish_at: string;
  settings: string;
  tags: string;
  short_link: number;
  release_id: string | null;
  release_url: string | null;
  error: string | null;
  /** Why it (or one of its comments) failed. */
  error_kind: ErrorKind | null;
  /** When the engine should next look at it (the post itself, a retry, or the next comment). */
  next_run_at: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** Counts people's edits and state moves: the engine's settlements apply only at the version it claimed. */
  version: number;
  /** The recurring series this post is an occurrence of (null: a post of its own). */
  series_id: string | null;
  /** The series rule's instant this occurrence stands for, ISO 8601 UTC (its publish time unless a person moved it). */
  occurrence_at: string | null;
  /** `edited` or `deleted` when a person changed this occurrence alone: an edit of the series leaves it as it is. */
  series_exception: SeriesException | null;
}

export const SERIES_EXCEPTIONS = ['edited', 'deleted'] as const;
export type SeriesException = (typeof SERIES_EXCEPTIONS)[number];

/**
 * Why a post is in ERROR (or why one of its comments failed): the platform refused it
 * (`rejected`), refused the channel's credentials (`auth`), the outcome is unknown
 * (`unconfirmed`), something required was missing (`missing`), retries ran out (`gave_up`), or
 * the channel was disabled (`channel_disabled`), or it was an occurrence of a recurring series
 * whose time had passed by more than the series' missed window (`skipped`: not published late).
 */
export const ERROR_KINDS = ['rejected', 'auth', 'unconfirmed', 'missing', 'gave_up', 'channel_disabled', 'skipped'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

export const PART_STATES = ['PENDING', 'SENDING', 'PUBLISHED', 'ERROR'] as const;
export type PartState = (typeof PART_STATES)[number];

/** An element of a post's `value`: part 0 is the post, then its comments in order. */
export interface PostPartsTable {
  post_id: string;
  idx: number;
  content: string;
  /** JSON array of `{id, path}`. */
  images: string;
  delay_minutes: number;
  state: PartState;
  attempts: number;
  /** Set while a worker is calling the platform for this part (SENDING); the claim's token. */
  claimed_at: string | null;
  /** Until when the claiming worker holds the part; renewed while its call is in flight. */
  lease_until: string | null;
  release_id: string | null;
  release_url: string | null;
  release_meta: string | null;
  error: string | null;
  published_at: string | null;
}

export interface PostMediaTable {
  post_id: string;
  media_id: string;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  key: string;
  request_hash: string;
  /** Null while the first request with this key is still running. */
  status_code: number | null;
  response: string | null;
  created_at: string;
}
