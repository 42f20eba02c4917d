import { BadRequestError } from '../errors.ts';

/**
 * A date range as the API takes it (`startDate`, `endDate`, already valid ISO 8601 by the schema):
 * the end not before the start, at most one year long. The same rule for the calendar and the
 * statistics, so a client that reads both asks the same way.
 */
export function dateWindow(query: { startDate: string; endDate: string }): { start: string; end: string } {
  const start = new Date(query.startDate);
  const end = new Date(query.endDate);
  if (end.getTime() < start.getTime()) throw new BadRequestError('endDate is before startDate.');
  const yearLater = new Date(start);
  yearLater.setUTCFullYear(yearLater.getUTCFullYear() + 1);
  if (end.getTime() > yearLater.getTime())
    throw new BadRequestError('The window from startDate to endDate is longer than one year; ask for a shorter one.');
  return { start: start.toISOString(), end: end.toISOString() };
}
