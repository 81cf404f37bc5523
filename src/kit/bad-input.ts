/**
 * The one refusal of a client's argument or input, made before any upstream call: `BAD_USER_INPUT`
 * with `field` naming the argument (or input member) at fault.
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';

export const badInput = (field: string, message: string): GatewayError =>
  new GatewayError(ErrorCode.BAD_USER_INPUT, message, { field });
