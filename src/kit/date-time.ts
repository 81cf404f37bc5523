/**
 * RFC 3339 date-times as the upstream documents them, checked against the calendar: the pattern
 * alone lets `2026-02-30T00:00:00Z` through, and `Date.parse` quietly rolls it over to 2 March — a
 * filter the client did not mean, sent upstream. A leap second (`:60`) is allowed only at 23:59.
 */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  // Day 0 of the next month is the last day of this one (months are 0-based in Date.UTC).
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** True when `value` is an RFC 3339 date-time naming a real instant of the calendar. */
export function isCalendarDateTime(value: string): boolean {
  const match = RFC3339.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (second === 60 && (hour !== 23 || minute !== 59)) return false;
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  return offsetHours <= 23 && offsetMinutes <= 59;
}
