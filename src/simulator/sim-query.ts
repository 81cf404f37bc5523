/** Query-string validation shared by simulator routes; failures are 400s naming the parameter. */
import { invalidField } from './sim-errors.ts';

/** Fastify's parsed query string: repeated keys become arrays. */
export type Query = Record<string, string | string[] | undefined>;

/** A query parameter given at most once (a repeated one is 400); `''` counts as absent. */
export function singleQuery(query: Query, name: string, path = `$.${name}`): string | undefined {
  const raw = query[name];
  if (Array.isArray(raw)) {
    throw invalidField(path, 'INVALID_FORMAT', `${name} must be given at most once`);
  }
  return raw === undefined || raw === '' ? undefined : raw;
}

/** A given parameter's value, `''` included (`?limit=` is given, and is not digits). */
function givenQuery(query: Query, name: string): string | undefined {
  singleQuery(query, name);
  const raw = query[name];
  return typeof raw === 'string' ? raw : undefined;
}

/**
 * A digits-only integer parameter within bounds, or the fallback when absent. Given empty
 * (`?limit=`) it is refused: an empty value is not digits.
 */
export function intQuery(
  query: Query,
  name: string,
  bounds: { min: number; max?: number; fallback: number },
): number {
  const raw = givenQuery(query, name);
  if (raw === undefined) return bounds.fallback;
  if (!/^\d{1,15}$/.test(raw)) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must be an integer (digits only)`);
  }
  const value = Number(raw);
  if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    const range =
      bounds.max === undefined
        ? `at least ${bounds.min}`
        : `between ${bounds.min} and ${bounds.max}`;
    throw invalidField(`$.${name}`, 'OUT_OF_RANGE', `${name} must be ${range}`);
  }
  return value;
}

/** A parameter restricted to a value set, or its default when absent (given empty: refused). */
export function enumParam<T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = givenQuery(query, name);
  if (raw === undefined) return fallback;
  if (!allowed.includes(raw as T)) {
    throw invalidField(
      `$.${name}`,
      'INVALID_VALUE',
      `${name} must be one of ${allowed.join(', ')}`,
    );
  }
  return raw as T;
}

/** A required string parameter. */
export function requiredParam(query: Query, name: string): string {
  const raw = singleQuery(query, name);
  if (raw === undefined) throw invalidField(`$.${name}`, 'REQUIRED', `${name} is required`);
  return raw;
}

/**
 * Parameters an operation does not take and must not be silently ignored: the commerce document's
 * "v2 list endpoints … accept neither limit nor marker". 400 `INVALID_FORMAT`, field code
 * `NOT_ACCEPTED`, naming the first one given.
 */
export function refuseParams(query: Query, names: readonly string[], why: string): void {
  for (const name of names) {
    if (query[name] !== undefined) {
      throw invalidField(`$.${name}`, 'NOT_ACCEPTED', `${name} is not accepted: ${why}`);
    }
  }
}

/** The largest int32, the bound of parameters typed "integer (int32)". */
export const INT32_MAX = 2_147_483_647;
