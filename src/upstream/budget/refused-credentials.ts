/**
 * Credentials the upstream has just refused (401: missing, malformed, expired or revoked token) are
 * remembered for {@link REFUSED_CREDENTIAL_MS}, by their HMAC id only, and refused locally: their
 * calls take nothing from the shared route-class buckets (the per-IP limits every tenant shares),
 * the credential's budget, a socket or a circuit. A route whose 401 is about one resource rather
 * than the token (`resourceScoped401`, e.g. a channel the token may not read) does not count.
 */
import { LRUCache } from 'lru-cache';
import { entryBound } from '../entry-bound.ts';
import { ErrorCode } from '../../errors/error-codes.ts';
import { GatewayError } from '../../errors/gateway-errors.ts';
import type { Transport } from '../transport.ts';
import type { RoutedCall } from '../upstream-routes.ts';

/** How long a refused token is refused locally: long enough to stop a flood, short enough for a fix. */
export const REFUSED_CREDENTIAL_MS = 30_000;

/** The refusal of a token the upstream has just refused (here, or in `unproven-gate.ts`). */
export const refusedTokenError = (retryAfterSec: number): GatewayError =>
  new GatewayError(
    ErrorCode.UNAUTHENTICATED,
    'The upstream refused this token moments ago (missing, malformed, expired or revoked); re-authenticate.',
    { retryAfterSec },
  );

export function createRefusedCredentialTransport(
  inner: Transport<RoutedCall>,
  now: () => number = Date.now,
): Transport<RoutedCall> {
  /** Credential HMAC id → until when it is refused locally. */
  const refused = new LRUCache<string, number>(entryBound(100_000));
  return {
    async send(call, signal, deadlineAt) {
      const until = refused.get(call.credential.id);
      if (until !== undefined && until > now()) {
        throw refusedTokenError(Math.max(1, Math.ceil((until - now()) / 1000)));
      }
      const response = await inner.send(call, signal, deadlineAt);
      if (response.status === 401 && !call.declared?.resourceScoped401) {
        refused.set(call.credential.id, now() + REFUSED_CREDENTIAL_MS);
      } else if (response.status < 400 && until !== undefined) {
        refused.delete(call.credential.id);
      }
      return response;
    },
    probe: (signal) => inner.probe(signal),
    close: () => inner.close(),
  };
}
