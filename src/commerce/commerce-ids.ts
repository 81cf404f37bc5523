/** Checks of the ids commerce arguments take, made before any upstream call. */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

/** Channel and customer ids: the document shows no format; anything safe in a path segment. */
const ID_TEXT = /^[A-Za-z0-9._:-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A non-empty id without characters that would change the upstream path. */
export function checkTextId(value: string, field: string): string {
  const id = value.trim();
  if (!ID_TEXT.test(id)) {
    throw new GatewayError(ErrorCode.BAD_USER_INPUT, `\`${field}\` is not a valid id`, { field });
  }
  return id;
}

/** A transaction id is a uuid (document: path parameter, and the `transactionIds` filter). */
export function checkTransactionId(value: string, field = 'transactionId'): string {
  const id = value.trim();
  if (!UUID.test(id)) {
    throw new GatewayError(
      ErrorCode.BAD_USER_INPUT,
      `\`${field}\` must be a transaction id (a uuid)`,
      { field },
    );
  }
  return id.toLowerCase();
}
