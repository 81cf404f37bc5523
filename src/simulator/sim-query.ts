/** Query-string validation shared by simulator routes; failures are 400s naming the parameter. */
import { invalidField } from './sim-errors.js';

type Query = Record<string, unknown>;

/** A digits-only integer parameter within bounds, or its default when absent. */
export function digitsParam(
  query: Query,
  name: string,
  bounds: { min: number; max?: number; fallback: number },
): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return bounds.fallback;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) {
    throw invalidField(`$.${name}`, 'INVALID_FORMAT', `${name} must contain digits only`);
  }
  const value = Number(raw);
  if (value < bounds.min || (bounds.max !== undefined && value > bounds.max)) {
    const range =
      bounds.max === undefined ? `at least ${bounds.min}` : `${bounds.min} to ${bounds.max}`;
    throw invalidField(`$.${name}`, 'OUT_OF_RANGE', `${name} must be ${range}`);
  }
  return value;
}

/** A parameter restricted to a value set, or its default when absent. */
export function enumParam<T extends string>(
  query: Query,
  name: string,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !allowed.includes(raw as T)) {
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
  const raw = query[name];
  if (typeof raw !== 'string' || raw === '') {
    throw invalidField(`$.${name}`, 'REQUIRED', `${name} is required`);
  }
  return raw;
}
