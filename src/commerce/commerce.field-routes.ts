/**
 * The upstream routes each commerce REST field may call (`kit/field-routes.ts`), read against
 * commerce.resolvers.ts, customer-mutations.ts, commerce.loaders.ts and commerce.api.ts. A channel
 * read by id falls back to the walk of the channels on a 401 (the document's workaround); a
 * transaction by id is read through the list's `transactionIds` filter.
 */
import { GET, PATCH, POST, type FieldRouteDeclarations } from '../kit/field-routes.ts';
import { COMMERCE_ROUTES as R } from './commerce.upstream-routes.ts';

export const COMMERCE_FIELD_ROUTES: FieldRouteDeclarations = {
  'Query.channels': [GET(R.channels)],
  'Query.channel': [GET(R.channel), GET(R.channels)],
  'Store.raw': [GET(R.store)],
  'Store.attribute': [GET(R.attribute)],
  'Store.channels': [GET(R.channels)],
  'Store.customers': [GET(R.customers)],
  'Store.customer': [GET(R.customer)],
  'Store.transactions': [GET(R.transactions)],
  'Store.transaction': [GET(R.transactions)],
  'Mutation.createStoreCustomer': [POST(R.customers)],
  'Mutation.updateStoreCustomer': [PATCH(R.customer)],
};
