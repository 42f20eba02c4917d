/**
 * Weekly posting slots and their instants, computed in the schedule's IANA time zone with `Intl`
 * alone (no dependency): the wall-clock time of a slot stays the same across daylight-saving
 * changes.
 *
 * - A slot that does not exist on a day (clocks spring forward over it, e.g. 02:30 in Europe/Paris
 *   on the last Sunday of March) is moved forward by the length of the gap (03:30 that day).
 * - A slot that occurs twice on a day (clocks fall back over it) is taken once, at its first
 *   occurrence (the earlier instant, still on summer time).
 * - Two slots that fall on the same instant that day (02:30 moved to 03:30 beside a 03:30 slot)
 *   are one slot.
 */

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** One weekly slot: a day of the week and a local time `HH:MM` (24-hour). */
export type Slot = { day: Weekday; time: string };
export type WeeklySchedule = { timeZone: string; slots: Slot[] };

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  return format;
}

/** The canonical name of an IANA time zone, or null when this runtime does not know it. */
export function canonicalTimeZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The wall-clock time at `instant` in `timeZone`, written as if it were UTC (milliseconds). */
export function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/** The zone's offset from UTC at `instant`, in milliseconds. */
function offsetAt(instant: number, timeZone: string): number {
  return wallClock(Math.floor(instant / 1000) * 1000, timeZone) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant of a wall-clock time (`local`, written as if UTC) in `timeZone`: the earlier of two
 * when it occurs twice, and moved forward by the gap when it does not occur (as Temporal's
 * "compatible" disambiguation does).
 */
export function instantOf(local: number, timeZone: string): number {
  const before = offsetAt(local - DAY_MS, timeZone);
  const after = offsetAt(local + DAY_MS, timeZone);
  const candidates = [local - before, local - after].filter((instant) => instant + offsetAt(instant, timeZone) === local);
  if (candidates.length > 0) return Math.min(...candidates);
  // In a gap: the offset before it, which lands as far after the gap's start as the time is.
  return local - before;
}

/** A slot's minutes after midnight. */
function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/**
 * The schedule's slot instants from `from` (exclusive) on, in order, each once; over `days`
 * days of the calendar are looked at. Empty when the schedule has no slot.
 */
export function* slotInstants(schedule: WeeklySchedule, from: Date, days: number): Generator<Date> {
  if (schedule.slots.length === 0) return;
  const byDay = WEEKDAYS.map((day) =>
    [...new Set(schedule.slots.filter((slot) => slot.day === day).map((slot) => minutesOf(slot.time)))].sort((a, b) => a - b),
  );
  const start = from.getTime();
  // The local day of `from`, as midnight written as if UTC.
  const firstDay = Math.floor(wallClock(start, schedule.timeZone) / DAY_MS) * DAY_MS;
  for (let day = 0; day < days; day++) {
    const midnight = firstDay + day * DAY_MS;
    const instants = byDay[new Date(midnight).getUTCDay()]!.map((minutes) => instantOf(midnight + minutes * 60_000, schedule.timeZone));
    // A moved slot may land beside (or after) another: each instant once, in order.
    for (const instant of [...new Set(instants)].sort((a, b) => a - b)) if (instant > start) yield new Date(instant);
  }
}
