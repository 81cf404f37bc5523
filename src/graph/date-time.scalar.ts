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
 */
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver } from './graphql-scalars.ts';

export const DateTimeScalar = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  serialize: (value) => (DateTimeResolver.serialize(value) as Date).toISOString(),
});
