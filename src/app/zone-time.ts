/** Wall-clock time in a named time zone and back, with the browser's Intl data (no library). */

function wallClock(date: Date, zone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { y: get('year'), mo: get('month'), d: get('day'), h: get('hour'), mi: get('minute'), s: get('second') };
}

/** The zone's offset from UTC at that instant, in milliseconds. */
function offsetAt(ms: number, zone: string): number {
  const w = wallClock(new Date(ms), zone);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
}

/** `2026-12-01T09:30` (a `datetime-local` value) read in `zone`, as an instant. */
export function zonedToInstant(local: string, zone: string): Date {
  const naive = Date.parse(`${local}:00Z`);
  const first = naive - offsetAt(naive, zone);
  return new Date(naive - offsetAt(first, zone));
}

/** The instant as a `datetime-local` value in `zone` (minutes). */
export function instantToZoned(date: Date, zone: string): string {
  const w = wallClock(date, zone);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(w.y).padStart(4, '0')}-${two(w.mo)}-${two(w.d)}T${two(w.h)}:${two(w.mi)}`;
}

/** "Tue, 1 Dec 2026, 09:30", in the zone. */
export function formatInstant(iso: string, zone: string): string {
  return new Date(iso).toLocaleString(undefined, { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
}
