/**
 * The parts of an incremental (`@defer`, `@stream`) answer as the other plugins see them. Apollo Server calls
 * `willSendResponse` once, when the first part is ready; what concerns the whole operation — the
 * ledger, the log line's errors and duration, the metrics and the trace span — must wait for the
 * last part instead. A plugin hands its end-of-operation work to {@link followDeferredParts}, which
 * wraps the parts still to come: Apollo writes each part as the wrapper yields it, so work done on
 * the last part (extensions added to it) reaches the client.
 */
import type {
  GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha2,
  GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha9,
  GraphQLResponse,
} from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';

/**
 * One part after the first, in either format Weft writes: `deferSpec=20220824` (`incremental`
 * entries with their `path`) or `incrementalSpec=v0.2` (`pending`, `incremental` entries with an
 * `id`, `completed`); both end with `hasNext: false`.
 */
export type DeferredPart =
  | GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha2
  | GraphQLExperimentalFormattedSubsequentIncrementalExecutionResultAlpha9;

export interface DeferredPartsFollower {
  /** Each part after the first, before it is written. */
  readonly part?: (part: DeferredPart) => void;
  /**
   * Once: on the last part before it is written (it may add to `extensions`), or, when the stream
   * ends without one (the client went away, the execution failed), with undefined.
   */
  readonly end: (last: DeferredPart | undefined) => Promise<void> | void;
}

/**
 * When the answer comes in parts, runs `follower` over the parts still to come and returns true;
 * returns false for a single answer (the caller does its usual work).
 */
export function followDeferredParts(
  response: Pick<GraphQLResponse, 'body'>,
  follower: DeferredPartsFollower,
): boolean {
  const body = response.body;
  if (body.kind !== 'incremental') return false;
  const parts = body.subsequentResults as AsyncIterable<DeferredPart>;
  body.subsequentResults = (async function* () {
    let ended = false;
    try {
      for await (const part of parts) {
        follower.part?.(part);
        if (!part.hasNext) {
          ended = true;
          await follower.end(part);
        }
        yield part;
      }
    } finally {
      if (!ended) await follower.end(undefined);
    }
  })() as typeof body.subsequentResults;
  return true;
}

/**
 * The errors one part carries: each fragment's or list's own, in its `incremental` entry, or (in
 * the v0.2 format) in its `completed` entry when it failed as a whole.
 */
export function errorsOfPart(part: DeferredPart): readonly GraphQLFormattedError[] {
  const errors: GraphQLFormattedError[] = [];
  for (const entry of part.incremental ?? []) if (entry.errors) errors.push(...entry.errors);
  if ('completed' in part) {
    for (const entry of part.completed ?? []) if (entry.errors) errors.push(...entry.errors);
  }
  return errors;
}
