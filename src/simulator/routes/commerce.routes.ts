/**
 * Commerce REST operations (commerce document, "Transactions (REST)" and "Other REST endpoints"):
 * 10 operations, registered from `routes/commerce/`. Record shapes are decided in
 * `fixtures/commerce.fixtures.ts` and `fixtures/transactions.fixtures.ts`.
 *
 * Decisions where the document says "not shown":
 * - Scopes as in the document's scope list (route `config.scope`); a missing scope is 403.
 * - Visibility: a store of another account is 404 on every store-scoped route (store, attribute,
 *   customers, transactions). A malformed uuid in a path is 400 with `fields[].path` `$.<param>`
 *   (`$.storeId`, `$.customerId`, `$.channelId`, `$.transactionId`); uuids match case-insensitively.
 * - Store: `GET /v1/commerce/stores/{storeId}` returns the store record.
 * - Attribute: `GET …/attributes/{attrName}` returns `{name, value, updatedAt}`, `value` any JSON
 *   (may be null); an unknown name is 404.
 * - v1 lists (channels, customers): `limit` digits only, 1..100, default 20 (else 400 `$.limit`);
 *   `marker` is the last item's id (`channelId`, `customerId`); items ascend by that id; a marker that
 *   names no item (unknown, deleted, malformed, another account's) restarts from the first page, with
 *   no error. Response `{items: [...]}` and nothing else. Unknown query parameters are ignored.
 * - Channels: only the caller's account's channels are listed; filter `registeredStores.storeId`
 *   (a uuid, else 400 `$['registeredStores.storeId']`; another account's store gives `items: []`).
 * - Channel by id (the documented quirk): a restricted channel (store A's MARKETPLACE channel) and a
 *   channel of another account answer 401 `UNAUTHORIZED` although the list shows the former; unknown
 *   is 404. Workaround: list with `registeredStores.storeId` and pick by `channelId`.
 * - Customers: POST body `{email (required), givenName?, familyName?, phone? (E.164), tags?
 *   (≤ 20 strings of 1..50 characters, duplicates dropped)}` → 201 with the customer (status
 *   ACTIVE, no addresses). PATCH takes the same fields, all optional, at least one required;
 *   `null` clears givenName, familyName and phone. Unknown body fields are ignored. Validation is 400
 *   with every failing field in `fields` (`$.email`, `$.tags[2]`, …; field codes REQUIRED,
 *   INVALID_TYPE, INVALID_FORMAT, OUT_OF_RANGE); the top-level code is INVALID_BODY when a required
 *   value is missing or the body is not an object, INVALID_FORMAT otherwise. An email already used in
 *   the store (case-insensitive) is 409 `CUSTOMER_EXISTS` (also on PATCH).
 * - Transactions list (v2; the document's "v2 lists accept neither limit nor marker" is read
 *   strictly: either is 400 `INVALID_FORMAT`, field code `NOT_ACCEPTED`): `page` 1..1 000 000
 *   (default 1), `pageSize` 1..100 (default 10), both digits only;
 *   `totalRequired` `true`|`false`; `transactionIds` repeated and/or comma-separated, each a uuid
 *   (else 400 `$.transactionIds[i]`, i counting after splitting), at most 100; `updatedAtAfter` and
 *   `updatedAtBefore` RFC 3339 date-times of 20..64 characters, both exclusive bounds; `sortBy` only
 *   `updatedAt`; `sortOrder` ASC (default) or DESC, upper case; ties break on transactionId. Every
 *   query error is 400 `INVALID_FORMAT` with `fields[].path` `$.<param>`.
 * - Transactions page: `{items, links}`, plus `totalItems` and `totalPages` only when
 *   `totalRequired=true`. `links` always has `self`, `next` when a later page has items, `prev` when
 *   page > 1 (pointing at the last page when past the end); hrefs are paths with a normalised query
 *   (`page`, `pageSize`, then the filters given). A page past the end is 200 with `items: []`.
 * - Header "Request Id" is `x-request-id`: optional, a uuid (else 400 `$['x-request-id']`), echoed
 *   back in the response header of both transaction operations.
 */
import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../sim-context.ts';
import { registerChannelRoutes } from './commerce/channels.routes.ts';
import { registerCustomerRoutes } from './commerce/customers.routes.ts';
import { registerStoreRoutes } from './commerce/stores.routes.ts';
import { registerTransactionRoutes } from './commerce/transactions.routes.ts';

export async function registerCommerceRoutes(app: FastifyInstance, ctx: SimContext): Promise<void> {
  registerStoreRoutes(app, ctx);
  registerChannelRoutes(app, ctx);
  registerCustomerRoutes(app, ctx);
  registerTransactionRoutes(app, ctx);
}
