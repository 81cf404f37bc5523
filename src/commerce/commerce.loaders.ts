/**
 * Per-request loaders for commerce reads: each record is fetched at most once per request, and the
 * transactions asked for by id anywhere in one request leave as ONE list call per store.
 */
import DataLoader from 'dataloader';
import { createKeyedLoader } from '../kit/keyed-loader.ts';
import { trackAskers, type LoaderAskers } from '../kit/loader-askers.ts';
import type { CommerceApi } from './commerce.api.ts';
import type { RedactedTransaction } from './transaction-presentation.ts';

/** The upstream's largest `pageSize` and `transactionIds` count. */
const MAX_IDS_PER_CALL = 100;
/** v1 lists: the largest `limit`. */
export const V1_MAX_LIMIT = 100;
/** A bound on a channel walk, in case an upstream never returns a short page. */
export const MAX_CHANNEL_PAGES = 50;

interface TransactionKey {
  storeId: string;
  transactionId: string;
}

const pair = (a: string, b: string): string => `${a}\u0000${b}`;

const idOf = (item: unknown, field: string): string | undefined => {
  const value =
    typeof item === 'object' && item !== null
      ? (item as Record<string, unknown>)[field]
      : undefined;
  return typeof value === 'string' ? value : undefined;
};

/**
 * Every channel (of one store, or all of them), walking the v1 cursor sequentially as the document
 * asks (`limit` 100, `marker` = last `channelId`, until a short page). A page that starts at or
 * before the marker means the upstream restarted (the marker vanished meanwhile): stop there rather
 * than loop or repeat.
 */
export async function walkChannels(
  api: CommerceApi,
  storeId: string | undefined,
): Promise<unknown[]> {
  const all: unknown[] = [];
  let marker: string | undefined;
  for (let page = 0; page < MAX_CHANNEL_PAGES; page += 1) {
    const items = await api.channels(V1_MAX_LIMIT, marker, storeId);
    const first = idOf(items[0], 'channelId');
    if (marker !== undefined && first !== undefined && first.toLowerCase() <= marker) break;
    all.push(...items);
    const last = idOf(items.at(-1), 'channelId');
    if (items.length < V1_MAX_LIMIT || last === undefined) break;
    marker = last.toLowerCase();
  }
  return all;
}

/** One list call per store and per 100 ids; a store's failure fails that store's keys only. */
async function loadTransactions(
  api: CommerceApi,
  keys: readonly TransactionKey[],
): Promise<(RedactedTransaction | null | Error)[]> {
  const byStore = new Map<string, string[]>();
  for (const key of keys) {
    const ids = byStore.get(key.storeId) ?? [];
    if (!ids.includes(key.transactionId)) ids.push(key.transactionId);
    byStore.set(key.storeId, ids);
  }
  const found = new Map<string, RedactedTransaction | Error>();
  await Promise.all(
    [...byStore].flatMap(([storeId, ids]) => {
      const chunks: string[][] = [];
      for (let i = 0; i < ids.length; i += MAX_IDS_PER_CALL) {
        chunks.push(ids.slice(i, i + MAX_IDS_PER_CALL));
      }
      return chunks.map(async (chunk) => {
        try {
          const page = await api.transactions(storeId, {
            page: 1,
            pageSize: chunk.length,
            transactionIds: chunk,
          });
          for (const item of page.items) {
            const id = idOf(item.fields, 'transactionId');
            if (id !== undefined) found.set(pair(storeId, id.toLowerCase()), item);
          }
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          for (const id of chunk) found.set(pair(storeId, id), failure);
        }
      });
    }),
  );
  return keys.map((key) => found.get(pair(key.storeId, key.transactionId)) ?? null);
}

/** The commerce loaders of one GraphQL request. */
export type CommerceLoaders = ReturnType<typeof createCommerceLoaders>;

/** Fresh per-request loaders over one request's {@link CommerceApi}. */
export function createCommerceLoaders(api: CommerceApi) {
  return {
    store: createKeyedLoader(api.store, (storeId: string) => storeId),
    attribute: createKeyedLoader(
      (key: { storeId: string; name: string }) => api.attribute(key.storeId, key.name),
      (key) => pair(key.storeId, key.name),
    ),
    customer: createKeyedLoader(
      (key: { storeId: string; customerId: string }) => api.customer(key.storeId, key.customerId),
      (key) => pair(key.storeId, key.customerId),
    ),
    /** Channels of a store (`storeId`) or of the whole account (`''`). */
    channels: createKeyedLoader(
      (storeId: string) => walkChannels(api, storeId === '' ? undefined : storeId),
      (storeId) => storeId,
    ),
    /** Keys are lower-case ids (the upstream matches uuids case-insensitively). */
    transaction: transactionLoader(api),
  };
}

/** Transactions by id, batched per store; a batch's calls name every field that asked. */
function transactionLoader(api: CommerceApi) {
  const cacheKey = (key: TransactionKey) => pair(key.storeId, key.transactionId);
  const loader: DataLoader<TransactionKey, RedactedTransaction | null, string> = new DataLoader(
    (keys) => askers.run(keys, () => loadTransactions(api, keys)),
    { cacheKeyFn: cacheKey, maxBatchSize: 1000 },
  );
  const askers: LoaderAskers<TransactionKey> = trackAskers(loader, cacheKey);
  return loader;
}
