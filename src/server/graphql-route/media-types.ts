/**
 * The one content negotiation of the GraphQL route, with `negotiator` (the library Apollo Server
 * negotiates with, so both read an `Accept` header the same way: q-values, specificity, then the
 * client's order). Three questions are asked of it:
 * - whether the client accepts a JSON answer at all (else 406 before anything runs), and which JSON
 *   type an answer the gateway writes itself (a refusal, a replay) goes out as;
 * - whether a GET is a browser asking for the explorer page;
 * - whether a subscription asked for an event stream (a query or a mutation never becomes one).
 */
import Negotiator from 'negotiator';

export const APPLICATION_JSON = 'application/json';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const EVENT_STREAM = 'text/event-stream';
const HTML = 'text/html';

type Headers = { readonly accept?: string | undefined };

const negotiate = (headers: Headers, offered: readonly string[]): string | undefined =>
  // Offered in this order so that on a full tie (`*/*`, no Accept) plain JSON wins, as in Apollo.
  new Negotiator({ headers: { accept: headers.accept ?? '*/*' } }).mediaType(offered);

/** The content type of a JSON answer: the GraphQL response type when the client prefers it. */
export function jsonResponseType(headers: Headers): string {
  const type = negotiate(headers, [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]);
  return `${type === GRAPHQL_RESPONSE_JSON ? GRAPHQL_RESPONSE_JSON : APPLICATION_JSON}; charset=utf-8`;
}

/** The client accepts one of the two JSON types (no Accept header accepts anything). */
export function acceptsJson(headers: Headers): boolean {
  return negotiate(headers, [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON]) !== undefined;
}

/** A browser's page load: HTML preferred to both GraphQL response types. */
export function prefersHtml(headers: Headers): boolean {
  if (!headers.accept) return false;
  return negotiate(headers, [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, HTML]) === HTML;
}

/** The client would rather have an event stream than JSON (a graphql-sse client, not urql). */
export function prefersEventStream(headers: Headers): boolean {
  if (!headers.accept) return false;
  return (
    negotiate(headers, [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, EVENT_STREAM]) === EVENT_STREAM
  );
}

/**
 * The client names `text/event-stream` with q > 0 (a wildcard is not asking for a stream). Only a
 * subscription is then served as one.
 */
export function asksForEventStream(headers: Headers): boolean {
  if (!headers.accept) return false;
  return new Negotiator({ headers: { accept: headers.accept } })
    .mediaTypes()
    .includes(EVENT_STREAM);
}
