/**
 * Opaque global ids for `Node`: base64url of `[typename, ...parts]`. The parts are whatever the
 * upstream needs to fetch the object again (e.g. customer and certificate ids).
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import { badInput } from './bad-input.ts';

export const encodeGlobalId = (typename: string, ...parts: string[]): string =>
  Buffer.from(JSON.stringify([typename, ...parts])).toString('base64url');

export function decodeGlobalId(id: string): { typename: string; parts: string[] } {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(id, 'base64url').toString('utf8'));
    if (
      Array.isArray(decoded) &&
      decoded.length >= 2 &&
      decoded.every((part) => typeof part === 'string' && part !== '')
    ) {
      const [typename, ...parts] = decoded as string[];
      return { typename: typename!, parts };
    }
  } catch {
    // fall through to the error below
  }
  throw badInput('id', 'Malformed global id: pass an `id` this graph returned');
}

/**
 * One part of a decoded global id, checked by the check of the argument it stands for (`storeId` …):
 * `node(id:)` refuses what the type's own field would refuse, before any upstream call, naming `id`
 * — the argument the client passed.
 */
export function checkedIdPart<T>(
  typename: string,
  name: string,
  part: string,
  check: (value: string, field: string) => T,
): T {
  try {
    return check(part, name);
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== ErrorCode.BAD_USER_INPUT) throw error;
    throw badInput('id', `\`id\` is not a ${typename} id this graph returned: ${error.message}`);
  }
}
