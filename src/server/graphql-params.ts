/**
 * The GraphQL-over-HTTP parameters of a request, read one way by every step that needs them
 * (document checks, APQ registration, response replay): the POST body — JSON, or the `operations`
 * of a multipart upload — or GET's query string, where `variables` and `extensions` are JSON text.
 */
import type { FastifyRequest } from 'fastify';
import { isRecord } from '../kit/is-record.ts';

export interface GraphqlParams {
  readonly query: string | undefined;
  readonly operationName: string | undefined;
  readonly variables: unknown;
  readonly extensions: Record<string, unknown> | undefined;
  /** `extensions.persistedQuery.sha256Hash` (APQ, trusted documents). */
  readonly persistedHash: string | undefined;
  /** The object the parameters were read from (the body, or the query string), as sent. */
  readonly source: Record<string, unknown>;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** JSON text (GET) or the value itself (POST); undefined when the text is not JSON. */
function jsonOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Read once per request (the document checks, APQ registration and replay each ask), and kept as a
 * property of the request (null: it has none) rather than in a WeakMap, whose entries the collector
 * traces as ephemerons after every request.
 */
const PARAMS = Symbol('weft.graphqlParams');
type WithParams = FastifyRequest & { [PARAMS]?: GraphqlParams | null };

/** Undefined for a request without parameters, or a batch (an array, which Apollo refuses). */
export function graphqlParamsOf(request: WithParams): GraphqlParams | undefined {
  let params = request[PARAMS];
  if (params === undefined) {
    params = readParams(request) ?? null;
    request[PARAMS] = params;
  }
  return params ?? undefined;
}

/** After a step changed the request's parameters (APQ registration drops a hash): read them again. */
export function forgetGraphqlParams(request: WithParams): void {
  request[PARAMS] = undefined;
}

function readParams(request: FastifyRequest): GraphqlParams | undefined {
  const source = request.method === 'GET' ? request.query : request.body;
  if (!isRecord(source)) return undefined;
  const extensions = jsonOf(source.extensions);
  const persisted = isRecord(extensions) ? extensions.persistedQuery : undefined;
  return {
    query: text(source.query),
    operationName: text(source.operationName),
    variables: jsonOf(source.variables),
    extensions: isRecord(extensions) ? extensions : undefined,
    persistedHash: isRecord(persisted) ? text(persisted.sha256Hash) : undefined,
    source,
  };
}
