/**
 * The one content negotiation of the GraphQL route, with `negotiator` (the library Apollo Server
 * negotiates with, so both read an `Accept` header the same way: q-values, specificity, then the
 * client's order). Three questions are asked of it:
 * - whether the client accepts a JSON answer at all (else 406 before anything runs), and which JSON
 *   type an answer the gateway writes itself (a refusal, a replay) goes out as;
 * - whether a GET is a browser asking for the explorer page;
 * - whether a subscription asked for an event stream (a query or a mutation never becomes one).
 */
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';

export const APPLICATION_JSON = 'application/json';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const EVENT_STREAM = 'text/event-stream';
const HTML = 'text/html';

type Headers = { readonly accept?: string | undefined };

/** What one `Accept` value answers to each question below. */
interface Negotiated {
  /** The preferred JSON type, or undefined when neither is acceptable. */
  readonly json: string | undefined;
  readonly prefersHtml: boolean;
  readonly prefersEventStream: boolean;
  readonly asksForEventStream: boolean;
}

/**
 * Answers by `Accept` value: clients send the same few values on every request, and negotiating one
 * (parsing q-values, sorting) was a visible share of a replayed answer's cost. Bounded, since a
 * client may send any text.
 */
const answers = new LRUCache<string, Negotiated>({ max: 256 });

/** No Accept header accepts anything, and prefers plain JSON. */
const NO_ACCEPT: Negotiated = {
  json: APPLICATION_JSON,
  prefersHtml: false,
  prefersEventStream: false,
  asksForEventStream: false,
};

function negotiated(headers: Headers): Negotiated {
  const accept = headers.accept;
  if (accept === undefined) return NO_ACCEPT;
  const known = answers.get(accept);
  if (known) return known;
  // JSON offered first so that on a full tie (`*/*`) plain JSON wins, as in Apollo.
  const negotiator = new Negotiator({ headers: { accept } });
  const answer: Negotiated = {
    json: negotiator.mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]),
    prefersHtml: negotiator.mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, HTML]) === HTML,
    prefersEventStream:
      negotiator.mediaType([APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, EVENT_STREAM]) ===
      EVENT_STREAM,
    asksForEventStream: negotiator.mediaTypes().includes(EVENT_STREAM),
  };
  answers.set(accept, answer);
  return answer;
}

/** The content type of a JSON answer: the GraphQL response type when the client prefers it. */
export function jsonResponseType(headers: Headers): string {
  return negotiated(headers).json === GRAPHQL_RESPONSE_JSON
    ? `${GRAPHQL_RESPONSE_JSON}; charset=utf-8`
    : `${APPLICATION_JSON}; charset=utf-8`;
}

/** The client accepts one of the two JSON types (no Accept header accepts anything). */
export function acceptsJson(headers: Headers): boolean {
  return negotiated(headers).json !== undefined;
}

/** A browser's page load: HTML preferred to both GraphQL response types. */
export function prefersHtml(headers: Headers): boolean {
  return negotiated(headers).prefersHtml;
}

/** The client would rather have an event stream than JSON (a graphql-sse client, not urql). */
export function prefersEventStream(headers: Headers): boolean {
  return negotiated(headers).prefersEventStream;
}

/**
 * The client names `text/event-stream` with q > 0 (a wildcard is not asking for a stream). Only a
 * subscription is then served as one.
 */
export function asksForEventStream(headers: Headers): boolean {
  return negotiated(headers).asksForEventStream;
}
