import { offsetAt, wallToInstant } from './zone-clock.ts';
import { UsageError } from './errors.ts';
import { givenTimeZone } from './stdio.ts';

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/** The time zone of `--tz`, checked, or the machine's own. */
export function timeZone(tz: string | undefined = givenTimeZone()): string {
  if (!tz) return Intl.DateTimeFormat().resolvedOptions().timeZone;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw new UsageError(`Unknown time zone "${tz}": use an IANA name such as Europe/Paris or UTC.`);
  }
}

/**
 * An instant from the command line, as ISO 8601 in UTC: `now`, an ISO 8601 time with its offset
 * (`2026-11-24T09:30:00Z`, `…+01:00`), or a local time (`2026-11-24 09:30`, `2026-11-24`) read in
 * the zone of `--tz` (the machine's zone without it).
 */
export function parseWhen(value: string, tz: string | undefined, now = new Date()): string {
  const text = value.trim();
  if (text.toLowerCase() === 'now') return now.toISOString();
  if (ISO_WITH_OFFSET.test(text)) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  const local = LOCAL.exec(text);
  if (local) {
    const [y, mo, d, h = '0', mi = '0', s = '0'] = local.slice(1).map((x) => x ?? undefined) as string[];
    const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    const check = new Date(wall);
    if (check.getUTCMonth() === Number(mo) - 1 && check.getUTCDate() === Number(d) && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60) {
      const zone = timeZone(tz);
      return new Date(wallToInstant(wall, zone)).toISOString();
    }
  }
  throw new UsageError(
    `Bad date "${value}": use ISO 8601 (2026-11-24T09:30:00Z, 2026-11-24T09:30:00+01:00) or a local time (2026-11-24 09:30) with --tz <zone>.`,
  );
}

/** An instant for people: `2026-11-24 09:30 Europe/Paris`, in the zone of `--tz` or the machine's. */
export function formatWhen(iso: string, tz: string | undefined): string {
  const zone = timeZone(tz);
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const shifted = new Date(ms + offsetAt(ms, zone));
  return `${shifted.toISOString().slice(0, 16).replace('T', ' ')} ${zone}`;
}

/** The local wall-clock time of an instant in the zone of `--tz` (the machine's without it), `YYYY-MM-DDTHH:MM`. */
export function localTime(iso: string, tz: string | undefined): string {
  const zone = timeZone(tz);
  const ms = Date.parse(iso);
  return new Date(ms + offsetAt(ms, zone)).toISOString().slice(0, 16);
}
