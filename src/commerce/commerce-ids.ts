/** Checks of the ids commerce arguments take, made before any upstream call. */
import { badInput } from '../kit/bad-input.ts';
import { checkUuid } from '../kit/id-checks.ts';

/** Customer ids: the document shows no format; anything safe in a path segment. */
const ID_TEXT = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A non-empty id without characters that would change the upstream path (`.` and `..` are refused
 * here too, and again by the upstream's path-parameter check for every route).
 */
export function checkTextId(value: string, field: string): string {
  const id = value.trim();
  if (!ID_TEXT.test(id) || id === '.' || id === '..') {
    throw badInput(field, `\`${field}\` is not a valid id`);
  }
  return id;
}

/** A channel id is a uuid (document: a transaction's `context.channelId`, "string uuid"). */
export const checkChannelId = (value: string, field = 'channelId'): string =>
  checkUuid(value, field, 'a channel id');

/** A transaction id is a uuid (document: path parameter, and the `transactionIds` filter). */
export const checkTransactionId = (value: string, field = 'transactionId'): string =>
  checkUuid(value, field, 'a transaction id');
