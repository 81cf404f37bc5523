/**
 * The commerce REST routes this domain calls, as the upstream stack must treat them (cache,
 * circuit, redaction). Transaction answers are redacted (`card-redaction.ts`) before anything is
 * cached or read. The single-transaction read is declared though unused (commerce.api.ts says why),
 * so that a future caller gets its redaction and cache by default. Scopes as the commerce
 * document's scope list gives them.
 */
import { cacheFor, invalidates, pathParam, type Tagger } from '../upstream/route-policy.ts';
import { inCircuit, type UpstreamRoute } from '../upstream/upstream-routes.ts';
import { redactTransactionPage, redactTransactionRecord } from './card-redaction.ts';

/** Route templates (they name the calls in errors, metrics and the simulator's stats). */
export const COMMERCE_ROUTES = {
  store: '/v1/commerce/stores/{storeId}',
  attribute: '/v1/commerce/stores/{storeId}/attributes/{attrName}',
  channels: '/v1/commerce/channels',
  channel: '/v1/commerce/channels/{channelId}',
  customers: '/v1/commerce/stores/{storeId}/customers',
  customer: '/v1/commerce/stores/{storeId}/customers/{customerId}',
  transactions: '/v2/commerce/stores/{storeId}/transactions',
  transaction: '/v2/commerce/stores/{storeId}/transactions/{transactionId}',
} as const;

const storeTags: Tagger = (call) => [`store:${pathParam(call, 'storeId')}`];
const customerTags: Tagger = (call) => [`customers:${pathParam(call, 'storeId')}`];
const transactionTags: Tagger = (call) => [`transactions:${pathParam(call, 'storeId')}`];
const channelTags: Tagger = () => ['channels'];

export const COMMERCE_UPSTREAM_ROUTES: readonly UpstreamRoute[] = inCircuit('commerce', [
  {
    method: 'GET',
    route: COMMERCE_ROUTES.store,
    scope: 'commerce.store:read',
    cache: cacheFor({ kind: 'store', ttlSec: 600, tags: storeTags }),
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.attribute,
    scope: 'commerce.store:read',
    cache: cacheFor({ kind: 'store', ttlSec: 600, tags: storeTags }),
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.channels,
    scope: 'commerce.channel:read',
    cache: cacheFor({ kind: 'channel', ttlSec: 600, tags: channelTags }),
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.channel,
    scope: 'commerce.channel:read',
    cache: cacheFor({ kind: 'channel', ttlSec: 600, tags: channelTags }),
    // "a token that can list channels may receive 401 there" (commerce document).
    resourceScoped401: true,
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.customers,
    scope: 'commerce.customer:read',
    cache: cacheFor({ kind: 'store-customer', ttlSec: 60, tags: customerTags }),
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.customer,
    scope: 'commerce.customer:read',
    cache: cacheFor({ kind: 'store-customer', ttlSec: 60, tags: customerTags }),
  },
  {
    method: 'POST',
    route: COMMERCE_ROUTES.customers,
    scope: 'commerce.customer:create',
    cache: invalidates(customerTags),
  },
  {
    method: 'PATCH',
    route: COMMERCE_ROUTES.customer,
    scope: 'commerce.customer:update',
    cache: invalidates(customerTags),
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.transactions,
    scope: 'commerce.transaction:read',
    cache: cacheFor({
      kind: 'transaction',
      ttlSec: 30,
      tags: transactionTags,
      // Dates a user picks: a page filtered by one is kept on its second sight only.
      freeFilters: ['updatedAtAfter', 'updatedAtBefore'],
    }),
    redact: redactTransactionPage,
  },
  {
    method: 'GET',
    route: COMMERCE_ROUTES.transaction,
    scope: 'commerce.transaction:read',
    cache: cacheFor({ kind: 'transaction', ttlSec: 30, tags: transactionTags }),
    redact: redactTransactionRecord,
  },
]);
