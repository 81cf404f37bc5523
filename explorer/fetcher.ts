/**
 * The explorer's fetcher: GraphiQL's own (`createGraphiQLFetcher`) for queries and mutations — the
 * parts of a `@defer` or `@stream` answer included — and GraphQL over SSE for subscriptions
 * (`subscription-fetcher.ts`), with two headers on every request; the ledger of each run, and each
 * part or event as it arrives, noted for the ledger panel and the footer.
 *
 * - `Weft-Priority: explorer`: the explorer's reads are served after apps' (docs/budget.md
 *   "Priorities").
 * - `Weft-Ledger: 1`: the response carries its upstream ledger (`extensions.upstream`,
 *   docs/budget.md), which the panel shows and the response editor shows too.
 */
import { createGraphiQLFetcher, type Fetcher, type FetcherParams } from '@graphiql/toolkit';
import { getOperationAST, Kind, parse, type DocumentNode } from 'graphql';
import type { LastRun, LastRunStore } from './last-run.ts';
import { readLedger, type Ledger } from './ledger.ts';
import {
  announcesMore,
  createPartReader,
  isIncremental,
  KEPT_PARTS,
  type ArrivedPart,
  type Delivery,
} from './response-parts.ts';
import { headerValues, subscribeOverSse } from './subscription-fetcher.ts';

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

/** Whether the operation that would run is a subscription (it goes over SSE). */
export function isSubscription(params: FetcherParams): boolean {
  let document: DocumentNode;
  try {
    document = parse(params.query);
  } catch {
    return false;
  }
  return getOperationAST(document, params.operationName ?? undefined)?.operation === 'subscription';
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** The headers every run carries; the Headers tab's own come after them (and may replace them). */
const OWN_HEADERS = { 'Weft-Priority': 'explorer', 'Weft-Ledger': '1' } as const;

export function createExplorerFetcher(endpoint: string, lastRun: LastRunStore): Fetcher {
  // Queries and mutations: GraphiQL's fetcher, which reads an answer's parts (`multipart/mixed`,
  // `@defer` and `@stream`) and yields each chunk as it arrives; GraphiQL merges them into the
  // editor.
  const base = createGraphiQLFetcher({ url: endpoint, headers: { ...OWN_HEADERS } });
  return async (graphQLParams, options) => {
    const params = ownOperationName(graphQLParams);
    if (params.operationName === INTROSPECTION) return base(params, options);

    const subscription = isSubscription(params);
    const sent = performance.now();
    const run = { operation: operationLabel(params), startedAt: Date.now() };
    let ledger: Ledger | undefined;
    let events = 0;
    let delivery: Delivery = subscription ? 'events' : 'single';
    let arrived = 0;
    let parts: readonly ArrivedPart[] = [];
    const reader = createPartReader();
    let more = subscription;
    const publish = (state: LastRun['state']) =>
      lastRun.set({ ...run, state, ledger, events, delivery, arrived, parts, more });
    publish('running');
    // A result is one response, one event of a stream, or (multipart) a list of parts of a chunk.
    const note = (result: unknown) => {
      if (delivery === 'single' && isIncremental(result)) delivery = 'parts';
      const atMs = Math.round(performance.now() - sent);
      for (const part of Array.isArray(result) ? result : [result]) {
        const found = readLedger(part);
        if (found !== undefined) {
          ledger = found;
          events += 1;
        }
        if (delivery === 'single') continue;
        arrived += 1;
        parts = [...parts, reader.read(part, delivery, arrived, atMs)].slice(-KEPT_PARTS);
        if (delivery === 'parts') more = announcesMore(part);
      }
      publish('done');
    };
    const ended = () => {
      more = false;
      publish('done');
    };
    const failed = (error: unknown): never => {
      more = false;
      publish('failed');
      throw error;
    };

    // What the server answered: a result, or an async iterable of them (parts, events).
    let value: unknown;
    try {
      value = subscription
        ? subscribeOverSse(endpoint, params, {
            ...OWN_HEADERS,
            ...headerValues(options?.headers),
          })
        : // The transport is decided above, from the text sent: GraphiQL's parsed document may
          // still be another tab's, and its fetcher would send a "subscription" nowhere.
          await base(params, { ...options, documentAST: undefined });
    } catch (error) {
      return failed(error);
    }
    if (!isAsyncIterable(value)) {
      note(value);
      return value as never;
    }
    // An iterator, not a generator: GraphiQL's stop button calls `return()`, which must reach the
    // source at once — a generator's would wait for the next event first.
    const source = value[Symbol.asyncIterator]();
    const recorded: AsyncIterableIterator<unknown> = {
      async next() {
        let step: IteratorResult<unknown>;
        try {
          step = await source.next();
        } catch (error) {
          return failed(error);
        }
        if (step.done) ended();
        else note(step.value);
        return step;
      },
      async return() {
        ended();
        await source.return?.();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]() {
        return recorded;
      },
    };
    return recorded as never;
  };
}
