/**
 * Validation helpers shared by the hosting routes. Every problem of one request is collected and
 * reported at once as a 400 envelope whose `fields` carry JSONPaths into the request (`$.name`,
 * `$.lines`, `$.operations.additions[0].value`). Field codes: REQUIRED, INVALID_TYPE, INVALID_FORMAT,
 * INVALID_VALUE, OUT_OF_RANGE, TOO_SHORT, TOO_LONG. Messages never quote submitted values.
 */
import { SimError, type SimFieldError } from '../../sim-errors.ts';

export type FieldLocation = 'body' | 'query';

export class FieldErrors {
  private readonly list: SimFieldError[] = [];

  private readonly location: FieldLocation;

  constructor(location: FieldLocation) {
    this.location = location;
  }

  add(path: string, code: string, message: string): void {
    this.list.push({ path, code, message });
  }

  get count(): number {
    return this.list.length;
  }

  /**
   * Throws the collected problems as one 400: `INVALID_BODY` when a required body field is missing,
   * `INVALID_FORMAT` otherwise (query parameters, wrong types, formats and ranges).
   */
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const missingBody =
      this.location === 'body' && this.list.some((field) => field.code === 'REQUIRED');
    const code = missingBody ? 'INVALID_BODY' : 'INVALID_FORMAT';
    const message =
      this.list.length === 1
        ? (this.list[0]?.message ?? 'invalid request')
        : `${this.list.length} request fields are invalid`;
    throw new SimError(400, code, message, [...this.list]);
  }
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The request body as an object (absent or non-object bodies read as `{}`). */
export const bodyObject = (body: unknown): Record<string, unknown> => (isRecord(body) ? body : {});

/**
 * One query parameter: `undefined` when absent, the string when given once; a repeated parameter is
 * reported as INVALID_FORMAT and read as absent.
 */
export function queryParam(query: unknown, name: string, errors: FieldErrors): string | undefined {
  const value = isRecord(query) ? query[name] : undefined;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    errors.add(`$.${name}`, 'INVALID_FORMAT', `${name} must be given once`);
    return undefined;
  }
  return value;
}

/** A required query parameter; empty counts as missing. */
export function requiredQueryParam(
  query: unknown,
  name: string,
  errors: FieldErrors,
): string | undefined {
  const raw = isRecord(query) ? query[name] : undefined;
  if (raw === undefined || raw === '') {
    errors.add(`$.${name}`, 'REQUIRED', `${name} is required`);
    return undefined;
  }
  return queryParam(query, name, errors);
}

/** An optional integer query parameter written in digits only, within [min, max]. */
export function boundedInteger(
  query: unknown,
  name: string,
  bounds: { min: number; max: number; fallback: number },
  errors: FieldErrors,
): number {
  const raw = queryParam(query, name, errors);
  if (raw === undefined) return bounds.fallback;
  const message = `${name} must be an integer from ${bounds.min} to ${bounds.max}`;
  if (!/^\d{1,6}$/.test(raw)) {
    errors.add(`$.${name}`, 'INVALID_FORMAT', message);
    return bounds.fallback;
  }
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    errors.add(`$.${name}`, 'OUT_OF_RANGE', message);
    return bounds.fallback;
  }
  return value;
}

/** One of a fixed set of values; `undefined` when absent or invalid (the error is recorded). */
export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  path: string,
  errors: FieldErrors,
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  errors.add(path, 'INVALID_VALUE', `${path.slice(2)} must be one of ${allowed.join(', ')}`);
  return undefined;
}
