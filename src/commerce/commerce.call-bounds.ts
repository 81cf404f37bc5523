/**
 * What each commerce field costs in upstream calls, at most (`kit/call-bounds.ts`, docs/budget.md,
 * "Commerce"). Read against commerce.resolvers.ts, commerce.loaders.ts and commerce.api.ts:
 *
 * - `store`, `customer`, `attribute` reads go through keyed loaders (one call per distinct key per
 *   request): one call per parent is an upper bound;
 * - channels are WALKED (`walkChannels`: `limit` 100, `marker`, until a short page, at most
 *   {@link CHANNEL_WALK_PAGES} pages): a walk is up to 50 calls, whatever the page the client sees.
 *   The commerce document does not show how many channels an account may have, so the walk's own
 *   stop is the only bound there is;
 * - a connection page is one call (`customers`: v1 `limit` = first + 1 ≤ 100; `transactions`: the one
 *   v2 page covering the window), its items the `first` argument, else the maximum (100);
 * - transactions by id are batched per store and per 100 ids (`transactionLoader`): one call per
 *   parent store is an upper bound (a batchSize would undercount parents of different stores);
 * - writes are one POST / PATCH each, never retried (not idempotent).
 */
import { FREE, ONE_CALL, intArg, type CallBoundDeclarations } from '../kit/call-bounds.ts';
import { MAX_CHANNEL_PAGES, V1_MAX_LIMIT } from './commerce.loaders.ts';
import { CUSTOMER_PAGE } from './customer-connection.ts';
import { TRANSACTION_PAGE } from './transaction-connection.ts';

/**
 * The most pages one channel walk fetches (it stops earlier at a short page, or at a page that
 * restarts before the marker).
 */
export const CHANNEL_WALK_PAGES = MAX_CHANNEL_PAGES;
/** The v1 `limit` of each page of the walk. */
const CHANNEL_WALK_LIMIT = V1_MAX_LIMIT;

/** A walk of the channels (of a store, or of the account): up to 50 calls, 5000 channels. */
const CHANNEL_WALK = {
  calls: CHANNEL_WALK_PAGES,
  items: CHANNEL_WALK_PAGES * CHANNEL_WALK_LIMIT,
} as const;

/**
 * The items of a page of `first` items: at most the connection's maximum (a larger `first` is
 * refused before the call). Without `first` execution takes the default (20 customers, 10
 * transactions), but the estimator also leaves out an argument whose variable is unknown (a
 * build-time check), so an absent `first` counts the maximum.
 */
const pageOf =
  (page: { readonly maxFirst: number }) =>
  (args: Readonly<Record<string, unknown>>): number =>
    Math.min(intArg(args, 'first', page.maxFirst), page.maxFirst);

export const COMMERCE_CALL_BOUNDS: CallBoundDeclarations = {
  // The store object is built from the argument; its fields load what they need.
  'Query.store': FREE,
  // The channels loader is keyed by the `storeId` argument alone: one walk per request and key. Not
  // declared `oncePerRequest`: without its variable (a build-time check) `channels(storeId: $s)`
  // has the arguments of the account-wide `channels`, two walks that would then count once.
  'Query.channels': CHANNEL_WALK,
  // Get-by-id (not through a loader: one call per selection), and on a 401 the documented
  // workaround: the walk of the store's (or the account's) channels.
  'Query.channel': { calls: 1 + CHANNEL_WALK_PAGES },

  'Store.id': FREE,
  'Store.storeId': FREE,
  // GET /v1/commerce/stores/{storeId}, once per store per request (keyed loader).
  'Store.raw': ONE_CALL,
  // GET …/attributes/{attrName}, once per store and name.
  'Store.attribute': ONE_CALL,
  // The walk of the store's channels (keyed by the store: shared with `channels(storeId:)`).
  'Store.channels': CHANNEL_WALK,
  // One v1 page: `limit` = first + 1 (≤ 100) tells whether a next page exists in the same call.
  'Store.customers': { calls: 1, items: pageOf(CUSTOMER_PAGE) },
  // GET …/customers/{customerId}, once per store and id.
  'Store.customer': ONE_CALL,
  // One v2 page covering the window (`pageCovering`); `totalRequired` rides on the same call.
  'Store.transactions': { calls: 1, items: pageOf(TRANSACTION_PAGE) },
  // The list with `transactionIds`: one call per store per 100 ids asked in the request.
  'Store.transaction': ONE_CALL,

  'Channel.id': FREE,
  'Channel.channelId': FREE,
  'Channel.registeredStoreIds': FREE,
  'Channel.raw': FREE,

  'StoreCustomer.id': FREE,
  'StoreCustomer.customerId': FREE,
  'StoreCustomer.storeId': FREE,
  'StoreCustomer.raw': FREE,

  // Every Transaction field reads the (redacted) record its list or batch already returned.
  'Transaction.id': FREE,
  'Transaction.transactionId': FREE,
  'Transaction.storeId': FREE,
  'Transaction.transactionRefNum': FREE,
  'Transaction.type': FREE,
  'Transaction.status': FREE,
  'Transaction.amount': FREE,
  'Transaction.amountType': FREE,
  'Transaction.card': FREE,
  'Transaction.fundingSourceType': FREE,
  'Transaction.channelId': FREE,
  'Transaction.merchantInitiated': FREE,
  'Transaction.notes': FREE,
  'Transaction.references': FREE,
  'Transaction.createdAt': FREE,
  'Transaction.updatedAt': FREE,
  'Transaction.voidableUntil': FREE,
  'Transaction.captureBy': FREE,
  'Transaction.raw': FREE,

  // POST …/customers and PATCH …/customers/{customerId}: one call each; the written record primes
  // the customer loader, so a later read of it in the request costs nothing more.
  'Mutation.createStoreCustomer': ONE_CALL,
  'Mutation.updateStoreCustomer': ONE_CALL,
};
