import type { RRule as RRuleType } from 'rrule';
import { BadRequestError } from '../errors.ts';
import { instantOf, wallClock, type Weekday } from '../schedules/slots.ts';

/**
 * A series' rule: an RFC 5545 RRULE read by the `rrule` library, in "floating" time (the rule's
 * dates are wall-clock times, written as if UTC), each turned into an instant in the series' time
 * zone by `instantOf`. So a daylight-saving change never moves the local time: 09:00 stays 09:00.
 * A local time that does not exist that day (clocks spring forward over it) moves forward by the
 * gap; one that occurs twice (clocks fall back) is the first, as for posting schedules.
 */

const DAY_MS = 86_400_000;
const BYDAY: Record<Weekday, string> = {
  monday: 'MO',
  tuesday: 'TU',
  wednesday: 'WE',
  thursday: 'TH',
  friday: 'FR',
  saturday: 'SA',
  sunday: 'SU',
};
/** Parts a rule may not carry: its start and zone are the series' own, and its end is `count` or `until`. */
const FORBIDDEN_PARTS = ['DTSTART', 'TZID', 'UNTIL', 'COUNT'];
/** Rules more frequent than hourly would write a post a minute. */
const TOO_FREQUENT = ['SECONDLY', 'MINUTELY'];

type RRuleModule = typeof import('rrule');
let loaded: Promise<RRuleModule> | null = null;

/** The `rrule` library, loaded on first use (a CommonJS module: its exports may sit on `default`). */
function rruleModule(): Promise<RRuleModule> {
  loaded ??= import('rrule').then((mod) => ((mod as unknown as { default?: RRuleModule }).default ?? mod) as RRuleModule);
  return loaded;
}

/** How a series repeats, as the API takes it. */
export type RepeatInput = {
  frequency: 'daily' | 'weekly' | 'monthly' | 'rrule';
  interval?: number | undefined;
  days?: Weekday[] | undefined;
  monthDay?: number | undefined;
  rrule?: string | undefined;
  timeZone: string;
  start: string;
  count?: number | undefined;
  until?: string | undefined;
};

/** The RRULE line (without DTSTART) that `repeat` stands for. */
export function ruleLine(repeat: RepeatInput): string {
  const interval = repeat.interval && repeat.interval > 1 ? `;INTERVAL=${repeat.interval}` : '';
  const count = repeat.count !== undefined ? `;COUNT=${repeat.count}` : '';
  switch (repeat.frequency) {
    case 'daily':
      return `FREQ=DAILY${interval}${count}`;
    case 'weekly': {
      const days = repeat.days?.length ? `;BYDAY=${[...new Set(repeat.days)].map((day) => BYDAY[day]).join(',')}` : '';
      return `FREQ=WEEKLY${interval}${days}${count}`;
    }
    case 'monthly':
      return `FREQ=MONTHLY${interval}${repeat.monthDay !== undefined ? `;BYMONTHDAY=${repeat.monthDay}` : ''}${count}`;
    case 'rrule': {
      const line = (repeat.rrule ?? '').trim().replace(/^RRULE:/i, '');
      const parts = line.split(';').map((part) => part.split('=')[0]!.toUpperCase());
      const forbidden = parts.find((part) => FORBIDDEN_PARTS.includes(part));
      if (forbidden)
        throw new BadRequestError(
          `repeat.rrule: ${forbidden} is not taken inside the rule; give the first occurrence as repeat.start, the zone as repeat.timeZone and the end as repeat.count or repeat.until.`,
          { code: 'invalid_rule' },
        );
      return `${line}${count}`;
    }
  }
}

/** `YYYY-MM-DDTHH:MM[:SS]` as milliseconds of a wall clock written as if UTC. */
export function localMs(local: string): number {
  return Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
}

/** A series' rule, ready to give its instants. */
export type Recurrence = {
  /** The rule's instants in (`after`, `until`], earliest first, at most `limit`. */
  between(after: Date, until: Date, limit: number): Date[];
  /** The first instant after `after`, or null when the rule has ended. */
  next(after: Date): Date | null;
};

/** Builds the recurrence of a stored rule; a rule the library cannot read is a 400 naming `repeat.rrule`. */
export async function recurrence(rule: string, startsLocal: string, timeZone: string, until: string | null): Promise<Recurrence> {
  const { rrulestr, RRule } = await rruleModule();
  let parsed: RRuleType;
  try {
    parsed = rrulestr(rule, { dtstart: new Date(localMs(startsLocal)) }) as RRuleType;
  } catch (error) {
    throw new BadRequestError(`repeat.rrule: "${rule}" is not an RFC 5545 RRULE (${(error as Error).message}).`, { code: 'invalid_rule' });
  }
  if (!(parsed instanceof RRule) || Number.isNaN(parsed.options.freq))
    throw new BadRequestError(`repeat.rrule: "${rule}" is not one RRULE.`, { code: 'invalid_rule' });
  const freq = RRule.FREQUENCIES[parsed.options.freq];
  if (freq === undefined || TOO_FREQUENT.includes(freq))
    throw new BadRequestError(`repeat.rrule: FREQ=${freq ?? '?'} repeats too often; a series repeats at most hourly.`, {
      code: 'invalid_rule',
    });
  const end = until === null ? Number.POSITIVE_INFINITY : Date.parse(until);
  const instant = (wall: Date) => new Date(instantOf(wall.getTime(), timeZone));
  const between = (after: Date, to: Date, limit: number): Date[] => {
    const last = Math.min(to.getTime(), end);
    if (last <= after.getTime()) return [];
    // Wall-clock bounds a day wider than the instants' (no zone is more than a day from UTC).
    const from = new Date(wallClock(after.getTime(), timeZone) - DAY_MS);
    const toWall = new Date(wallClock(last, timeZone) + DAY_MS);
    const out: Date[] = [];
    parsed.between(from, toWall, true, (wall) => {
      const at = instant(wall);
      if (at.getTime() > after.getTime() && at.getTime() <= last && out.at(-1)?.getTime() !== at.getTime()) out.push(at);
      return out.length < limit;
    });
    return out;
  };
  return {
    between,
    next(after) {
      const wall = parsed.after(new Date(wallClock(after.getTime(), timeZone) - DAY_MS), true);
      // Look a little further than one: the day's margin may hold instants before `after`.
      for (let probe = wall; probe; probe = parsed.after(probe, false)) {
        const at = instant(probe);
        if (at.getTime() > end) return null;
        if (at.getTime() > after.getTime()) return at;
      }
      return null;
    },
  };
}
