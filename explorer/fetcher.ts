/**
 * The explorer's fetcher: GraphiQL's own (`createGraphiQLFetcher`), with two headers on every
 * request, and the ledger of each run noted for the ledger panel.
 *
 * - `Weft-Priority: explorer`: the explorer's reads are served after apps' (docs/efficiency.md
 *   "Priorities").
 * - `Weft-Trace: 1`: the response carries its upstream ledger (`extensions.upstream`,
 *   docs/ledger.md), which the panel shows and the response editor shows too.
 */
import { createGraphiQLFetcher, type Fetcher, type FetcherParams } from '@graphiql/toolkit';
import { Kind, parse, type DocumentNode } from 'graphql';
import type { LastRunStore } from './last-run.ts';
import { readLedger, type Ledger } from './ledger.ts';

/** GraphiQL's schema request: not a run of the user's. */
const INTROSPECTION = 'IntrospectionQuery';

/**
 * Right after a tab switch GraphiQL may still send the previous tab's operation name; a name the
 * document does not define is dropped, so the document's own operation runs.
 */
export function ownOperationName(params: FetcherParams): FetcherParams {
  const name = params.operationName;
  if (!name) return params;
  const defined = new RegExp(`\\b(query|mutation|subscription)\\s+${name}\\b`).test(params.query);
  return defined ? params : { ...params, operationName: undefined };
}

/**
 * The name the panel shows: the one sent, else the document's first operation's — read from the
 * query sent, not from GraphiQL's parsed document, which may still be the previous tab's.
 */
export function operationLabel(params: FetcherParams): string {
  if (params.operationName) return params.operationName;
  let document: DocumentNode;
  try {
    document = parse(params.query);
  } catch {
    return 'anonymous';
  }
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) return definition.name?.value ?? 'anonymous';
  }
  return 'anonymous';
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

export function createExplorerFetcher(endpoint: string, lastRun: LastRunStore): Fetcher {
  const base = createGraphiQLFetcher({
    url: endpoint,
    headers: { 'Weft-Priority': 'explorer', 'Weft-Trace': '1' },
  });
  return async (graphQLParams, options) => {
    const params = ownOperationName(graphQLParams);
    if (params.operationName === INTROSPECTION) return base(params, options);

    const run = { operation: operationLabel(params), startedAt: Date.now() };
    let ledger: Ledger | undefined;
    let events = 0;
    lastRun.set({ ...run, state: 'running', ledger, events });
    // A result is one response, or (multipart) one event or a list of parts of one.
    const note = (result: unknown) => {
      for (const part of Array.isArray(result) ? result : [result]) {
        const found = readLedger(part);
        if (found === undefined) continue;
        ledger = found;
        events += 1;
      }
      lastRun.set({ ...run, state: 'done', ledger, events });
    };
    const failed = (error: unknown) => {
      lastRun.set({ ...run, state: 'failed', ledger, events });
      throw error;
    };

    let value: Awaited<ReturnType<Fetcher>>;
    try {
      value = await base(params, options);
    } catch (error) {
      return failed(error);
    }
    if (!isAsyncIterable(value)) {
      note(value);
      return value;
    }
    const source = value;
    return (async function* recorded() {
      try {
        for await (const result of source) {
          note(result);
          yield result as never;
        }
      } catch (error) {
        failed(error);
      }
    })();
  };
}
