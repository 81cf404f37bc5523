/**
 * The seed rule "a write must not be resubmitted before the current state has been read". No write
 * is retried (the upstream client never retries POST, PATCH or DELETE); when one ends in a way that
 * may or may not have applied it (timeout, connection reset, 5xx), the error says so with
 * `extensions.outcome: "UNKNOWN"` and names, in `extensions.verifyWith`, the read that tells the truth.
 */
import { GatewayError, UpstreamError } from '../errors/gateway-errors.ts';
import { codeOfUpstreamError } from '../errors/graphql-errors.ts';

/** Each hosting write → the selection that shows whether it happened. */
export const VERIFY_WITH = {
  createApp: 'apps { appId name }',
  updateApp: 'app(appId:) { name updatedAt }',
  deleteApp: 'app(appId:) { appId name }',
  uploadAppSource: 'app(appId:) { variantsWithLifecycle { variant lifecycleState } }',
  deployApp: 'app(appId:) { deployments { deployments { deploymentId status createdAt } } }',
  changeAppSecrets: 'app(appId:) { secrets { shared { name updatedAt } } }',
} as const;

export type HostingWrite = keyof typeof VERIFY_WITH;

/**
 * An unknown-outcome upstream failure becomes a GatewayError with the same code, the upstream
 * route and status, `outcome: "UNKNOWN"` and `verifyWith`; anything else passes through unchanged.
 */
export function withOutcomeHint(error: unknown, write: HostingWrite): unknown {
  if (!(error instanceof UpstreamError) || !error.outcomeUnknown) return error;
  const verifyWith = VERIFY_WITH[write];
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
