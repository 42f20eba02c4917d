/** Wall-clock time in a named time zone and back, for `datetime-local` fields. */
import { offsetAt, wallToInstant } from '../client/zone-clock.ts';

/** `2026-12-01T09:30` (a `datetime-local` value) read in `zone`, as an instant. */
export function zonedToInstant(local: string, zone: string): Date {
  return new Date(wallToInstant(Date.parse(`${local}:00Z`), zone));
}

/** The instant as a `datetime-local` value in `zone` (minutes). */
export function instantToZoned(date: Date, zone: string): string {
  return new Date(date.getTime() + offsetAt(date.getTime(), zone)).toISOString().slice(0, 16);
}

/** "Tue, 1 Dec 2026, 09:30", in the zone. */
export function formatInstant(iso: string, zone: string): string {
  return new Date(iso).toLocaleString(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
}
