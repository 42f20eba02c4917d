/** Wall-clock time in a named (IANA) time zone, from the runtime's Intl data: no library, so browsers and Node share it. */

/** The wall clock in `zone` at an instant: year, month (1–12), day, hour (0–23), minute, second. */
function wallClock(date: Date, zone: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(date)
      .map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!, second: parts.second! };
}

/** Milliseconds the zone is ahead of UTC at an instant. */
export function offsetAt(ms: number, zone: string): number {
  const w = wallClock(new Date(ms), zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

/** A wall time (as UTC milliseconds of the same digits) read in `zone`, as an instant: the offset at the wall time, corrected once for a change of offset between the two. */
export function wallToInstant(wall: number, zone: string): number {
  const first = wall - offsetAt(wall, zone);
  return wall - offsetAt(first, zone);
}
