/**
 * Checks of ids that become part of an upstream path, made before any upstream call: a bad id is
 * `BAD_USER_INPUT` naming the argument and costs nothing upstream.
 */
import { badInput } from './bad-input.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

/** An id argument: non-empty after trimming (passed on as the client wrote it). */
export function requireId(value: string, field: string): string {
  if (value.trim() === '') throw badInput(field, `\`${field}\` must not be empty`);
  return value;
}

/** A uuid-shaped id (`what` names it in the message: "a store id"), lower-cased. */
export function checkUuid(value: string, field: string, what: string): string {
  const id = value.trim();
  if (!isUuid(id)) throw badInput(field, `\`${field}\` must be ${what} (a uuid)`);
  return id.toLowerCase();
}

/** Store ids are uuids (commerce document, path parameter `storeId`); commerce and stitching check them. */
export const checkStoreId = (value: string, field = 'storeId'): string =>
  checkUuid(value, field, 'a store id');
