import { GraphQLError, Kind, type GraphQLScalarType } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { describe, expect, it } from 'vitest';
import { buildGatewaySchema } from '../../../src/graph/build-schema.ts';
import { DateTimeScalar } from '../../../src/graph/date-time.scalar.ts';

/** What the answer carried when the scalar serialized to a Date (JSON.stringify → toJSON). */
const textBefore = (value: unknown) => JSON.stringify(DateTimeResolver.serialize(value));

describe('DateTime scalar', () => {
  it('is the scalar the gateway serves', async () => {
    const served = (await buildGatewaySchema()).getType('DateTime') as GraphQLScalarType;
    expect(served.serialize('2026-10-30T22:12:15Z')).toBe('2026-10-30T22:12:15.000Z');
  });

  it('serializes to a string, byte for byte the text a Date was encoded as', () => {
    for (const value of [
      '2026-10-30T22:12:15Z',
      '2026-10-30T22:12:15.123456Z',
      '2026-10-31T00:12:15+02:00',
      '2024-02-29T23:59:59.9Z',
      new Date(Date.UTC(2030, 8, 1, 12)),
      1_788_000_000_000,
    ]) {
      const serialized = DateTimeScalar.serialize(value);
      expect(typeof serialized).toBe('string');
      expect(JSON.stringify(serialized)).toBe(textBefore(value));
    }
  });

  it('keeps graphql-scalars’ refusals', () => {
    for (const value of ['2026-02-30T00:00:00Z', 'yesterday', new Date(Number.NaN), true, {}]) {
      expect(() => DateTimeScalar.serialize(value)).toThrow(GraphQLError);
    }
  });

  it('reads arguments as graphql-scalars does', () => {
    expect(DateTimeScalar.parseValue('2026-10-30T22:12:15Z')).toEqual(
      new Date('2026-10-30T22:12:15Z'),
    );
    expect(
      DateTimeScalar.parseLiteral({ kind: Kind.STRING, value: '2026-10-30T22:12:15Z' }),
    ).toEqual(new Date('2026-10-30T22:12:15Z'));
    expect(() => DateTimeScalar.parseValue('2026-13-01T00:00:00Z')).toThrow(GraphQLError);
    expect(DateTimeScalar.description).toBe(DateTimeResolver.description);
  });
});
