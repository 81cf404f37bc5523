/**
 * The first layer of the upstream client (`create-upstream-stack.ts`): every value that becomes a
 * path segment is checked before anything else happens (no cache lookup, no token, no call).
 * Percent-encoding keeps a value inside its segment, but an upstream or a proxy that decodes or
 * normalises paths would still act on `..` (`PATCH …/customers/..` is a write to the collection) or
 * on a decoded `/`; a 30 KB id would go upstream only to be refused there. The rule, for every
 * route: 1 to {@link MAX_PATH_PARAM_LENGTH} characters, not `.` or `..`, no control character, no
 * `/`, `\`, `?`, `#` or `%`. A refusal is BAD_USER_INPUT naming the parameter, which the domains
 * name after the argument it comes from (`appId`, `customerId` …).
 */
import { ErrorCode } from '../errors/error-codes.ts';
import { GatewayError } from '../errors/gateway-errors.ts';
import type { UpstreamCall } from './upstream-call.ts';
import type { UpstreamClient } from './upstream-call.ts';

/** Longest path parameter: a DNS name is at most 253 characters; no id of the upstream is longer. */
export const MAX_PATH_PARAM_LENGTH = 255;

// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const FORBIDDEN = /[\u0000-\u001f\u007f/\\?#%]/;

/** Why a path parameter is refused, or undefined. */
export function pathParamProblem(value: string): string | undefined {
  if (value.length === 0) return 'must not be empty';
  if (value.length > MAX_PATH_PARAM_LENGTH) {
    return `must be at most ${MAX_PATH_PARAM_LENGTH} characters (got ${value.length})`;
  }
  if (value === '.' || value === '..') return 'must not be "." or ".."';
  if (FORBIDDEN.test(value))
    return 'must not contain control characters, "/", "\\", "?", "#" or "%"';
  return undefined;
}

export function createPathParamGuard<Call extends UpstreamCall>(
  inner: UpstreamClient<Call>,
): UpstreamClient<Call> {
  return {
    request(call) {
      for (const [name, value] of Object.entries(call.params ?? {})) {
        const problem = pathParamProblem(value);
        if (problem) {
          return Promise.reject(
            new GatewayError(ErrorCode.BAD_USER_INPUT, `\`${name}\` ${problem}`, { field: name }),
          );
        }
      }
      return inner.request(call);
    },
    probe: (timeoutMs) => inner.probe(timeoutMs),
    close: () => inner.close(),
  };
}
