import type { Post } from './api.ts';

/** Each state's name and mark: the colour is never the only sign (the mark and the word say it too). */
export const STATES: Record<Post['state'], { label: string; mark: string }> = {
  DRAFT: { label: 'Draft', mark: '✎' },
  AWAITING_APPROVAL: { label: 'Awaiting approval', mark: '…' },
  QUEUE: { label: 'Scheduled', mark: '◷' },
  PUBLISHING: { label: 'Publishing', mark: '↻' },
  PUBLISHED: { label: 'Published', mark: '✓' },
  ERROR: { label: 'Failed', mark: '!' },
};

/** The time zone the person chose on the calendar (kept in this browser), or the browser's own. */
export const ZONE_KEY = 'herald.timeZone';
export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}
export function chosenZone(): string {
  return localStorage.getItem(ZONE_KEY) || browserZone();
}
