import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import type { Credential } from './credential.ts';

/**
 * Every upstream operation needs the caller's bearer token. Without one the gateway answers
 * UNAUTHENTICATED itself: the upstream would say 401 anyway, and the call would cost a request.
 */
export function requireCredential(credential: Credential | undefined): Credential {
  if (!credential) {
    throw new GatewayError(
      ErrorCode.UNAUTHENTICATED,
      'Send the provider access token as `Authorization: Bearer <token>`',
    );
  }
  return credential;
}
