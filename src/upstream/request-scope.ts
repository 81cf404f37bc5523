/**
 * What an upstream call knows of the GraphQL request it serves: the caller's credential and the
 * request id. Domain APIs receive one per request and pass it on every call, so the upstream layer
 * can report back per request (e.g. a value served stale, budget spent) without the domains knowing.
 */
import { requireCredential } from './require-credential.ts';
import type { Credential } from './credential.ts';
import type { RequestFacts } from './request-facts.ts';
import type { Span } from '@opentelemetry/api';

/**
 * Who is waiting on a request's calls: a user (its writes and reads), background work (polling),
 * or the explorer. Each call's priority follows from it (`call-priority.ts`).
 */
export type RequestPriority = 'user' | 'background' | 'explorer';

/** The request's trace span, set once the operation is known (only when tracing is on). */
export interface TraceHolder {
  span: Span | undefined;
}

export interface RequestScope {
  /** Absent when the request carried no (well-formed) bearer token. */
  readonly credential: Credential | undefined;
  readonly requestId: string;
  /** Where the upstream layer reports budget spent and values served stale for this request. */
  readonly facts?: RequestFacts;
  /** Parent span for upstream call spans (tracing on). */
  readonly trace?: TraceHolder;
  /** Who is waiting on the calls (`call-priority.ts`); absent: a user. */
  readonly priority?: RequestPriority;
  /**
   * The client's address (as the server resolves it, proxies included): a token the upstream has
   * never answered gets room per address (`unproven-gate.ts`).
   */
  readonly clientAddress?: string;
  /**
   * Aborts when the client goes away before its answer is written (it closed the connection, its
   * subscription ended): its reads not sent upstream yet are dropped (`call-interest.ts`).
   */
  readonly gone?: AbortSignal | undefined;
}

/** The `credential` and `scope` members of an {@link UpstreamCall}; UNAUTHENTICATED without a token. */
export const callerOf = (scope: RequestScope): { credential: Credential; scope: RequestScope } => ({
  credential: requireCredential(scope.credential),
  scope,
});
