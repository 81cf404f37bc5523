/**
 * The one content negotiation of the GraphQL route, with `negotiator` (the library Apollo Server
 * negotiates with, so both read an `Accept` header the same way: q-values, specificity, then the
 * client's order). Three questions are asked of it:
 * - whether the client accepts a JSON answer at all (else 406 before anything runs), and which JSON
 *   type an answer the gateway writes itself (a refusal, a replay) goes out as;
 * - whether a GET is a browser asking for the explorer page;
 * - whether a subscription asked for an event stream (a query or a mutation never becomes one);
 * - whether the client reads an answer in parts (`multipart/mixed`, for `@defer` and `@stream`), and
 *   in which of the two formats.
 */
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';

export const APPLICATION_JSON = 'application/json';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const EVENT_STREAM = 'text/event-stream';
const HTML = 'text/html';
const MULTIPART_MIXED = 'multipart/mixed';
/**
 * The two incremental formats Weft writes, as Apollo Server names them: the format of graphql-js
 * 17.0.0-alpha.2 that Apollo Client 4's `Defer20220824Handler` and urql read (`incremental` entries
 * with their `path`), and the format of graphql-js 17.0.0-alpha.9 that Apollo Client 4's
 * `GraphQL17Alpha9Handler` reads (`pending`, `incremental` entries with an `id`, `completed`).
 */
export const MULTIPART_DEFER = 'multipart/mixed; deferSpec=20220824';
export const MULTIPART_INCREMENTAL = 'multipart/mixed; incrementalSpec=v0.2';
export type PartsFormat = typeof MULTIPART_DEFER | typeof MULTIPART_INCREMENTAL;

type Headers = { readonly accept?: string | undefined };

/** What one `Accept` value answers to each question below. */
interface Negotiated {
  /** The preferred JSON type, or undefined when neither is acceptable. */
  readonly json: string | undefined;
  readonly prefersHtml: boolean;
  readonly prefersEventStream: boolean;
  readonly asksForEventStream: boolean;
  /**
   * The format of the parts the client reads: it names `multipart/mixed` in one of the two formats
   * (or with none: urql, which reads the 2022 one). Undefined when it reads no parts.
   */
  readonly partsFormat: PartsFormat | undefined;
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
  partsFormat: undefined,
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
    // Named, not implied by a wildcard. A bare `multipart/mixed` matches both formats equally: the
    // 2022 one, offered first, wins the tie; otherwise the client's q-values, then its order.
    partsFormat: negotiator.mediaTypes().includes(MULTIPART_MIXED)
      ? (negotiator.mediaType([MULTIPART_DEFER, MULTIPART_INCREMENTAL]) as PartsFormat | undefined)
      : undefined,
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

/**
 * The client reads an answer in parts: `multipart/mixed` named with q > 0, in either format or with
 * no format parameter (urql lists a bare `multipart/mixed` on every request and reads the 2022
 * format). A wildcard does not count: curl's default Accept gets one JSON answer.
 */
export function readsParts(headers: Headers): boolean {
  return negotiated(headers).partsFormat !== undefined;
}

/** The format a client that reads parts gets them in (undefined: it reads none). */
export function partsFormat(headers: Headers): PartsFormat | undefined {
  return negotiated(headers).partsFormat;
}

/**
 * The Accept header Apollo Server is handed for a client that reads parts: Apollo writes parts only
 * for an Accept that names a format (and names the format in the answer's content type), and
 * chooses the JSON type of a single answer from the same header — so both are kept: the client's
 * format, then the JSON type it prefers.
 */
export function partsAccept(headers: Headers): string {
  const { json, partsFormat } = negotiated(headers);
  return `${partsFormat ?? MULTIPART_DEFER}, ${json ?? APPLICATION_JSON}`;
}
