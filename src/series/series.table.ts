/** A recurring series: its rule, the composition each occurrence repeats, and how far ahead its posts are written. */
export interface PostSeriesTable {
  id: string;
  workspace_id: string;
  /** Who made or last changed the series: their role in the workspace decides whether its occurrences wait for approval. */
  author_id: string;
  /** The RFC 5545 RRULE line (no DTSTART: that is `starts_local` in `time_zone`). */
  rule: string;
  time_zone: string;
  /** The first occurrence's wall-clock time in `time_zone`, `YYYY-MM-DDTHH:MM:SS`. */
  starts_local: string;
  /** No occurrence after this instant (ISO 8601 UTC); null: none but the rule's own `COUNT`. */
  until: string | null;
  /** JSON: `{ repeat, posts, tags, shortLink }` as the API took them (content already HTML). */
  template: string;
  /** The occurrences up to this instant are written as posts (or were skipped). */
  materialised_until: string;
  /** Occurrences that were never published because their time had passed by more than the missed window. */
  skipped: number;
  /** 1 once the rule has no occurrence after `materialised_until`. */
  ended: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  version: number;
}
