/**
 * Which kind of operation a GraphQL-over-HTTP request body carries, so that the cache can tell a
 * subgraph query (cacheable) from a mutation (invalidates) on the same POST route. Parsing is
 * memoised per document: stitching sends the same few documents again and again.
 */
import { Kind, parse, type OperationTypeNode } from 'graphql';
import { LRUCache } from 'lru-cache';

export type OperationType = `${OperationTypeNode}`;

/** `false`: the document does not parse (remembered too, so garbage is not parsed again). */
const memo = new LRUCache<string, Map<string, OperationType> | false>({ max: 1_000 });

function operationsOf(document: string): Map<string, OperationType> | false {
  const known = memo.get(document);
  if (known !== undefined) return known;
  let operations: Map<string, OperationType> | false;
  try {
    operations = new Map();
    for (const definition of parse(document, { noLocation: true }).definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) {
        operations.set(definition.name?.value ?? '', definition.operation as OperationType);
      }
    }
  } catch {
    operations = false;
  }
  memo.set(document, operations);
  return operations;
}

/**
 * The type of the operation a `{query, operationName}` body runs; undefined when the body is not a
 * GraphQL request or names no single operation (callers then treat it as a write).
 */
export function operationTypeOf(body: unknown): OperationType | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return undefined;
  const operations = operationsOf(query);
  if (!operations || operations.size === 0) return undefined;
  if (typeof operationName === 'string' && operationName !== '') {
    return operations.get(operationName);
  }
  return operations.size === 1 ? operations.values().next().value : undefined;
}
