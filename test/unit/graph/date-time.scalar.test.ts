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

  it('writes plain UTC date-times as a Date would, calendar edges included', () => {
    const values: string[] = [];
    for (const year of ['0000', '1900', '1970', '2000', '2023', '2024', '2100', '9999']) {
      for (const month of ['00', '01', '02', '04', '06', '09', '11', '12', '13']) {
        for (const day of ['00', '01', '28', '29', '30', '31', '32']) {
          for (const time of [
            '00:00:00',
            '23:59:59',
            '23:59:60',
            '24:00:00',
            '12:60:00',
            '07:08:09',
          ]) {
            values.push(`${year}-${month}-${day}T${time}Z`, `${year}-${month}-${day}T${time}.250Z`);
          }
        }
      }
    }
    for (const value of values) {
      let before: string;
      try {
        before = textBefore(value);
      } catch {
        expect(() => DateTimeScalar.serialize(value), value).toThrow(GraphQLError);
        continue;
      }
      expect(JSON.stringify(DateTimeScalar.serialize(value)), value).toBe(before);
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
