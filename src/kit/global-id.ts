/**
 * Opaque global ids for `Node`: base64url of `[typename, ...parts]`. The parts are whatever the
 * upstream needs to fetch the object again (e.g. customer and certificate ids).
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

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
  throw new GatewayError(
    ErrorCode.BAD_USER_INPUT,
    'Malformed global id: pass an `id` this graph returned',
    {
      field: 'id',
    },
  );
}
