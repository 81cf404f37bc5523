/**
 * The `DateTime` scalar: graphql-scalars' own checks and parsing (RFC 3339, a real instant, numbers
 * as Unix milliseconds), serialized as the text the answer carries — the UTC ISO string with
 * milliseconds, `2026-10-30T22:12:15.000Z`.
 *
 * graphql-scalars serializes to a `Date` object, which `JSON.stringify` turns into that same text
 * through `Date.prototype.toJSON`. But a result holding objects with `toJSON` cannot take V8's fast
 * JSON serializer: one date anywhere sends the whole answer down the slow path (docs/performance.md
 * "Decisions"). A string keeps every answer plain JSON data (responses, the
 * response cache, graphql-ws and SSE alike), byte for byte what was sent before.
 *
 * The upstreams' usual form, whole seconds (or milliseconds) in UTC, is written out directly once
 * its calendar is checked: graphql-scalars' way (three patterns, `Date.parse`, a `Date`, its ISO
 * string) cost more than the rest of a transaction's fields. Anything else takes that way.
 */
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver } from './graphql-scalars.ts';

/** UTC, whole seconds or milliseconds, upper-case `T` and `Z`: the ISO string is the text itself. */
const PLAIN_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{3})?Z$/;

const leapYear = (year: number): boolean =>
  (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The ISO string of a plain UTC date-time of a real instant; undefined for any other value. */
function plainIso(value: string): string | undefined {
  const match = PLAIN_UTC.exec(value);
  if (!match) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  // A leap second (60) rolls over in a Date: the general way writes what it becomes.
  if (month < 1 || month > 12 || day < 1) return undefined;
  if (Number(match[4]) > 23 || Number(match[5]) > 59 || Number(match[6]) > 59) return undefined;
  const days = month === 2 && leapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day > days) return undefined;
  return match[7] === undefined ? `${value.slice(0, 19)}.000Z` : value;
}

export const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  serialize: (value) =>
    (typeof value === 'string' ? plainIso(value) : undefined) ??
    (DateTimeResolver.serialize(value) as Date).toISOString(),
});
