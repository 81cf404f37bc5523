/**
 * The seed rule "a write must not be resubmitted before the current state has been read", for every
 * domain's mutations. No write is retried (the upstream client never retries POST, PATCH or
 * DELETE); when one ends in a way that may or may not have applied it (timeout, connection reset or
 * cut, 5xx), the error says so with `extensions.outcome: "UNKNOWN"` and names, in
 * `extensions.verifyWith`, the read that tells the truth. Each domain lists its writes' reads.
 */
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import { codeOfUpstreamError } from '../errors/graphql-errors.ts';

/**
 * An unknown-outcome upstream failure of `write` becomes a GatewayError with the same code, the
 * upstream route and status, `outcome: "UNKNOWN"` and `verifyWith`; anything else passes through
 * unchanged (a write refused before it left was not applied, and says nothing of an outcome).
 */
export function withOutcomeHint(error: unknown, write: string, verifyWith: string): unknown {
  if (!(error instanceof UpstreamError) || !error.outcomeUnknown) return error;
  const what =
    error.kind === 'http'
      ? `answered ${error.status}`
      : error.kind === 'timeout'
        ? 'timed out'
        : 'failed';
  return new GatewayError(
    codeOfUpstreamError(error),
    `${write}: the upstream ${what}, so the change may or may not have been applied. ` +
      `Read \`${verifyWith}\` before sending it again.`,
    {
      outcome: 'UNKNOWN',
      verifyWith,
      upstream: {
        route: error.route,
        ...(error.status === undefined ? {} : { status: error.status }),
        ...(error.upstreamCode === undefined ? {} : { code: error.upstreamCode }),
      },
    },
  );
}
